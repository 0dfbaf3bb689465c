import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { keptLines } from './keptLines.js';

/** The rule as the module comment states it, by sorting every candidate. */
function bySorting(
  count: number,
  first: readonly number[],
  worths: readonly number[],
  costs: readonly number[],
  budget: number,
): boolean[] {
  const kept = new Array<boolean>(count);
  let used = 0;
  const keep = (index: number) => {
    if (index < 0 || index >= count || kept[index] === true) return;
    if (used + (costs[index] as number) > budget) return;
    kept[index] = true;
    used += costs[index] as number;
  };
  for (const index of first) keep(index);
  const candidates = worths
    .map((worth, index) => ({ index, ratio: worth / (costs[index] as number) }))
    .filter(({ index }) => kept[index] !== true && (worths[index] as number) > 0);
  candidates.sort((a, b) => b.ratio - a.ratio || a.index - b.index);
  for (const { index } of candidates) keep(index);
  return kept;
}

describe('keptLines', () => {
  it('keeps what the sorted greedy order keeps, with costs given or asked for (property)', () => {
    const lines = fc.array(
      fc.record({
        worth: fc.constantFrom(0, 1, 2, 3, 0.5),
        cost: fc.integer({ min: 1, max: 120 }),
        given: fc.boolean(),
      }),
      { maxLength: 200 },
    );
    fc.assert(
      fc.property(
        lines,
        fc.array(fc.integer({ min: -2, max: 210 }), { maxLength: 8 }),
        fc.integer({ min: 0, max: 3000 }),
        (shape, first, budget) => {
          const worths = shape.map((line) => line.worth);
          const costs = shape.map((line) => line.cost);
          // Some costs given, the others holes filled in by `costOf` when asked for.
          const given = shape.map((line) => (line.given ? line.cost : undefined));
          const kept = keptLines(
            shape.length,
            { first, worth: (index) => worths[index] as number },
            given,
            (index) => (given[index] = costs[index] as number),
            budget,
          );
          const expected = bySorting(shape.length, first, worths, costs, budget);
          for (let index = 0; index < shape.length; index++) {
            expect(kept[index] === true).toBe(expected[index] === true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
