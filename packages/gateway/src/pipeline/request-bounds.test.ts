/**
 * The gateway's bounds across requests (issue 21, hole 3): the in-flight body budget (a request
 * past it is answered 503 `BUSY` with `Retry-After`, and nothing of it goes upstream; the room
 * comes back when the requests holding it end) and the cap on masking passes run at once.
 */
import * as http from 'node:http';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  geminiAnswer,
  startFakeUpstream,
  type UpstreamReply,
} from '@toolmask/test-support/fake-upstream';
import { gatewayFixture, startTestGateway } from '../test-utils/gemini-client.js';
import type { ListenOptions } from '../listen-gateway.js';
import { BodyBudget, PassSlots } from './request-bounds.js';
import { stubConversationStore } from '../test-utils/stub-conversation-store.js';

const cleanups = cleanUpAfterEach();

const MODEL = '/v1beta/models/m:streamGenerateContent?alt=sse';

/** A Gemini body of about `bytes` bytes, its first prompt naming its conversation. */
function bodyOf(tag: string, bytes: number): string {
  return JSON.stringify({
    contents: [
      { role: 'user', parts: [{ text: `${tag} ${'x'.repeat(Math.max(0, bytes - 60))}` }] },
    ],
  });
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request whose body goes out in pieces, the rest when the test says (`finish`). */
function sendInPieces(
  url: string,
  first: string,
  headers: Record<string, string | number>,
): { answer: Promise<Answer>; finish(rest: string): void } {
  const request = http.request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
      );
    });
    request.on('error', reject);
  });
  request.write(first);
  return { answer, finish: (rest) => request.end(rest) };
}

function send(url: string, body: string, headers: Record<string, string | number> = {}) {
  const request = sendInPieces(url, '', headers);
  request.finish(body);
  return request.answer;
}

/** A gateway in front of an upstream whose answers wait for `open()` when `held`. */
async function setUp(options: Partial<ListenOptions>, respond?: () => Promise<UpstreamReply>) {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const upstream = await startFakeUpstream(
    respond ?? (() => geminiAnswer([{ text: 'ok' }], { prompt: 10, cached: 0 })),
  );
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: upstream.url },
    ...options,
  });
  cleanups.push(() => running.close());
  return { upstream, running, url: `${running.url}${MODEL}` };
}

describe('the in-flight body budget', () => {
  const KB = 1024;

  it('past it: 503 BUSY with Retry-After, nothing forwarded; the room comes back when the exchange closes', async () => {
    let openUpstream = () => undefined as void;
    const upstreamHeld = new Promise<void>((resolve) => (openUpstream = resolve));
    const { upstream, running, url } = await setUp(
      { maxBodyBytes: 600 * KB, maxInFlightBodyBytes: 1_000 * KB },
      async () => {
        await upstreamHeld;
        return geminiAnswer([{ text: 'ok' }], { prompt: 10, cached: 0 });
      },
    );
    // A: read whole and forwarded; its answer is held, so its 500 KB stay in flight.
    const first = send(url, bodyOf('first', 500 * KB));
    await expect.poll(() => upstream.requests.length).toBe(1);

    // B declares 600 KB: no room, refused before a byte of it is read.
    const second = bodyOf('second', 600 * KB);
    const refused = await send(url, second);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers.connection).toBe('close');
    expect(JSON.parse(refused.text)).toMatchObject({
      error: { code: 503, status: 'UNAVAILABLE', reason: 'BUSY' },
    });

    // C is chunked (no declared length): refused once its chunks pass the room left.
    const chunked = sendInPieces(url, bodyOf('third', 300 * KB).slice(0, -10), {
      'transfer-encoding': 'chunked',
    });
    chunked.finish('x'.repeat(300 * KB));
    const refusedChunked = await chunked.answer;
    expect(refusedChunked.status).toBe(503);
    expect(JSON.parse(refusedChunked.text)).toMatchObject({ error: { reason: 'BUSY' } });
    expect(upstream.requests).toHaveLength(1);
    // /healthz takes no room: it answers while the budget is full.
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);

    // A's answer ends, and its exchange closes once its usage is recorded: B now passes.
    openUpstream();
    expect((await first).status).toBe(200);
    await expect.poll(() => running.gateway.inFlight).toBe(0);
    const retried = await send(url, second);
    expect(retried.status).toBe(200);
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests[1]!.raw.toString('utf8')).toBe(second);
  });

  it('a body that arrives slowly holds its declared length from the start', async () => {
    const { upstream, running, url } = await setUp({
      maxBodyBytes: 600 * KB,
      maxInFlightBodyBytes: 1_000 * KB,
    });
    const body = bodyOf('slow', 500 * KB);
    const slow = sendInPieces(url, body.slice(0, 100), {
      'content-length': Buffer.byteLength(body),
    });
    // Its first bytes are in: the room for all of it is taken.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await send(url, bodyOf('other', 600 * KB));
    expect(refused.status).toBe(503);
    slow.finish(body.slice(100));
    expect((await slow.answer).status).toBe(200);
    await expect.poll(() => running.gateway.inFlight).toBe(0);
    expect((await send(url, bodyOf('other', 600 * KB))).status).toBe(200);
    expect(upstream.requests).toHaveLength(2);
  });

  it('the budget never drops below one largest body', async () => {
    const { url } = await setUp({ maxBodyBytes: 600 * KB, maxInFlightBodyBytes: 1 });
    expect((await send(url, bodyOf('alone', 590 * KB))).status).toBe(200);
  });

  it('counts what each request holds, and gives it back once', () => {
    const budget = new BodyBudget(100);
    const a = budget.open();
    const b = budget.open();
    expect(a.holdUpTo(60)).toBe(true);
    expect(a.holdUpTo(40)).toBe(true);
    expect(b.holdUpTo(41)).toBe(false);
    expect(b.holdUpTo(40)).toBe(true);
    expect(budget.heldBytes).toBe(100);
    a.release();
    a.release();
    expect(budget.heldBytes).toBe(40);
    expect(a.holdUpTo(1)).toBe(false);
    b.release();
    expect(budget.heldBytes).toBe(0);
  });
});

describe('the cap on masking passes', () => {
  it('passes of different conversations run at most `maxConcurrentPasses` at once', async () => {
    // A conversation store that takes its time: its load runs inside the pass.
    let loading = 0;
    let mostAtOnce = 0;
    const slowStore = stubConversationStore({
      load: async () => {
        loading++;
        mostAtOnce = Math.max(mostAtOnce, loading);
        await new Promise((resolve) => setTimeout(resolve, 150));
        loading--;
        return { decisions: [] };
      },
    });
    const { url, upstream } = await setUp({
      stores: { conversations: slowStore },
      maxConcurrentPasses: 2,
    });
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, index) => send(url, bodyOf(`conversation ${index}`, 100))),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(upstream.requests).toHaveLength(5);
    expect(mostAtOnce).toBe(2);
  });

  it('waiters take their turn in order; one whose client went away leaves the queue', async () => {
    const slots = new PassSlots(1);
    const order: string[] = [];
    const first = await slots.acquire();
    const gone = new AbortController();
    const waiting = ['a', 'b', 'c'].map((name) =>
      slots.acquire(name === 'b' ? gone.signal : undefined).then((release) => {
        order.push(release ? name : `${name} left`);
        return release;
      }),
    );
    expect(slots.waiting).toBe(3);
    gone.abort();
    await waiting[1];
    expect(slots.waiting).toBe(2);
    first?.();
    (await waiting[0])?.();
    (await waiting[2])?.();
    expect(order).toEqual(['b left', 'a', 'c']);
    expect(slots.running).toBe(0);
    expect(await slots.acquire(gone.signal)).toBeUndefined();
  });
});
