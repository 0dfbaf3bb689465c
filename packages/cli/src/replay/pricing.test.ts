import { describe, expect, it } from 'vitest';
import { CACHE_PRICING, billedTokens } from './pricing.js';

describe('cache pricing', () => {
  it("keeps today's figure when there is no write premium (OpenAI, Gemini)", () => {
    for (const [context, cached] of [
      [1_000, 0],
      [1_000, 600],
      [123_457, 98_765],
    ] as const) {
      const today = context - cached + 0.1 * cached;
      expect(billedTokens(context, cached, 0.1)).toBe(today);
      expect(billedTokens(context, cached, 0.1, CACHE_PRICING.openai.cacheWritePrice)).toBe(today);
      expect(billedTokens(context, cached, 0.1, CACHE_PRICING.gemini.cacheWritePrice)).toBe(today);
    }
  });

  it("prices Anthropic's cache writes at 1.25x and reads at 0.1x", () => {
    const { cachedTokenPrice, cacheWritePrice } = CACHE_PRICING.anthropic;
    expect(billedTokens(1_000, 0, cachedTokenPrice, cacheWritePrice)).toBe(1_250);
    expect(billedTokens(1_000, 800, cachedTokenPrice, cacheWritePrice)).toBeCloseTo(250 + 80, 9);
  });
});
