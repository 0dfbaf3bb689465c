import { describe, expect, it } from 'vitest';
import { replaySessions } from './engine.js';
import { createNoneStrategy } from './strategies/none.js';
import { countCharacters, maskFirstOutput, smallTask } from '../test-data/engine-fixtures.js';
import type { ReplaySession } from './types.js';

const single: ReplaySession = { id: 'replay-1', label: 'one', tasks: [smallTask()] };
const chained: ReplaySession = {
  id: 'replay-1',
  label: 'two',
  tasks: [smallTask('a'), smallTask('b')],
};
const options = { countTokens: countCharacters, clock: () => 0 };

const maskOnThirdRequest = (coldFlags: boolean[]) => maskFirstOutput(coldFlags);

describe('replaySessions', () => {
  it('prices each request from the cached prefix (hand-computed)', async () => {
    const result = await replaySessions([single], [createNoneStrategy()], options);
    const rows = result.strategies[0]!.requests;
    // r1 [u4] · r2 [u4 m2 t10] · r3 [u4 m2 t10 m2 t20]
    expect(rows.map((row) => row.contextTokens)).toEqual([4, 16, 38]);
    expect(rows.map((row) => row.cachedTokens)).toEqual([0, 4, 16]);
    expect(rows.map((row) => row.billedTokens)).toEqual([4, 12 + 0.4, 22 + 1.6]);
    expect(rows.map((row) => row.contentCount)).toEqual([1, 3, 5]);
    expect(rows.map((row) => row.cacheCold)).toEqual([true, false, false]);
    expect(rows.some((row) => row.cacheBreak)).toBe(false);
    expect(result.strategies[0]!.summary).toMatchObject({
      requestCount: 3,
      peakContextTokens: 38,
      totalInputTokens: 58,
      cachedTokens: 20,
      billedTokens: 40,
      cacheBreaks: 0,
    });
    expect(result.sessions).toEqual([
      { id: 'replay-1', label: 'one', taskCount: 1, contentCount: 6, requestCount: 3 },
    ]);
  });

  it('uses the given cache discount', async () => {
    const result = await replaySessions([single], [createNoneStrategy()], {
      ...options,
      cacheDiscount: 0.25,
    });
    expect(result.strategies[0]!.requests.map((row) => row.billedTokens)).toEqual([4, 13, 26]);
  });

  it('counts a cache break when the pass edits what was already sent', async () => {
    const flags: boolean[] = [];
    const result = await replaySessions([single], [maskOnThirdRequest(flags)], options);
    const third = result.strategies[0]!.requests[2]!;
    // r3 [u4 m2 t1 m2 t20]; only [u4 m2] is unchanged since r2
    expect(third).toMatchObject({
      contextTokens: 29,
      cachedTokens: 6,
      billedTokens: 23 + 0.6,
      cacheBreak: true,
      maskedCount: 1,
      offloadedBytes: 10,
      notice: 'masked 1',
    });
    expect(result.strategies[0]!.summary.cacheBreaks).toBe(1);
  });

  it('prices the first request of each chained task cold and tells the strategies', async () => {
    const flags: boolean[] = [];
    const result = await replaySessions([chained], [maskOnThirdRequest(flags)], options);
    const rows = result.strategies[0]!.requests;
    expect(rows).toHaveLength(6);
    expect(rows[3]).toMatchObject({ task: 1, cacheCold: true, cachedTokens: 0, cacheBreak: false });
    expect(rows[3]!.billedTokens).toBe(rows[3]!.contextTokens);
    expect(flags).toEqual([true, false, false, true, false, false]);
  });

  it('keeps chained task starts warm with warmTaskStarts', async () => {
    const flags: boolean[] = [];
    const result = await replaySessions([chained], [maskOnThirdRequest(flags)], {
      ...options,
      warmTaskStarts: true,
    });
    const fourth = result.strategies[0]!.requests[3]!;
    // r4 = r3 (29 tokens, unchanged) + m2 + u4 of the next task
    expect(fourth).toMatchObject({ cacheCold: false, contextTokens: 35, cachedTokens: 29 });
    expect(fourth.billedTokens).toBeCloseTo(6 + 2.9);
    expect(flags).toEqual([true, false, false, false, false, false]);
  });

  it('prices a request after an idle gap cold and tells the strategy', async () => {
    const flags: boolean[] = [];
    const result = await replaySessions([single], [maskOnThirdRequest(flags)], {
      ...options,
      idleGaps: new Map([['replay-1', new Set([2])]]),
    });
    const third = result.strategies[0]!.requests[2]!;
    // The pass edits content 2 at a cold request: nothing cached, and no cache break.
    expect(third).toMatchObject({ cacheCold: true, cachedTokens: 0, cacheBreak: false });
    expect(flags).toEqual([true, false, true]);
  });

  it('replays each strategy on the same input and reports progress', async () => {
    const progress: number[] = [];
    const result = await replaySessions(
      [single, { ...single, id: 'replay-2' }],
      [createNoneStrategy(), maskOnThirdRequest([])],
      { ...options, onProgress: (done, total) => progress.push(done / total) },
    );
    expect(result.strategies.map((s) => s.name)).toEqual(['none', 'fake']);
    expect(result.strategies.map((s) => s.summary.requestCount)).toEqual([6, 6]);
    expect(progress).toHaveLength(12);
    expect(progress.at(-1)).toBe(1);
  });

  it('prices a request from the cache the provider recorded, for every strategy alike', async () => {
    // r1 [u4] · r2 [u4 m2 t10] · r3 [u4 m2 t10 m2 t20]; the provider reported r2 as 100 prompt
    // tokens, 25 cached (a quarter: 4 of the estimator's 16), and r3 with no cache at all.
    // Usage sits on the answer (the model content after each request).
    const recordedUsage = [
      undefined,
      { promptTokens: 40, cachedTokens: 40 },
      undefined,
      { promptTokens: 100, cachedTokens: 25 },
      undefined,
      { promptTokens: 300, cachedTokens: 0 },
    ];
    const recorded: ReplaySession = {
      ...single,
      tasks: [{ ...smallTask(), recordedUsage }],
    };
    const result = await replaySessions(
      [recorded],
      [createNoneStrategy(), maskOnThirdRequest([])],
      options,
    );
    const [none, fake] = result.strategies.map((strategy) => strategy.requests);
    // r1 has no previous request: nothing shared, whatever was recorded.
    expect(none!.map((row) => row.cachedTokens)).toEqual([0, 4, 0]);
    // The fake masks at r3: the recorded 0 is below its shared prefix [u4 m2] anyway.
    expect(fake!.map((row) => row.cachedTokens)).toEqual([0, 4, 0]);
    expect(result.recordedUsage).toEqual({
      requests: 3,
      pricedFromRecord: 3,
      promptTokens: 440,
      cachedTokens: 65,
      estimatedPromptTokens: 4 + 16 + 38,
    });
  });

  it('caps a recorded cache at what a strategy kept unchanged', async () => {
    // The provider cached all of r3 (38 of 38 estimated); the fake edited index 2 before r3.
    const recordedUsage = [...Array(5).fill(undefined), { promptTokens: 38, cachedTokens: 38 }];
    const recorded: ReplaySession = { ...single, tasks: [{ ...smallTask(), recordedUsage }] };
    const result = await replaySessions(
      [recorded],
      [createNoneStrategy(), maskOnThirdRequest([])],
      options,
    );
    const [none, fake] = result.strategies.map((strategy) => strategy.requests);
    expect(none![2]!.cachedTokens).toBe(16); // all of r2, the most a provider can hold of it
    expect(fake![2]!.cachedTokens).toBe(6); // [u4 m2]: the edit broke the rest
    expect(result.recordedUsage?.pricedFromRecord).toBe(1);
  });

  it('leaves the prefix model where no cached tokens were recorded', async () => {
    const recordedUsage = [undefined, undefined, undefined, { promptTokens: 16 }];
    const recorded: ReplaySession = { ...single, tasks: [{ ...smallTask(), recordedUsage }] };
    const result = await replaySessions([recorded], [createNoneStrategy()], options);
    expect(result.strategies[0]!.requests.map((row) => row.cachedTokens)).toEqual([0, 4, 16]);
    expect(result.recordedUsage).toMatchObject({ requests: 1, pricedFromRecord: 0 });
  });
});
