import { Volume, createFsFromVolume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { resolveToolOutputMaskingConfig } from '../config/toolOutputMaskingSettings.js';
import { createFileToolOutputStore, type StoreFileSystem } from '../storage/toolOutputStore.js';
import {
  CACHE_ECONOMICS,
  DEFAULT_CACHE_ECONOMICS,
  DEFAULT_IDLE_GAP_MS,
  breakCostFactor,
  warmTriggerThreshold,
  type CacheEconomics,
} from './cacheEconomics.js';
import { viewHistory } from './historyLedger.js';
import { createMaskingMiddleware } from './maskingMiddleware.js';
import { planMasking } from './maskingPlan.js';
import type { Content, MaskingHost, Part } from './maskingTypes.js';
import { ToolOutputMaskingService } from './toolOutputMaskingService.js';

const { gemini, openai, anthropic } = CACHE_ECONOMICS;

/** Each output's token count is its `output` length, so tests can reason in exact numbers. */
const measure = (part: Part) => {
  const output = (part.functionResponse?.response as { output?: string } | undefined)?.output;
  return typeof output === 'string' ? output.length : undefined;
};

const call = (id: string): Content => ({
  role: 'model',
  parts: [{ functionCall: { id, name: 'tool', args: {} } }],
});
const result = (id: string, size: number): Content => ({
  role: 'user',
  parts: [{ functionResponse: { id, name: 'tool', response: { output: 'x'.repeat(size) } } }],
});
const history = (...sizes: number[]): Content[] =>
  sizes.flatMap((size, index) => [call(`c${index}`), result(`c${index}`, size)]);

// Under the floor rule, 900 prunable tokens pay for a warm break without a write premium;
// Anthropic's needs 900 × (1.25 − 0.1) / (1 − 0.1) = 1,150 (warmBreak.test.ts has the pay-back rule).
const config = {
  toolProtectionThreshold: 1_000,
  minPrunableTokensThreshold: 900,
  protectLatestTurn: false,
  warmRule: 'floor' as const,
};

function plan(entries: Content[], options: Parameters<typeof planMasking>[2] = {}) {
  return planMasking(viewHistory(entries, measure, Infinity), config, options);
}

describe('the warm trigger weighs a break at the provider’s prices', () => {
  it('scales the threshold by (w − r) / (1 − r): 1 without a write premium, 1.28 under Anthropic', () => {
    expect(breakCostFactor(gemini)).toBe(1);
    expect(breakCostFactor(openai)).toBe(1);
    expect(breakCostFactor(anthropic)).toBeCloseTo(1.15 / 0.9, 12);
    expect(warmTriggerThreshold(30_000, anthropic)).toBeCloseTo(38_333.33, 2);
    // No premium: the threshold itself, whatever the read price (Gemini 2.5 reads at 0.25).
    for (const read of [0, 0.1, 0.25, 0.5]) {
      expect(warmTriggerThreshold(30_000, { cacheWritePrice: 1, cacheReadPrice: read })).toBe(
        30_000,
      );
    }
    expect(warmTriggerThreshold(30_000)).toBe(30_000);
    expect(DEFAULT_CACHE_ECONOMICS).toBe(gemini);
  });

  it('keeps the threshold for economics it cannot use', () => {
    for (const odd of [
      { cacheWritePrice: 1.25, cacheReadPrice: 1 },
      { cacheWritePrice: 1.25, cacheReadPrice: -0.1 },
      { cacheWritePrice: 0.05, cacheReadPrice: 0.1 },
      { cacheWritePrice: Number.NaN, cacheReadPrice: 0.1 },
    ]) {
      expect(warmTriggerThreshold(30_000, odd)).toBe(30_000);
    }
  });

  it('a batch that pays for a break under Gemini’s prices does not under Anthropic’s write premium', () => {
    // Newest first: 600 + 400 = 1,000 protected; 1,000 older are prunable (900 ≤ 1,000 < 1,150).
    const entries = history(500, 500, 400, 600);
    const underGemini = plan(entries, { cache: gemini });
    expect(underGemini.totalPrunableTokens).toBe(1_000);
    expect(underGemini.trigger).toBe('threshold');
    expect(underGemini.targets.map((target) => target.contentIndex)).toEqual([1, 3]);
    expect(plan(entries, { cache: openai }).targets).toEqual(underGemini.targets);
    expect(plan(entries).targets).toEqual(underGemini.targets); // the default is Gemini's
    const underAnthropic = plan(entries, { cache: anthropic });
    expect(underAnthropic.totalPrunableTokens).toBe(1_000);
    expect(underAnthropic.trigger).toBeUndefined();
    expect(underAnthropic.targets).toEqual([]);
  });

  it('a batch large enough pays under both; a cold moment masks under both whatever the batch', () => {
    const large = history(700, 500, 400, 600); // 1,200 prunable ≥ 1,150
    for (const cache of [gemini, anthropic]) {
      const planned = plan(large, { cache });
      expect(planned.trigger).toBe('threshold');
      expect(planned.targets.map((target) => target.contentIndex)).toEqual([1, 3]);
    }
    const small = history(100, 400, 600); // 100 prunable: only a cold moment masks it
    for (const cache of [gemini, anthropic]) {
      expect(plan(small, { cache }).targets).toEqual([]);
      expect(plan(small, { cache, cacheLikelyCold: true }).trigger).toBe('cold_cache');
    }
  });
});

describe('the provider’s economics through the service and the middleware', () => {
  const text = (count: number, prefix: string) =>
    Array.from({ length: count }, (_, index) => `${prefix} line ${index + 1}`).join('\n');
  const shell = (id: string, body: string): Content => ({
    role: 'user',
    parts: [{ functionResponse: { id, name: 'run_shell_command', response: { output: body } } }],
  });
  const prompt = (value: string): Content => ({ role: 'user', parts: [{ text: value }] });

  function setup(options: { idleGapMs?: number; economics?: CacheEconomics } = {}) {
    const memory = createFsFromVolume(new Volume());
    const service = new ToolOutputMaskingService({
      store: createFileToolOutputStore({ fs: memory as unknown as StoreFileSystem }),
      telemetry: () => undefined,
      ...(options.economics
        ? { _internal: { tuning: { cacheEconomics: options.economics } } }
        : {}),
    });
    const host: MaskingHost = {
      getSessionId: () => 's',
      storage: { getProjectTempDir: () => '/p' },
    };
    let now = 0;
    const seen: { cold: boolean; cache: CacheEconomics | undefined }[] = [];
    const original = service.mask.bind(service);
    service.mask = (entries, passHost, passOptions) => {
      seen.push({ cold: passOptions?.cacheLikelyCold === true, cache: passOptions?.cache });
      return original(entries, passHost, passOptions);
    };
    const middleware = createMaskingMiddleware(service, {
      host,
      ...(options.idleGapMs !== undefined ? { idleGapMs: options.idleGapMs } : {}),
      _internal: { now: () => now },
    });
    return { service, host, middleware, seen, advance: (ms: number) => (now += ms) };
  }

  /** Two old outputs of about 5,000 tokens each past a 1,000-token window: ~10,000 prunable. */
  function session(): Content[] {
    return [
      prompt('go'),
      call('a'),
      shell('a', text(900, 'a')),
      call('b'),
      shell('b', text(900, 'b')),
      call('c'),
      shell('c', text(150, 'c')),
    ];
  }

  it('a request’s economics reach the pass, which masks a batch only when it pays at those prices', async () => {
    const settings = { toolProtectionThreshold: 1_000, protectLatestTurn: false };
    // What the pass counts as prunable here, from a pass that masks at any size.
    const measured = setup();
    const probe = await measured.service.mask(session(), measured.host, {
      config: resolveToolOutputMaskingConfig({
        warmRule: 'floor',
        ...settings,
        minPrunableTokensThreshold: 0,
      }),
    });
    const prunable = probe.totalPrunableTokens;
    expect(prunable).toBeGreaterThan(5_000);
    // A threshold the batch clears without a premium and not with Anthropic's.
    const config = resolveToolOutputMaskingConfig({
      warmRule: 'floor',
      ...settings,
      minPrunableTokensThreshold: Math.floor(prunable / 1.1),
    });
    const run = async (cache?: CacheEconomics, economics?: CacheEconomics) => {
      const { middleware, seen } = setup(economics ? { economics } : {});
      const entries = session();
      const masked = await middleware.transformRequest({
        history: entries.slice(0, -1),
        request: entries.at(-1) as Content,
        config,
        ...(cache ? { cache } : {}),
      });
      return { masked: masked.result.maskedCount, cache: seen[0]?.cache };
    };
    expect(await run()).toEqual({ masked: 2, cache: undefined });
    expect(await run(gemini)).toEqual({ masked: 2, cache: gemini });
    expect(await run(anthropic)).toEqual({ masked: 0, cache: anthropic });
    // The service's own default (the bench's seam), and a request's economics over it.
    expect((await run(undefined, anthropic)).masked).toBe(0);
    expect((await run(gemini, anthropic)).masked).toBe(2);
  });

  it('the idle gap is the host’s when set, else the request’s provider’s, else 5 minutes', async () => {
    const quick = { ...anthropic, idleGapMs: 60_000 };
    const cold = async (options: { idleGapMs?: number }, gap: number, cache?: CacheEconomics) => {
      const { middleware, seen, advance } = setup(options);
      const entries = session();
      await middleware.transformRequest({ history: entries, request: prompt('first') });
      middleware.requestEnded();
      advance(gap);
      await middleware.transformRequest({
        history: entries,
        request: prompt('back'),
        ...(cache ? { cache } : {}),
      });
      return seen[1]?.cold;
    };
    expect(await cold({}, 61_000, quick)).toBe(true);
    expect(await cold({}, 59_000, quick)).toBe(false);
    expect(await cold({}, DEFAULT_IDLE_GAP_MS + 1)).toBe(true);
    expect(await cold({}, DEFAULT_IDLE_GAP_MS - 1, anthropic)).toBe(false);
    expect(await cold({ idleGapMs: 10 * 60_000 }, 6 * 60_000, anthropic)).toBe(false);
    expect(await cold({ idleGapMs: 1_000 }, 2_000, quick)).toBe(true);
  });
});
