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
