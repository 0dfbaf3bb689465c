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
    ledger.update(history, measure, 100, 'k');
    expect(measured).toBe(3);
    expect(snapshot(ledger)).toEqual(snapshot(viewHistory(history, measure, 100)));
    expect(ledger.oversizedEntries).toEqual([2]);

    measured = 0;
    const appended = [...history, entry(30)];
    ledger.update(appended, measure, 100, 'k');
    expect(measured).toBe(1);
    expect(ledger.tokensBefore(4)).toBe(60);

    measured = 0;
    const replaced = [appended[0]!, entry(40), appended[2]!, appended[3]!];
    ledger.update(replaced, measure, 100, 'k');
    // Entry 1 is new; entries 2 and 3 are known objects and are not measured again.
    expect(measured).toBe(1);
    expect(snapshot(ledger)).toEqual(snapshot(viewHistory(replaced, measure, 100)));

    ledger.update(replaced.slice(0, 2), measure, 100, 'k');
    expect(snapshot(ledger)).toEqual(snapshot(viewHistory(replaced.slice(0, 2), measure, 100)));
  });

  it('recognises entries by their parts array, as gemini-cli re-copies every Content per call', () => {
    let measured = 0;
    const measure = (part: Part) => {
      measured++;
      return (part.functionResponse?.response as { output: string }).output.length;
    };
    const ledger = new HistoryLedger();
    const history = Array.from({ length: 50 }, (_, index) => entry(index + 1));
    ledger.update(history, measure, Infinity, 'k');
    expect(measured).toBe(50);
    measured = 0;
    // Shallow copies with the same parts arrays, plus one new entry: only the new one is measured.
    const copies = [...history.map((content) => ({ ...content })), entry(99)];
    ledger.update(copies, measure, Infinity, 'k');
    expect(measured).toBe(1);
    expect(snapshot(ledger)).toEqual(snapshot(viewHistory(copies, measure, Infinity)));
  });

  it('measures entries again after forgetFrom', () => {
    let exemptFrom = Infinity;
    const measure = (part: Part) => {
      const size = (part.functionResponse?.response as { output: string }).output.length;
      return size >= exemptFrom ? undefined : size;
    };
    const ledger = new HistoryLedger();
    const history = [entry(10), entry(20), entry(30)];
    ledger.update(history, measure, Infinity, 'k');
    expect(ledger.tokensBefore(3)).toBe(60);
    exemptFrom = 20;
    ledger.update(history, measure, Infinity, 'k');
    expect(ledger.tokensBefore(3)).toBe(60); // remembered
    ledger.forgetFrom(1);
    ledger.update(history, measure, Infinity, 'k');
    expect(ledger.tokensBefore(3)).toBe(10);
  });

  it('starts over when the key or the size limit changes', () => {
    let exempt = false;
    const measure = (part: Part) =>
      exempt ? undefined : (part.functionResponse?.response as { output: string }).output.length;
    const ledger = new HistoryLedger();
    const history = [entry(10), entry(20)];
    ledger.update(history, measure, Infinity, 'none');
    expect(ledger.tokensBefore(2)).toBe(30);
    exempt = true;
    ledger.update(history, measure, Infinity, 'tool');
    expect(ledger.tokensBefore(2)).toBe(0);
    exempt = false;
    ledger.update(history, measure, 15, 'none');
    expect(ledger.tokensBefore(2)).toBe(10);
    expect(ledger.oversizedEntries).toEqual([1]);
  });

  it('measures in stretches what it measures at once, giving the loop turns inside one large entry', async () => {
    const measure = (part: Part) =>
      (part.functionResponse?.response as { output: string }).output.length;
    // One entry of 10,000 parallel results, then ordinary ones.
    const parallel: Content = {
      role: 'user',
      parts: Array.from({ length: 10_000 }, (_, index) => entry(index % 50).parts![0]!),
    };
    const history = [entry(10), parallel, entry(20), entry(500)];
    let turns = 0;
    const pause = Object.assign(
      async () => {
        turns++;
      },
      { due: () => true },
    );
    const sliced = new HistoryLedger();
    await sliced.updateInSlices(history, measure, 100, 'k', pause);
    expect(snapshot(sliced)).toEqual(snapshot(viewHistory(history, measure, 100)));
    // A turn every few parts of the large entry, not only between entries.
    expect(turns).toBeGreaterThan(100);
    turns = 0;
    sliced.forgetFrom(1);
    expect(sliced.length).toBe(1);
    await sliced.updateInSlices(history, measure, 100, 'k', pause);
    expect(snapshot(sliced)).toEqual(snapshot(viewHistory(history, measure, 100)));
  });

  it('looks at the clock after a stretch of parts or tokens, not after every small entry', async () => {
    const measure = (part: Part) =>
      (part.functionResponse?.response as { output: string }).output.length;
    let looks = 0;
    const pause = Object.assign(async () => undefined, {
      due: () => {
        looks++;
        return false;
      },
    });
    // 1,000 small entries: a look every 64 parts, about 16 in all (one per entry before).
    const small = Array.from({ length: 1_000 }, (_, index) => entry(index % 50));
    await new HistoryLedger().updateInSlices(small, measure, Infinity, 'k', pause);
    expect(looks).toBeGreaterThanOrEqual(15);
    expect(looks).toBeLessThanOrEqual(20);
    // Ten entries of 60,000 tokens each: a look after each, the work of each being large.
    looks = 0;
    const large = Array.from({ length: 10 }, () => entry(60_000));
    await new HistoryLedger().updateInSlices(large, measure, Infinity, 'k', pause);
    expect(looks).toBeGreaterThanOrEqual(9);
    // Ten entries of a text the estimator finds next to free (` ."` costs no token a character
    // as plain text): a million characters each is still a long walk, and a look after each.
    looks = 0;
    const free = ' ."'.repeat(350_000);
    const texts: Content[] = Array.from({ length: 10 }, () => ({
      role: 'user',
      parts: [{ text: free }],
    }));
    await new HistoryLedger().updateInSlices(texts, measure, Infinity, 'k', pause);
    expect(looks).toBeGreaterThanOrEqual(9);
  });
});
