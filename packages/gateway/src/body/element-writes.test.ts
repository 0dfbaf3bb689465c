import { describe, expect, it } from 'vitest';
import type { Content } from '@toolmask/core';
import { GEMINI_API_PROTOCOL } from '../protocols/gemini/index.js';
import { IncrementalBody } from './incremental-body.js';
import { PiecedBody } from './pieced-body.js';

const entry = (id: number, size: number): Content => ({
  role: id % 2 === 0 ? 'model' : 'user',
  parts: [{ text: `${id}:${'é x'.repeat(size)}` }],
});

/** A body of `contents`, compact (as `JSON.stringify` writes it) or with spacing. */
function body(contents: readonly Content[], spacing: string): Buffer {
  const elements = contents.map((content) => JSON.stringify(content)).join(`,${spacing}`);
  return Buffer.from(`{"contents":[${spacing}${elements}${spacing}],"tools":[]}`);
}

/** What was sent, piece by piece. */
const piecesOf = (sent: Buffer | PiecedBody) =>
  sent instanceof PiecedBody ? sent.pieces.map((piece) => piece.toString()) : [sent.toString()];

/** A seeded pseudo-random sequence (the test is the same every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('writeElements', () => {
  it('sends the same pieces when told which elements the pass changed as without (issue 30)', async () => {
    for (const spacing of ['', ' ']) {
      const next = random(spacing.length + 7);
      const told = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
      const untold = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
      const history: Content[] = [];
      for (let request = 0; request < 30; request++) {
        // The client adds entries (large and small), and now and then edits an older one.
        for (let added = 0; added < 2; added++) {
          history.push(entry(history.length, next() < 0.3 ? 6_000 : 20));
        }
        if (next() < 0.15) history[Math.floor(next() * history.length)] = entry(999, 30);
        const raw = body(history, spacing);
        const [one, two] = [await told.read(raw, 'm'), await untold.read(raw, 'm')];
        expect(one?.contents).toEqual(two?.contents);
        // The pass rewrites a few elements (some again), the rest go as they came.
        const changes = new Map<number, Content>();
        for (let index = 0; index < history.length; index++) {
          if (next() < 0.1) changes.set(index, { role: 'user', parts: [{ text: `m${index}` }] });
        }
        const sentOne = one!.contents.map((content, index) => changes.get(index) ?? content);
        const sentTwo = two!.contents.map((content, index) => changes.get(index) ?? content);
        const differs = [...changes.keys()].sort((a, b) => a - b);
        expect(piecesOf(await one!.send(sentOne, differs))).toEqual(
          piecesOf(await two!.send(sentTwo)),
        );
      }
    }
  });

  it('looks only at the elements the pass changed and those written before (issue 30)', async () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const history = Array.from({ length: 200 }, (_, index) => entry(index, 10));
    const first = (await reader.read(body(history, ''), 'm'))!;
    const masked = { role: 'user', parts: [{ text: 'masked' }] } as Content;
    await first.send(
      first.contents.map((content, index) => (index === 5 ? masked : content)),
      [5],
    );
    history.push(entry(200, 10), entry(201, 10));
    const second = (await reader.read(body(history, ''), 'm'))!;
    let reads = 0;
    const sent = new Proxy(second.contents.slice(), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const again = { role: 'user', parts: [{ text: 'masked now' }] } as Content;
    sent[150] = again;
    reads = 0;
    const pieces = piecesOf(await second.send(sent, [150]));
    // Element 5 as written before, element 150 written now: two reads, not 202.
    expect(reads).toBe(2);
    expect(pieces.join('')).toBe(
      body(
        history.map((content, index) => (index === 5 ? masked : index === 150 ? again : content)),
        '',
      ).toString(),
    );
  });
});
