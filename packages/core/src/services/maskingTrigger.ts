/**
 * Why a pass masks, pure: the trigger of a plan (maskingPlan.ts) from what it could mask. No I/O,
 * no clock.
 *
 * - A cold moment (`cacheLikelyCold`) keeps the rule it always had: everything maskable goes,
 *   since the whole prompt is written then anyway (`threshold` when the batch reaches the scaled
 *   floor of cacheEconomics.ts, `cold_cache` below it).
 * - Room (`room`): when the prompt nears the model's context window, what is maskable goes
 *   whatever a break costs. The window is the one `maxOutputTokens` stands for: that setting is a
 *   quarter of the window unless the user set it (`MAX_OUTPUT_CONTEXT_SHARE`), so the window is
 *   `maxOutputTokens / MAX_OUTPUT_CONTEXT_SHARE`, and the prompt nears it once it leaves less than
 *   the share one output may take: estimated prompt tokens ≥ (1 − MAX_OUTPUT_CONTEXT_SHARE) ×
 *   window, three times `maxOutputTokens`. Off with the guard (`maxOutputTokens` 0 or unset).
 * - A warm pass (`threshold`): the batch must reach `minPrunableTokensThreshold` and the break must
 *   pay for itself over the requests the session is expected to make (`warmBreakPays`: r × S × n̂
 *   against (w − r) × B, with B the prompt tokens from the first output the event changes on and
 *   S net: the batch less what its snippets would still cost, snippetCost.ts).
 * - Otherwise an output above `maxOutputTokens` is masked alone (`oversized`): also room.
 */
import { MAX_OUTPUT_CONTEXT_SHARE } from '../config/toolOutputMaskingSettings.js';
import { warmBreakPays, warmTriggerThreshold } from './cacheEconomics.js';
import { SETTINGS, type ToolOutputMaskingConfig } from '../config/toolOutputMaskingSettings.js';
import type { CacheEconomics } from './cacheEconomics.js';
import type { HistoryView } from './historyLedger.js';

export type MaskingTrigger = 'threshold' | 'cold_cache' | 'oversized' | 'room';

/** The settings the trigger reads. */
type TriggerConfig = Pick<ToolOutputMaskingConfig, 'minPrunableTokensThreshold'> &
  Partial<Pick<ToolOutputMaskingConfig, 'maxOutputTokens' | 'warmRule'>>;

/** What the trigger is told of the request (maskingPlan.ts's `PlanOptions`). */
interface TriggerOptions {
  cacheLikelyCold?: boolean;
  cache?: Pick<CacheEconomics, 'cacheWritePrice' | 'cacheReadPrice' | 'minCachedPromptTokens'>;
}

/**
 * The `warmRule` setting. `pay-back` (the default): the warm rule and room below (issue 34).
 * `floor`: a warm pass masks once the batch reaches `minPrunableTokensThreshold` × (w − r) /
 * (1 − r) (`warmTriggerThreshold`), however late in the session, with no room rule.
 */
export type WarmRule = ToolOutputMaskingConfig['warmRule'];

/** What the plan found it could mask. */
export interface Maskable {
  /** Prunable plus superseded tokens. */
  maskable: number;
  /** Of those, what their snippets would still cost (snippetCost.ts). @default 0 */
  kept?: number;
  /** The entry of the oldest output a pass would mask. */
  firstTarget: number | undefined;
  /** Some output is above `maxOutputTokens`. */
  oversized: boolean;
}

/** Estimated prompt tokens at which the context nears its window (see above); Infinity when off. */
export function roomLimitTokens(maxOutputTokens: number | undefined): number {
  if (maxOutputTokens === undefined || !(maxOutputTokens > 0)) return Infinity;
  return (maxOutputTokens / MAX_OUTPUT_CONTEXT_SHARE) * (1 - MAX_OUTPUT_CONTEXT_SHARE);
}

export function chooseTrigger(
  view: HistoryView,
  config: TriggerConfig,
  options: TriggerOptions,
  found: Maskable,
): MaskingTrigger | undefined {
  const { maskable, firstTarget } = found;
  const floor = warmTriggerThreshold(config.minPrunableTokensThreshold, options.cache);
  if (maskable > 0 && options.cacheLikelyCold) {
    return maskable >= floor ? 'threshold' : 'cold_cache';
  }
  if ((config.warmRule ?? SETTINGS.warmRule.default) !== 'pay-back') {
    if (maskable > 0 && maskable >= floor) return 'threshold';
    return found.oversized ? 'oversized' : undefined;
  }
  const promptTokens = view.promptTokensBefore(view.length);
  if (maskable > 0 && promptTokens >= roomLimitTokens(config.maxOutputTokens)) return 'room';
  if (
    maskable > 0 &&
    maskable >= config.minPrunableTokensThreshold &&
    warmBreakPays(
      {
        promptTokens,
        // Net: what the snippets left in place still cost is not saved (issue 34).
        savedTokens: maskable - Math.min(maskable, found.kept ?? 0),
        resentTokens: promptTokens - view.promptTokensBefore(firstTarget ?? 0),
        requestsSoFar: view.modelTurnsBefore(view.length),
      },
      options.cache,
    )
  ) {
    return 'threshold';
  }
  return found.oversized ? 'oversized' : undefined;
}
