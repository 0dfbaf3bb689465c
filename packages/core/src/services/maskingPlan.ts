/**
 * The masking decision, pure: which tool outputs of a history to mask. No I/O, no clock.
 *
 * Backward scan, newest to oldest, over `functionResponse` parts (the last entry is skipped when
 * `protectLatestTurn`). The newest `protectionThresholdTokens` of tool output are protected; the
 * output that crosses that line and every older one are prunable. Masking is batched: it happens
 * only when the prunable total reaches `minPrunableThresholdTokens`, so every prompt-cache break
 * frees a lot — or when the cache is most likely cold anyway (`cacheLikelyCold`), where a break
 * costs nothing. Independently, an output larger than `maxOutputTokens` is always masked, even the
 * newest one, so one giant log cannot wedge a session.
 */
import type { Content, Part } from './maskingTypes.js';
import type { ToolOutputMaskingConfig } from '../config/toolOutputMaskingSettings.js';

/** What the scan needs to know about one part; undefined = not a countable tool output. */
export interface MeasuredOutput {
  tokens: number;
}

/** Tells the scan whether a part is a countable tool output (not exempt, not already masked) and its size. */
export type MeasureOutput = (part: Part) => MeasuredOutput | undefined;

export interface OutputRef {
  contentIndex: number;
  partIndex: number;
  tokens: number;
}

export type MaskingTrigger = 'threshold' | 'cold_cache' | 'oversized';

export interface MaskingPlan {
  /** Outputs to mask now, oldest first. Empty when the pass should do nothing. */
  targets: OutputRef[];
  /** Estimated tokens of every countable output in the history. */
  totalTokens: number;
  protectedTokens: number;
  totalPrunableTokens: number;
  /** Why the pass masks; undefined when it does not. */
  trigger?: MaskingTrigger;
}

export function planMasking(
  history: readonly Content[],
  config: Pick<
    ToolOutputMaskingConfig,
    | 'protectionThresholdTokens'
    | 'minPrunableThresholdTokens'
    | 'protectLatestTurn'
    | 'maxOutputTokens'
  >,
  measure: MeasureOutput,
  options: { cacheLikelyCold?: boolean } = {},
): MaskingPlan {
  const prunable: OutputRef[] = [];
  const oversized: OutputRef[] = [];
  let totalTokens = 0;
  let protectedTokens = 0;
  let totalPrunableTokens = 0;
  let crossed = false;
  const scanEnd = config.protectLatestTurn ? history.length - 1 : history.length;
  const maxOutputTokens = config.maxOutputTokens > 0 ? config.maxOutputTokens : Infinity;

  for (let contentIndex = history.length - 1; contentIndex >= 0; contentIndex--) {
    const parts = history[contentIndex]?.parts;
    if (!Array.isArray(parts)) continue;
    for (let partIndex = parts.length - 1; partIndex >= 0; partIndex--) {
      const part = parts[partIndex];
      if (!part?.functionResponse) continue;
      const measured = measure(part);
      if (!measured) continue;
      const ref = { contentIndex, partIndex, tokens: measured.tokens };
      totalTokens += measured.tokens;
      if (measured.tokens > maxOutputTokens) {
        // Masked regardless of position; it neither uses nor shifts the protection budget.
        oversized.push(ref);
        continue;
      }
      if (contentIndex >= scanEnd) continue;
      if (!crossed && protectedTokens + measured.tokens <= config.protectionThresholdTokens) {
        protectedTokens += measured.tokens;
        continue;
      }
      crossed = true;
      prunable.push(ref);
      totalPrunableTokens += measured.tokens;
    }
  }

  let trigger: MaskingTrigger | undefined;
  let targets: OutputRef[] = [];
  if (totalPrunableTokens > 0 && totalPrunableTokens >= config.minPrunableThresholdTokens) {
    trigger = 'threshold';
    targets = prunable;
  } else if (totalPrunableTokens > 0 && options.cacheLikelyCold) {
    trigger = 'cold_cache';
    targets = prunable;
  }
  if (oversized.length > 0) {
    trigger ??= 'oversized';
    targets = [...targets, ...oversized];
  }
  targets.sort((a, b) => a.contentIndex - b.contentIndex || a.partIndex - b.partIndex);
  return { targets, totalTokens, protectedTokens, totalPrunableTokens, trigger };
}
