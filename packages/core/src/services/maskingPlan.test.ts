import { describe, expect, it } from 'vitest';
import type { Content, Part } from './maskingTypes.js';
import { planMasking } from './maskingPlan.js';

/** Each output's token count is its `output` length, so tests can reason in exact numbers. */
const measure = (part: Part) => {
  const output = (part.functionResponse?.response as { output?: string } | undefined)?.output;
  return typeof output === 'string' ? { tokens: output.length } : undefined;
};

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
  protectionThresholdTokens: 100,
  minPrunableThresholdTokens: 50,
  protectLatestTurn: false,
  maxOutputTokens: 0,
};

describe('planMasking', () => {
  it('protects the newest outputs up to the threshold; the crossing one and older are prunable', () => {
    // newest first: 40 + 50 = 90 protected; 30 crosses (120 > 100) -> prunable with the 60 before it.
    const plan = planMasking(history(60, 30, 50, 40), config, measure);
    expect(plan.protectedTokens).toBe(90);
    expect(plan.totalPrunableTokens).toBe(90);
    expect(plan.targets.map((target) => target.contentIndex)).toEqual([1, 3]);
    expect(plan.trigger).toBe('threshold');
  });

  it('does nothing below the prunable minimum, unless the cache is likely cold', () => {
    const small = history(20, 50, 50);
    expect(planMasking(small, config, measure).targets).toEqual([]);
    expect(planMasking(small, config, measure).totalPrunableTokens).toBe(20);
    const cold = planMasking(small, config, measure, { cacheLikelyCold: true });
    expect(cold.trigger).toBe('cold_cache');
    expect(cold.targets.map((target) => target.contentIndex)).toEqual([1]);
  });

  it('skips the last entry when protectLatestTurn', () => {
    const entries = history(200, 10);
    const plan = planMasking(
      entries,
      { ...config, protectLatestTurn: true, minPrunableThresholdTokens: 0 },
      measure,
    );
    // The newest output (10) is neither counted as protected nor prunable; 200 crosses alone.
    expect(plan.protectedTokens).toBe(0);
    expect(plan.targets.map((target) => target.contentIndex)).toEqual([1]);
  });

  it('always masks outputs above maxOutputTokens, even the newest', () => {
    const plan = planMasking(
      history(10, 5000),
      { ...config, maxOutputTokens: 1000, protectLatestTurn: true },
      measure,
    );
    expect(plan.trigger).toBe('oversized');
    expect(plan.targets.map((target) => target.contentIndex)).toEqual([3]);
  });

  it('skips entries without parts and parts that measure as undefined', () => {
    const entries: Content[] = [
      { role: 'user' },
      ...history(300),
      { role: 'user', parts: [{ text: 'hi' }] },
    ];
    const plan = planMasking(entries, { ...config, minPrunableThresholdTokens: 0 }, measure);
    expect(plan.totalTokens).toBe(300);
    expect(plan.targets).toHaveLength(1);
  });
});
