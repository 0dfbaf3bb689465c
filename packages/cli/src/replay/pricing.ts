/**
 * How a provider bills a prompt under prompt caching, relative to an uncached input token:
 * - `cachedTokenPrice`: a token read from the cache (`--cache-discount` overrides it);
 * - `cacheWritePrice`: a token that is not read from the cache. Anthropic writes it to the cache
 *   at 1.25x (5-minute TTL); OpenAI and Gemini cache implicitly, with no write premium (1x).
 *
 * The replay prices every uncached token of a request as written: Claude Code puts its cache
 * breakpoint on the newest block, so all that is not read is written. OpenAI's and Gemini's
 * figures are today's (`uncached + 0.1 x cached`), so earlier reports stay identical.
 */
import { CACHE_ECONOMICS } from '@toolmask/core';
import { PRICING_NAMES, type PricingName } from './pricing-names.js';

export { PRICING_NAMES, isPricingName, type PricingName } from './pricing-names.js';

export interface CachePricing {
  name: PricingName;
  cachedTokenPrice: number;
  cacheWritePrice: number;
}

/** From core's one table of each provider's cache economics (what the gateway's fronts use). */
export const CACHE_PRICING: Readonly<Record<PricingName, CachePricing>> = Object.fromEntries(
  PRICING_NAMES.map((name) => [
    name,
    {
      name,
      cachedTokenPrice: CACHE_ECONOMICS[name].cacheReadPrice,
      cacheWritePrice: CACHE_ECONOMICS[name].cacheWritePrice,
    },
  ]),
) as Record<PricingName, CachePricing>;

/** Billed tokens of one request: what is read from the cache, and what is not (written). */
export function billedTokens(
  contextTokens: number,
  cachedTokens: number,
  cachedTokenPrice: number,
  cacheWritePrice = 1,
): number {
  return (contextTokens - cachedTokens) * cacheWritePrice + cachedTokenPrice * cachedTokens;
}
