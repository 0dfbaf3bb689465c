import { describe, expect, it } from 'vitest';
import type { Content, Part } from './maskingTypes.js';
import { HistoryLedger, viewHistory, type HistoryView } from './historyLedger.js';

const entry = (size: number, name = 'tool'): Content => ({
  role: 'user',
  parts: [{ functionResponse: { id: `id${size}`, name, response: { output: 'x'.repeat(size) } } }],
});

function snapshot(view: HistoryView) {
  return {
    length: view.length,
    summaries: Array.from({ length: view.length }, (_, index) => view.summary(index)),
    prefix: Array.from({ length: view.length + 1 }, (_, index) => view.tokensBefore(index)),
    oversized: [...view.oversizedEntries],
  };
}

describe('HistoryLedger', () => {
  it('matches a fresh view after appends, replacements and truncation, measuring only new entries', () => {
    let measured = 0;
    const measure = (part: Part) => {
      measured++;
      return (part.functionResponse?.response as { output: string }).output.length;
    };
    const ledger = new HistoryLedger();
    const history = [entry(10), entry(20), entry(500)];
    ledger.update(history, measure, 100, 'k', () => 0);
    expect(measured).toBe(3);
    expect(snapshot(ledger)).toEqual(snapshot(viewHistory(history, measure, 100)));
    expect(ledger.oversizedEntries).toEqual([2]);

    measured = 0;
    const appended = [...history, entry(30)];
    ledger.update(appended, measure, 100, 'k', () => 0);
    expect(measured).toBe(1);
    expect(ledger.tokensBefore(4)).toBe(60);

    measured = 0;
    const replaced = [appended[0]!, entry(40), appended[2]!, appended[3]!];
    ledger.update(replaced, measure, 100, 'k', () => 0);
    // Entry 1 is new; entries 2 and 3 are known objects and are not measured again.
    expect(measured).toBe(1);
    expect(snapshot(ledger)).toEqual(snapshot(viewHistory(replaced, measure, 100)));

    ledger.update(replaced.slice(0, 2), measure, 100, 'k', () => 0);
    expect(snapshot(ledger)).toEqual(snapshot(viewHistory(replaced.slice(0, 2), measure, 100)));
  });

  it('sums the context tokens of every part, tool outputs or not', () => {
    const measure = (part: Part) =>
      (part.functionResponse?.response as { output: string }).output.length;
    const estimate = (part: Part) => (part.text ?? '').length;
    const history: Content[] = [
      { role: 'user', parts: [{ text: 'abcd' }] },
      entry(10),
      { role: 'model', parts: [{ text: 'xy' }, { text: 'z' }] },
    ];
    const view = viewHistory(history, measure, Infinity, estimate);
    expect([0, 1, 2, 3].map((index) => view.contextTokensBefore(index))).toEqual([0, 4, 14, 17]);
    expect(view.tokensBefore(3)).toBe(10);
  });

  it('starts over when the key or the size limit changes', () => {
    let exempt = false;
    const measure = (part: Part) =>
      exempt ? undefined : (part.functionResponse?.response as { output: string }).output.length;
    const ledger = new HistoryLedger();
    const history = [entry(10), entry(20)];
    ledger.update(history, measure, Infinity, 'none', () => 0);
    expect(ledger.tokensBefore(2)).toBe(30);
    exempt = true;
    ledger.update(history, measure, Infinity, 'tool', () => 0);
    expect(ledger.tokensBefore(2)).toBe(0);
    exempt = false;
    ledger.update(history, measure, 15, 'none', () => 0);
    expect(ledger.tokensBefore(2)).toBe(10);
    expect(ledger.oversizedEntries).toEqual([1]);
  });
});
