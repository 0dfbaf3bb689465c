/**
 * The masking decision, pure: which tool outputs of a history to mask. No I/O, no clock.
 *
 * Backward scan, newest to oldest, over countable tool outputs (not exempt, not already masked;
 * see historyLedger.ts); the last entry is skipped when `protectLatestTurn`. The newest
 * `toolProtectionThreshold` are protected; the output that crosses that line and every older
 * one are prunable. Masking is batched: it happens only when the prunable total reaches
 * `minPrunableTokensThreshold`, so every prompt-cache break frees a lot — scaled by what a break
 * costs at the provider's prices (`cache`, cacheEconomics.ts: × (w − r) / (1 − r), so 1 without a
 * write premium and 1.28 under Anthropic's) — or when the cache is most likely cold anyway
 * (`cacheLikelyCold`), where a break costs nothing. At such a cold moment
 * the protected window is `coldCacheProtectionThreshold` when that is smaller (the pass is free
 * then, and what stays whole is paid for on every request until the next cold moment); every
 * other pass uses `toolProtectionThreshold`. Independently, an
 * output larger than `maxOutputTokens` is always masked, even the newest, so one giant log cannot
 * wedge a session.
 *
 * Superseded outputs first (`superseded`, superseded/): an output whose content the
 * session has since replaced (the same file read again or edited later, the same command run
 * again) costs nothing to hide. Inside the protected window too, such outputs count toward the
 * trigger with the prunable ones, and whenever a pass masks for the trigger or at a cold moment
 * they are targets. The latest entry stays out when `protectLatestTurn`, and an output counts as
 * superseded only once the later call's output is in the history (the replacement is visible).
 *
 * The protected window is found by binary search on prefix sums and the prunable total is a
 * prefix sum, so a pass that masks nothing costs O(log n) here, plus the superseded outputs
 * inside the window.
 */
import type { ToolOutputMaskingConfig } from '../config/toolOutputMaskingSettings.js';
import type { HistoryView } from './historyLedger.js';
import type { CacheEconomics } from './cacheEconomics.js';
import { chooseTrigger, type MaskingTrigger } from './maskingTrigger.js';
import { lowerBound } from '../utils/sortedNumbers.js';
import type { SupersededView, Supersession } from './superseded/supersession.js';

export interface OutputRef {
  contentIndex: number;
  partIndex: number;
  tokens: number;
  /** What superseded the output, when something did. */
  superseded?: Supersession;
}

export type { MaskingTrigger };

export interface MaskingPlan {
  /** Outputs to mask now, oldest first. Empty when the pass should do nothing. */
  targets: OutputRef[];
  /** Estimated tokens of every countable output in the history. */
  totalTokens: number;
  protectedTokens: number;
  totalPrunableTokens: number;
  /** Estimated tokens of the superseded outputs inside the protected window (not prunable). */
  supersededTokens: number;
  /** Why the pass masks; undefined when it does not. */
  trigger?: MaskingTrigger;
}

export type PlanConfig = Pick<
  ToolOutputMaskingConfig,
  'toolProtectionThreshold' | 'minPrunableTokensThreshold' | 'protectLatestTurn'
> &
  Partial<
    Pick<ToolOutputMaskingConfig, 'coldCacheProtectionThreshold' | 'maxOutputTokens' | 'warmRule'>
  >;

/** Where the protected window ends: the crossing output and everything before it are prunable. */
interface Crossing {
  contentIndex: number;
  /** Position in `summary(contentIndex).outputs` of the crossing output. */
  outputPosition: number;
}

/** The protected window of `budget` tokens over entries [0, scanEnd), newest first. */
function protectedWindow(
  view: HistoryView,
  scanEnd: number,
  budget: number,
): { protectedTokens: number; crossing?: Crossing } {
  const scannedTokens = view.tokensBefore(scanEnd);
  // Entries [firstProtected, scanEnd) fit whole in the budget: binary search on prefix sums.
  let low = 0;
  let high = scanEnd;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (scannedTokens - view.tokensBefore(middle) <= budget) high = middle;
    else low = middle + 1;
  }
  const firstProtected = low;
  let protectedTokens = scannedTokens - view.tokensBefore(firstProtected);
  if (firstProtected > 0) {
    // The entry before holds the crossing output; some of its newer outputs may still fit.
    const contentIndex = firstProtected - 1;
    const outputs = view.summary(contentIndex).outputs;
    for (let position = outputs.length - 1; position >= 0; position--) {
      const tokens = (outputs[position] as { tokens: number }).tokens;
      if (protectedTokens + tokens > budget) {
        return { protectedTokens, crossing: { contentIndex, outputPosition: position } };
      }
      protectedTokens += tokens;
    }
  }
  return { protectedTokens };
}

/** The window of a pass: `toolProtectionThreshold`, or the cold-moment one when smaller. */
export function protectionBudget(config: PlanConfig, cacheLikelyCold = false): number {
  const cold = config.coldCacheProtectionThreshold;
  return cacheLikelyCold && cold !== undefined
    ? Math.min(cold, config.toolProtectionThreshold)
    : config.toolProtectionThreshold;
}

export interface PlanOptions {
  /** The prompt cache is most likely cold for this request. */
  cacheLikelyCold?: boolean;
  /** The provider's cache prices (the warm threshold's scale). @default Gemini's: no premium */
  cache?: Pick<CacheEconomics, 'cacheWritePrice' | 'cacheReadPrice' | 'minCachedPromptTokens'>;
  /** Outputs the session has since replaced (superseded/). @default none */
  superseded?: SupersededView;
}

/**
 * The superseded countable outputs inside the protected window: after the crossing output, before
 * `scanEnd`. Only the entries holding superseded outputs are looked at.
 */
function supersededInWindow(
  view: HistoryView,
  superseded: SupersededView | undefined,
  scanEnd: number,
  crossing: Crossing | undefined,
): { refs: OutputRef[]; tokens: number; kept: number } {
  const refs: OutputRef[] = [];
  let tokens = 0;
  let kept = 0;
  if (!superseded) return { refs, tokens, kept };
  const entries = superseded.entries;
  for (
    let position = lowerBound(entries, crossing?.contentIndex ?? 0);
    position < entries.length;
    position++
  ) {
    const contentIndex = entries[position] as number;
    if (contentIndex >= scanEnd) break;
    const parts = superseded.partsOf(contentIndex);
    if (!parts) continue;
    const outputs = view.summary(contentIndex).outputs;
    const first = contentIndex === crossing?.contentIndex ? crossing.outputPosition + 1 : 0;
    for (let position = first; position < outputs.length; position++) {
      const output = outputs[position] as { partIndex: number; tokens: number; kept: number };
      const by = parts.get(output.partIndex);
      if (!by) continue;
      refs.push({
        contentIndex,
        partIndex: output.partIndex,
        tokens: output.tokens,
        superseded: by,
      });
      tokens += output.tokens;
      kept += output.kept;
    }
  }
  return { refs, tokens, kept };
}

/** The entry of the oldest output a trigger or cold pass would mask, if any. */
function firstMaskable(
  view: HistoryView,
  crossing: Crossing | undefined,
  supersededRefs: readonly OutputRef[],
): number | undefined {
  if (crossing) {
    // The first entry with countable tokens (binary search on the prefix sums): the crossing
    // entry at the latest, since the crossing output counts.
    let low = 0;
    let high = crossing.contentIndex;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (view.tokensBefore(middle + 1) > 0) high = middle;
      else low = middle + 1;
    }
    return low;
  }
  return supersededRefs[0]?.contentIndex;
}

/** `ref` with what superseded it, when something did. */
function withSupersession(ref: OutputRef, superseded: SupersededView | undefined): OutputRef {
  const by = superseded?.partsOf(ref.contentIndex)?.get(ref.partIndex);
  return by ? { ...ref, superseded: by } : ref;
}

export function planMasking(
  view: HistoryView,
  config: PlanConfig,
  options: PlanOptions = {},
): MaskingPlan {
  const scanEnd = Math.max(0, config.protectLatestTurn ? view.length - 1 : view.length);
  const budget = protectionBudget(config, options.cacheLikelyCold);
  const { protectedTokens, crossing } = protectedWindow(view, scanEnd, budget);

  let totalPrunableTokens = 0;
  let keptPrunableTokens = 0;
  if (crossing) {
    const outputs = view.summary(crossing.contentIndex).outputs;
    totalPrunableTokens = view.tokensBefore(crossing.contentIndex);
    keptPrunableTokens = view.keptTokensBefore(crossing.contentIndex);
    for (let position = 0; position <= crossing.outputPosition; position++) {
      const output = outputs[position] as { tokens: number; kept: number };
      totalPrunableTokens += output.tokens;
      keptPrunableTokens += output.kept;
    }
  }

  let oversizedTokens = 0;
  const oversized: OutputRef[] = [];
  for (const contentIndex of view.oversizedEntries) {
    for (const output of view.summary(contentIndex).oversized) {
      oversized.push({ contentIndex, partIndex: output.partIndex, tokens: output.tokens });
      oversizedTokens += output.tokens;
    }
  }
  const totalTokens = view.tokensBefore(view.length) + oversizedTokens;
  const { superseded } = options;
  const inWindow = supersededInWindow(view, superseded, scanEnd, crossing);
  const supersededTokens = inWindow.tokens;
  const maskable = totalPrunableTokens + supersededTokens;

  const trigger = chooseTrigger(view, config, options, {
    maskable,
    kept: keptPrunableTokens + inWindow.kept,
    firstTarget: firstMaskable(view, crossing, inWindow.refs),
    oversized: oversized.length > 0,
  });
  const figures = { totalTokens, protectedTokens, totalPrunableTokens, supersededTokens };
  if (!trigger) return { targets: [], ...figures };

  const targets: OutputRef[] = [];
  if (trigger !== 'oversized') {
    if (crossing) {
      for (let contentIndex = 0; contentIndex <= crossing.contentIndex; contentIndex++) {
        const outputs = view.summary(contentIndex).outputs;
        const last =
          contentIndex === crossing.contentIndex ? crossing.outputPosition : outputs.length - 1;
        for (let position = 0; position <= last; position++) {
          const output = outputs[position] as { partIndex: number; tokens: number };
          const ref = { contentIndex, partIndex: output.partIndex, tokens: output.tokens };
          targets.push(withSupersession(ref, superseded));
        }
      }
    }
    targets.push(...inWindow.refs);
  }
  for (const ref of oversized) targets.push(withSupersession(ref, superseded));
  targets.sort((a, b) => a.contentIndex - b.contentIndex || a.partIndex - b.partIndex);
  return { targets, ...figures, trigger };
}
