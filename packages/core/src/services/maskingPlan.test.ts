import { describe, expect, it } from 'vitest';
import type { Content, Part } from './maskingTypes.js';
import { planMasking, protectionBudget, type PlanConfig } from './maskingPlan.js';
import { viewHistory } from './historyLedger.js';
import { findSupersededOutputs } from './superseded/supersededOutputs.js';
import { shellStep as shellCallAndOutput } from '../test-utils/maskingHarness.js';

/** Each output's token count is its `output` length, so tests can reason in exact numbers. */
const measure = (part: Part) => {
  const output = (part.functionResponse?.response as { output?: string } | undefined)?.output;
  return typeof output === 'string' ? output.length : undefined;
};

function plan(
  entries: Content[],
  settings: PlanConfig & { maxOutputTokens: number },
  options: { cacheLikelyCold?: boolean; superseded?: boolean } = {},
) {
  const limit = settings.maxOutputTokens > 0 ? settings.maxOutputTokens : Infinity;
  const { superseded, ...rest } = options;
  return planMasking(viewHistory(entries, measure, limit), settings, {
    ...rest,
    ...(superseded ? { superseded: findSupersededOutputs(entries) } : {}),
  });
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

// The planner's window and batch, not the warm rule, are these tests' subject: any batch masks.
const config = {
  toolProtectionThreshold: 100,
  minPrunableTokensThreshold: 50,
  protectLatestTurn: false,
  maxOutputTokens: 0,
  warmRule: 'floor' as const,
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

describe('planMasking: superseded outputs first', () => {
  /** A shell call and its output of `size` tokens. */
  const shellStep = (id: string, command: string, size: number): Content[] =>
    shellCallAndOutput(id, command, 'x'.repeat(size));
  // Oldest first: a (300), cat f (40, read again by s4), b (30), ls (20, run again by s5),
  // cat -n f (10), ls (10). Newest first within 100: 10 + 10 + 20 + 30 = 70 protected; 40 crosses.
  const entries = [
    ...shellStep('s0', 'python a.py', 300),
    ...shellStep('s1', 'cat f.py', 40),
    ...shellStep('s2', 'python b.py', 30),
    ...shellStep('s3', 'ls', 20),
    ...shellStep('s4', 'cat -n f.py', 10),
    ...shellStep('s5', 'ls', 10),
  ];
  const settings = { ...config, minPrunableTokensThreshold: 400 };

  it('masks superseded outputs inside the protected window when a pass masks', () => {
    const cold = plan(entries, settings, { cacheLikelyCold: true, superseded: true });
    expect(cold.trigger).toBe('cold_cache');
    expect(cold.totalPrunableTokens).toBe(340);
    expect(cold.supersededTokens).toBe(20);
    expect(cold.targets.map((target) => [target.contentIndex, target.superseded?.reason])).toEqual([
      [1, undefined],
      [3, 'read-again'],
      [7, 'rerun'],
    ]);
    expect(cold.targets[2]?.superseded).toMatchObject({ callId: 's5', outputContentIndex: 11 });
    // Without the superseded view, the plan is as before.
    const before = plan(entries, settings, { cacheLikelyCold: true });
    expect(before.targets.map((target) => target.contentIndex)).toEqual([1, 3]);
    expect(before.supersededTokens).toBe(0);
  });

  it('counts them toward the warm trigger with the prunable outputs', () => {
    expect(plan(entries, { ...config, minPrunableTokensThreshold: 350 }).targets).toEqual([]);
    const warm = plan(
      entries,
      { ...config, minPrunableTokensThreshold: 350 },
      { superseded: true },
    );
    expect(warm.trigger).toBe('threshold');
    expect(warm.targets.map((target) => target.contentIndex)).toEqual([1, 3, 7]);
    // Below the trigger a warm pass masks nothing, superseded or not.
    expect(plan(entries, settings, { superseded: true }).targets).toEqual([]);
  });

  it('not without a visible replacement: a later call whose output is not in the history', () => {
    // The second `ls` was called but its output is not in the history yet.
    const pending = entries.slice(0, -1);
    const cold = plan(pending, settings, { cacheLikelyCold: true, superseded: true });
    expect(cold.targets.map((target) => target.superseded?.reason)).toEqual([
      undefined,
      'read-again',
    ]);
  });

  it('keeps the latest entry out when protectLatestTurn, and adds none to an oversized-only pass', () => {
    // Two reads of g.py in one entry: the first is superseded by the second, in the latest turn.
    const latest: Content[] = [
      ...entries,
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'g1', name: 'read_file', args: { file_path: '/g.py' } } },
          { functionCall: { id: 'g2', name: 'read_file', args: { file_path: '/g.py' } } },
        ],
      },
      {
        role: 'user',
        parts: ['g1', 'g2'].map((id) => ({
          functionResponse: { id, name: 'read_file', response: { output: 'y'.repeat(5) } },
        })),
      },
    ];
    const guarded = { ...settings, protectLatestTurn: true };
    const cold = plan(latest, guarded, { cacheLikelyCold: true, superseded: true });
    expect(cold.targets.every((target) => target.contentIndex < latest.length - 1)).toBe(true);
    const unguarded = plan(latest, settings, { cacheLikelyCold: true, superseded: true });
    expect(unguarded.targets.at(-1)).toMatchObject({
      contentIndex: latest.length - 1,
      partIndex: 0,
      superseded: { reason: 'rerun', callId: 'g2' },
    });
    const oversized = plan(
      [...entries, ...shellStep('s6', 'python big.py', 5_000)],
      { ...settings, maxOutputTokens: 1_000 },
      { superseded: true },
    );
    expect(oversized.trigger).toBe('oversized');
    expect(oversized.targets.map((target) => target.contentIndex)).toEqual([13]);
  });
});

describe('planMasking: room under the pay-back warm rule', () => {
  // Five outputs of 300 (none above maxOutputTokens), 1,260 tokens: a warm break re-sends nearly
  // all of it and five requests' n̂ cannot pay that back (0.1 × 1,200 × 5 < 0.9 × 1,260).
  const entries = history(300, 300, 300, 300, 60);
  const settings = {
    toolProtectionThreshold: 100,
    minPrunableTokensThreshold: 50,
    protectLatestTurn: false,
    warmRule: 'pay-back' as const,
  };

  it('masks for room once the prompt reaches three quarters of the window (3 × maxOutputTokens)', () => {
    const result = plan(entries, { ...settings, maxOutputTokens: 400 });
    expect(result.trigger).toBe('room');
    expect(result.targets.length).toBe(4);
  });

  it('leaves the same history whole while the window has room and the break cannot pay', () => {
    expect(plan(entries, { ...settings, maxOutputTokens: 1_000 }).targets).toEqual([]);
  });
});
