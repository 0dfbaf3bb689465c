/** The overview's running totals over time (timeline.ts): exact at every point kept, the last always kept. */
import { describe, expect, it } from 'vitest';
import { summarizeTimeline } from './timeline.js';
import type { UsageRecord } from './usage-record.js';
import { usageRecordOf } from '../test-utils/usage-records.js';

function record(at: number, promptTokens: number | undefined, tokensKeptOut: number): UsageRecord {
  return usageRecordOf({
    at,
    front: 'openai',
    ...(promptTokens !== undefined ? { promptTokens, cachedTokens: promptTokens / 2 } : {}),
    tokensKeptOut,
  });
}

describe('summarizeTimeline', () => {
  it('running totals in time order', () => {
    const { points } = summarizeTimeline([
      record(20, 300, 50),
      record(10, 100, 0),
      record(30, undefined, 0),
    ]);
    expect(points).toEqual([
      { at: 10, requests: 1, promptTokens: 100, cachedTokens: 50, withoutMasking: 100 },
      { at: 20, requests: 2, promptTokens: 400, cachedTokens: 200, withoutMasking: 450 },
      { at: 30, requests: 3, promptTokens: 400, cachedTokens: 200, withoutMasking: 450 },
    ]);
  });

  it('at most maxPoints, the last request always among them', () => {
    const records = Array.from({ length: 1_001 }, (_, index) => record(index, 10, 1));
    const { points } = summarizeTimeline(records, 100);
    expect(points.length).toBeLessThanOrEqual(101);
    expect(points.at(-1)).toMatchObject({
      at: 1_000,
      requests: 1_001,
      promptTokens: 10_010,
      withoutMasking: 11_011,
    });
  });

  it('no records, no points', () => {
    expect(summarizeTimeline([])).toEqual({ points: [] });
  });
});
