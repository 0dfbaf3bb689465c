/**
 * The estimator's speed on the wall clock (the e2e lane: a loaded machine must not fail the unit
 * lane); tokenCalculation.test.ts estimates the same text untimed. bench/tokenAccuracy.mjs
 * measures the speed properly (docs/benchmarks.md, section 2).
 */
import { describe, expect, it } from 'vitest';
import { estimateTextTokens } from './tokenCalculation.js';

const PROSE =
  'Token estimates decide when old tool outputs are masked, so they should be close to what ' +
  'the model really sees. This paragraph is ordinary English prose with a few numbers (12, 345) ' +
  'and punctuation; nothing unusual.';

describe('estimateTextTokens on the wall clock', () => {
  it('handles a 10 MB string quickly', () => {
    const big = (PROSE + '\n').repeat(Math.ceil(10_000_000 / (PROSE.length + 1)));
    const start = performance.now();
    const tokens = estimateTextTokens(big);
    const ms = performance.now() - start;
    expect(tokens).toBeGreaterThan(big.length / 6);
    // >= 100 MB/s is the benchmark target; allow a loaded CI machine 10x slack here.
    expect(ms).toBeLessThan(1000);
  });
});
