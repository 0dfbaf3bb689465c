/**
 * A provider's prompt-cache economics, as the masking trigger needs them, and the warm trigger's
 * rule. Pure: no I/O, no clock.
 *
 * Prices are relative to an uncached input token. A prompt token the cache holds is read at
 * `cacheReadPrice`; one it does not hold is written at `cacheWritePrice` (Anthropic charges a
 * premium for writes; OpenAI and Gemini cache implicitly and charge an ordinary input token). The
 * cache is cold after `idleGapMs` without a request.
 *
 * The warm rule. A masking event on a warm cache (a break) re-sends uncached the B tokens after the
 * first output it changes: each costs `cacheWritePrice` instead of `cacheReadPrice`, so the break
 * costs (w − r) × B. In return every later warm request reads S fewer tokens, r × S each time.
 * `minPrunableTokensThreshold` is the batch S that pays for a break at no write premium, where the
 * break costs (1 − r) × B; for the same B and the same later requests, a premium makes the break
 * (w − r) / (1 − r) times dearer, and the batch that pays for it grows by as much:
 *
 *     warm threshold = minPrunableTokensThreshold × (w − r) / (1 − r)
 *
 * Anthropic (w = 1.25, r = 0.1): × 1.278, 30,000 → 38,333. With no premium (w = 1) the factor is
 * exactly 1 whatever r is, so the Gemini and OpenAI fronts decide as they always did. A cold moment
 * is unaffected: the whole prompt is written then anyway, masked or not.
 */

/** Roughly the prompt-cache lifetime: after this much idle time the cache is most likely cold. */
export const DEFAULT_IDLE_GAP_MS = 5 * 60 * 1000;

export interface CacheEconomics {
  /** A prompt token written to the cache (not read from it), relative to an input token. */
  cacheWritePrice: number;
  /** A prompt token read from the cache, relative to an input token. */
  cacheReadPrice: number;
  /** Idle time after which the cache is most likely cold (its time to live). */
  idleGapMs: number;
}

/**
 * Each provider's figures. Gemini's and OpenAI's read price is the 0.1 the bench and the replay
 * price at first (newer models of both; older ones read at 0.25 or 0.5, which the warm rule does not
 * depend on when there is no write premium). Anthropic: 1.25× writes with the default 5-minute
 * time to live, 0.1× reads. The 5-minute idle gap of Gemini and OpenAI is the one every host has
 * always used.
 */
export const CACHE_ECONOMICS = {
  gemini: { cacheWritePrice: 1, cacheReadPrice: 0.1, idleGapMs: DEFAULT_IDLE_GAP_MS },
  openai: { cacheWritePrice: 1, cacheReadPrice: 0.1, idleGapMs: DEFAULT_IDLE_GAP_MS },
  anthropic: { cacheWritePrice: 1.25, cacheReadPrice: 0.1, idleGapMs: DEFAULT_IDLE_GAP_MS },
} as const satisfies Record<string, Readonly<CacheEconomics>>;

/** What a pass assumes when its host names no provider: Gemini's (the gemini-cli host's). */
export const DEFAULT_CACHE_ECONOMICS: Readonly<CacheEconomics> = CACHE_ECONOMICS.gemini;

/**
 * How much dearer a warm break is than at no write premium, (w − r) / (1 − r); 1 for economics
 * the rule cannot use (a read price outside [0, 1), a write cheaper than a read, not finite).
 */
export function breakCostFactor(
  economics: Pick<CacheEconomics, 'cacheWritePrice' | 'cacheReadPrice'>,
): number {
  const { cacheWritePrice: write, cacheReadPrice: read } = economics;
  // No premium: exactly today's rule, with no floating-point round trip.
  if (write === 1) return 1;
  const usable =
    Number.isFinite(write) && Number.isFinite(read) && read >= 0 && read < 1 && write >= read;
  return usable ? (write - read) / (1 - read) : 1;
}

/** The prunable tokens a warm pass needs before it masks (see the module comment). */
export function warmTriggerThreshold(
  minPrunableTokensThreshold: number,
  economics: Pick<CacheEconomics, 'cacheWritePrice' | 'cacheReadPrice'> = DEFAULT_CACHE_ECONOMICS,
): number {
  const factor = breakCostFactor(economics);
  return factor === 1 ? minPrunableTokensThreshold : minPrunableTokensThreshold * factor;
}
