import { describe, expect, it } from 'vitest';
import { ToolOutputMaskingService, type Content } from '@toolmask/core';
import { DecisionLog } from './decision-log.js';
import { SentHistory } from './sent-history.js';

const noPause = Object.assign(async () => undefined, { due: () => false });
const text = (words: string): Content => ({ role: 'user', parts: [{ text: words }] });

describe('SentHistory.apply', () => {
  it('takes the entries the reader vouches for as sent, without comparing them (issue 30)', async () => {
    const log = new DecisionLog(new ToolOutputMaskingService());
    const history = new SentHistory();
    const came = [text('one'), text('two')];
    const sent = [came[0] as Content, text('two, masked')];
    history.remember(came, sent);
    // The very objects sent, as the reader hands them out, and a new entry.
    const incoming = [sent[0] as Content, sent[1] as Content, text('three')];
    const vouched = await history.apply(incoming, log, noPause, { sent, count: 2 });
    expect(vouched.applied).toEqual([sent[0], sent[1], incoming[2]]);
    expect(vouched.applied[1]).toBe(sent[1]);
    expect(vouched.interned).toEqual(incoming);
    // What the reader vouches for is taken as it is: entries it names are not compared (here an
    // entry that is not what was sent, which a comparison would have found changed).
    const other = [text('not one'), sent[1] as Content, text('three')];
    const trusted = await history.apply(other, log, noPause, { sent, count: 1 });
    expect(trusted.applied[0]).toBe(sent[0]);
    // Another array than the one sent last: compared as before.
    const compared = await history.apply(other, log, noPause, { sent: [...sent], count: 1 });
    expect(compared.applied[0]).toBe(other[0]);
  });
});

describe('SentHistory.tally', () => {
  const masked = (id: string, tokensBefore: number) => ({
    response: { output: `snippet ${id}` },
    record: {
      kind: 'masked' as const,
      key: `run\u0000${id}\u0000${'0'.repeat(32)}`,
      toolName: 'run',
      callId: id,
      filePath: `/tmp/${id}.txt`,
      bytes: 100,
      tokensBefore,
      tokensAfter: 10,
      outputsAfter: 0,
      at: 0,
    },
  });
  const carrying = (response: Record<string, unknown>): Content => ({
    role: 'user',
    parts: [{ functionResponse: { name: 'run', id: 'x', response } }],
  });

  it("counts a known conversation's request from the last one's tally and what is new (issue 30)", async () => {
    const log = new DecisionLog(new ToolOutputMaskingService());
    const [a, b, c] = [masked('a', 110), masked('b', 210), masked('c', 310)];
    for (const { response, record } of [a, b, c]) log.remember({ ...record, response });
    let reads = 0;
    const counted = (content: Content): Content => ({
      role: content.role,
      get parts() {
        reads++;
        return content.parts;
      },
    });
    const history = new SentHistory();
    const first = [counted(text('go')), counted(carrying(a.response)), counted(text('on'))];
    const firstTally = await history.tally(first, { common: 0, changed: [] }, log, noPause);
    expect(firstTally).toEqual(await log.tally(first, noPause));
    history.remember(first, first, firstTally);
    // Two new entries, and the pass masked the third entry now.
    const second = [first[0], first[1], carrying(b.response), text('more'), carrying(c.response)];
    reads = 0;
    const tally = await history.tally(
      second as Content[],
      { common: 3, changed: [2, 4] },
      log,
      noPause,
    );
    // The entries as sent last time were not read again; the one the pass changed was.
    expect(reads).toBe(1);
    expect(tally).toEqual(await log.tally(second as Content[], noPause));
    expect(tally).toEqual({ maskedOutputs: 3, tokensKeptOut: 100 + 200 + 300 });
  });
});
