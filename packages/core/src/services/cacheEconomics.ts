/**
 * A provider's prompt-cache economics, as the masking trigger needs them, and the warm trigger's
 * rule. Pure: no I/O, no clock.
 *
 * Prices are relative to an uncached input token. A prompt token the cache holds is read at
 * `cacheReadPrice`; one it does not hold is written at `cacheWritePrice` (Anthropic charges a
 * premium for writes; OpenAI and Gemini cache implicitly and charge an ordinary input token). The
 * cache is cold after `idleGapMs` without a request.
 *
 * The warm rule (issue 34): a break must pay for itself. A masking event on a warm cache re-sends
 * uncached the B prompt tokens after the first output it changes: each costs `cacheWritePrice`
 * (w) instead of `cacheReadPrice` (r), so the break costs (w − r) × B. In return every later warm
 * request reads S fewer tokens, r × S each time, S being what the masked outputs cost less what
 * their snippets still cost (snippetCost.ts). Over the n̂ requests the session is expected to
 * make after this one, the break pays when
 *
 *     r × S × n̂ > (w − r) × B.
 *
 * n̂ comes from what the session shows: it has made k requests so far (the model's turns in its
 * history), and n̂ = c × k (`expectedRemainingRequests`). The fit, on the 134 recorded sessions of
 * `../shared/traces` (13 to 142 requests, every request k = 1 … L − 1 of a session of L requests
 * one sample, 6,084 samples): c = 1 makes the mean of log(remaining / ĉk) zero (it is exactly 1 for
 * any set of lengths: each session gives k and L − k alike), with a mean absolute log error of
 * 1.30 (n̂ within a factor 3.7, typically); least squares on the counts gives c = 0.51 (mean absolute
 * error 25.1 requests against 30.0 at c = 1), weighted by the long sessions' late requests. The
 * rule takes c = 0.5, the least-squares fit: a break it makes pays back in 67% of those samples
 * (the session goes on at least k / 2 more requests), where c = 1, the heavy-tailed reading (a
 * session that has run k requests is about as likely to run k more), pays back in half of them
 * and lost money on the launchers' short sessions (claude, opencode: docs/benchmarks.md 3.13).
 *
 * `minPrunableTokensThreshold` stays the batch floor: a warm pass masks only a batch of at least
 * that many tokens (so that breaks are few and each frees a lot) AND one that pays back; the write
 * premium is in the pay-back test, so the floor is not scaled for it. A cold moment keeps its old
 * rule, where `warmTriggerThreshold` (the floor × (w − r) / (1 − r): 30,000 → 38,333 for
 * Anthropic) only names the trigger (`threshold` above it, `cold_cache` below): the whole
 * prompt is written then anyway, masked or not.
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
  /**
   * The shortest prompt the provider caches at all; a shorter one is never read from a cache, so
   * breaking it costs nothing. @default `MIN_CACHED_PROMPT_TOKENS`
   */
  minCachedPromptTokens?: number;
}

/**
 * The shortest prompt the providers cache: 1,024 tokens for OpenAI's automatic caching, for
 * Anthropic's Sonnet and Opus models (2,048 for Haiku) and for Gemini's implicit caching on Flash
 * (more on some Pro models). The smallest of them, so that no break that costs is let through.
 */
export const MIN_CACHED_PROMPT_TOKENS = 1024;

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

/**
 * n̂ = c × k: the requests a session that has made `requestsSoFar` is expected to make after the
 * current one (see the module comment for the fit of c on `../shared/traces`).
 */
export const REMAINING_REQUESTS_PER_REQUEST_SO_FAR = 0.5;

export function expectedRemainingRequests(requestsSoFar: number): number {
  return Number.isFinite(requestsSoFar) && requestsSoFar > 0
    ? REMAINING_REQUESTS_PER_REQUEST_SO_FAR * requestsSoFar
    : 0;
}

/** What a warm break would do: the tokens it removes and re-sends, and the session so far. */
export interface WarmBreak {
  /** Estimated tokens of the prompt as it stands (what the cache may hold). */
  promptTokens: number;
  /**
   * S: estimated tokens the event removes from every later request, net of the snippets it
   * leaves in their place (snippetCost.ts).
   */
  savedTokens: number;
  /** B: estimated prompt tokens from the first output the event changes to the end. */
  resentTokens: number;
  /** k: requests the session has made so far. */
  requestsSoFar: number;
}

/**
 * Whether a warm break pays for itself: r × S × n̂ > (w − r) × B (module comment), or costs
 * nothing: a prompt shorter than the provider caches (`minCachedPromptTokens`) is in no cache.
 * Economics the rule cannot use (not finite, a read price outside [0, 1], a write cheaper than a
 * read) are weighed at Gemini's.
 */
export function warmBreakPays(
  facts: WarmBreak,
  economics: Pick<
    CacheEconomics,
    'cacheWritePrice' | 'cacheReadPrice' | 'minCachedPromptTokens'
  > = DEFAULT_CACHE_ECONOMICS,
): boolean {
  if (facts.promptTokens < (economics.minCachedPromptTokens ?? MIN_CACHED_PROMPT_TOKENS)) {
    return true;
  }
  let { cacheWritePrice: write, cacheReadPrice: read } = economics;
  const usable =
    Number.isFinite(write) && Number.isFinite(read) && read >= 0 && read <= 1 && write >= read;
  if (!usable) ({ cacheWritePrice: write, cacheReadPrice: read } = DEFAULT_CACHE_ECONOMICS);
  const saving = read * facts.savedTokens * expectedRemainingRequests(facts.requestsSoFar);
  return saving > (write - read) * facts.resentTokens;
}
