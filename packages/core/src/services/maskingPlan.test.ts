import { describe, expect, it } from 'vitest';
import type { Content, Part } from './maskingTypes.js';
import { planMasking, protectionBudget, type PlanConfig } from './maskingPlan.js';
import { viewHistory } from './historyLedger.js';

/** Each output's token count is its `output` length, so tests can reason in exact numbers. */
const measure = (part: Part) => {
  const output = (part.functionResponse?.response as { output?: string } | undefined)?.output;
  return typeof output === 'string' ? output.length : undefined;
};

function plan(
  entries: Content[],
  settings: PlanConfig & { maxOutputTokens: number },
  options: { cacheLikelyCold?: boolean } = {},
) {
  const limit = settings.maxOutputTokens > 0 ? settings.maxOutputTokens : Infinity;
  return planMasking(viewHistory(entries, measure, limit), settings, options);
}

const call = (id: string): Content => ({
  role: 'model',
  parts: [{ functionCall: { id, name: 'tool', args: {} } }],
});
const result = (id: string, size: number): Content => ({
  role: 'user',
  parts: [{ functionResponse: { id, name: 'tool', response: { output: 'x'.repeat(size) } } }],
});

function history(...sizes: number[]): Content[] {
  return sizes.flatMap((size, index) => [call(`c${index}`), result(`c${index}`, size)]);
}

const config = {
  toolProtectionThreshold: 100,
  minPrunableTokensThreshold: 50,
  protectLatestTurn: false,
  maxOutputTokens: 0,
};

describe('planMasking', () => {
  it('protects the newest outputs up to the threshold; the crossing one and older are prunable', () => {
    // newest first: 40 + 50 = 90 protected; 30 crosses (120 > 100) -> prunable with the 60 before it.
    const result = plan(history(60, 30, 50, 40), config);
    expect(result.protectedTokens).toBe(90);
    expect(result.totalPrunableTokens).toBe(90);
    expect(result.targets.map((target) => target.contentIndex)).toEqual([1, 3]);
    expect(result.trigger).toBe('threshold');
  });

  it('does nothing below the prunable minimum, unless the cache is likely cold', () => {
    const small = history(20, 50, 50);
    expect(plan(small, config).targets).toEqual([]);
    expect(plan(small, config).totalPrunableTokens).toBe(20);
    const cold = plan(small, config, { cacheLikelyCold: true });
    expect(cold.trigger).toBe('cold_cache');
    expect(cold.targets.map((target) => target.contentIndex)).toEqual([1]);
  });

  it('uses the cold-moment window at a cold moment only, never above toolProtectionThreshold', () => {
    const withCold = { ...config, coldCacheProtectionThreshold: 40 };
    // newest first 40 | 50 | 30 | 60: warm, 40 + 50 fit in 100; cold, only 40 fits in 40.
    const entries = history(60, 30, 50, 40);
    expect(plan(entries, withCold).targets.map((target) => target.contentIndex)).toEqual([1, 3]);
    const cold = plan(entries, withCold, { cacheLikelyCold: true });
    expect(cold.protectedTokens).toBe(40);
    expect(cold.totalPrunableTokens).toBe(140);
    expect(cold.targets.map((target) => target.contentIndex)).toEqual([1, 3, 5]);
    // A cold window larger than toolProtectionThreshold protects no more than it.
    const larger = plan(
      entries,
      { ...config, coldCacheProtectionThreshold: 500 },
      { cacheLikelyCold: true },
    );
    expect(larger.protectedTokens).toBe(90);
    expect(protectionBudget({ ...config, coldCacheProtectionThreshold: 500 }, true)).toBe(100);
    expect(protectionBudget(withCold, false)).toBe(100);
  });

  it('skips the last entry when protectLatestTurn', () => {
    const entries = history(200, 10);
    const result = plan(entries, {
      ...config,
      protectLatestTurn: true,
      minPrunableTokensThreshold: 0,
    });
    // The newest output (10) is neither counted as protected nor prunable; 200 crosses alone.
    expect(result.protectedTokens).toBe(0);
    expect(result.targets.map((target) => target.contentIndex)).toEqual([1]);
  });

  it('always masks outputs above maxOutputTokens, even the newest', () => {
    const result = plan(history(10, 5000), {
      ...config,
      maxOutputTokens: 1000,
      protectLatestTurn: true,
    });
    expect(result.trigger).toBe('oversized');
    expect(result.targets.map((target) => target.contentIndex)).toEqual([3]);
  });

  it('finds the same window with many small outputs as a linear scan would', () => {
    // 100 outputs of 7 tokens, budget 100: 14 fit (98), the 15th crosses.
    const sizes = Array.from({ length: 100 }, () => 7);
    const result = plan(history(...sizes), { ...config, minPrunableTokensThreshold: 0 });
    expect(result.protectedTokens).toBe(98);
    expect(result.totalPrunableTokens).toBe(700 - 98);
    expect(result.targets).toHaveLength(86);
    expect(result.targets.at(-1)?.contentIndex).toBe(2 * 85 + 1);
  });

  it('crosses inside an entry with several outputs, keeping its newer outputs protected', () => {
    const entries: Content[] = [
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'a', name: 'tool', response: { output: 'x'.repeat(40) } } },
          { functionResponse: { id: 'b', name: 'tool', response: { output: 'x'.repeat(40) } } },
          { functionResponse: { id: 'c', name: 'tool', response: { output: 'x'.repeat(40) } } },
        ],
      },
      { role: 'user', parts: [{ text: 'next' }] },
    ];
    const result = plan(entries, {
      ...config,
      protectLatestTurn: true,
      minPrunableTokensThreshold: 0,
    });
    expect(result.protectedTokens).toBe(80);
    expect(result.targets).toEqual([{ contentIndex: 0, partIndex: 0, tokens: 40 }]);
  });

  it('skips entries without parts and parts that measure as undefined', () => {
    const entries: Content[] = [
      { role: 'user' },
      ...history(300),
      { role: 'user', parts: [{ text: 'hi' }] },
    ];
    const result = plan(entries, { ...config, minPrunableTokensThreshold: 0 });
    expect(result.totalTokens).toBe(300);
    expect(result.targets).toHaveLength(1);
  });
});
