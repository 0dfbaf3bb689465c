/**
 * What a pass returns (`MaskingResult`), built from what it found: the history unchanged (nothing
 * to mask, masking off, or a pass that failed as a whole), or the outcome of its attempts (the new
 * history, the outputs offloaded, those kept whole, the failures, the totals) with the one-line
 * notice for the person at the keyboard. Pure: the duration comes from the caller's clock.
 */
import type { MaskingPlan } from '../maskingPlan.js';
import { formatMaskingNotice } from '../maskingNotice.js';
import type { Content, MaskingFailure, MaskingResult, PartLocation } from '../maskingTypes.js';
import type { AttemptResult, MaskedPart } from './outputAttempts.js';
import type { ReplacedHistory } from './replacedHistory.js';

/** The result of a pass that leaves `history` as it is. */
export function unchangedResult(
  history: readonly Content[],
  durationMs: number,
  tokens: number,
  prunable: number,
  failures: MaskingFailure[] = [],
): MaskingResult {
  return {
    newHistory: history,
    maskedCount: 0,
    tokensSaved: 0,
    tokensBefore: tokens,
    tokensAfter: tokens,
    totalPrunableTokens: prunable,
    supersededCount: 0,
    changedIndices: [],
    offloaded: [],
    keptWhole: [],
    failures,
    durationMs,
  };
}

/** The attempts by outcome; failures are added to `failures`. */
export interface SortedAttempts {
  masked: MaskedPart[];
  keptWhole: PartLocation[];
  /** The first entry with an output kept whole; Infinity when none. */
  firstKeptWhole: number;
}

export function sortAttempts(
  attempts: readonly AttemptResult[],
  failures: MaskingFailure[],
): SortedAttempts {
  const masked: MaskedPart[] = [];
  const keptWhole: PartLocation[] = [];
  let firstKeptWhole = Infinity;
  for (const attempt of attempts) {
    if (attempt.kind === 'masked') masked.push(attempt.value);
    if (attempt.kind === 'failed') failures.push(attempt.value);
    if (attempt.kind === 'skipped') {
      keptWhole.push({
        contentIndex: attempt.ref.contentIndex,
        partIndex: attempt.ref.partIndex,
      });
      firstKeptWhole = Math.min(firstKeptWhole, attempt.ref.contentIndex);
    }
  }
  return { masked, keptWhole, firstKeptWhole };
}

/** What a pass that tried to mask knows when it returns. */
export interface PassOutcome {
  plan: MaskingPlan;
  attempts: SortedAttempts;
  failures: MaskingFailure[];
  newHistory: ReplacedHistory;
  /** Where this pass wrote (named in the notice). */
  directory: string;
  /** `maxOutputTokens` of the pass's settings (the notice counts the outputs above it). */
  maxOutputTokens: number;
  durationMs: number;
}

/** The result of a pass that tried the plan's outputs, with its notice when it masked some. */
export function maskedResult(outcome: PassOutcome): MaskingResult {
  const { plan, failures, newHistory, directory, maxOutputTokens } = outcome;
  const { masked, keptWhole } = outcome.attempts;
  const tokensSaved = masked.reduce(
    (sum, m) => sum + m.offloaded.tokensBefore - m.offloaded.tokensAfter,
    0,
  );
  const result: MaskingResult = {
    newHistory: newHistory.history,
    maskedCount: masked.length,
    tokensSaved,
    tokensBefore: plan.totalTokens,
    tokensAfter: plan.totalTokens - tokensSaved,
    totalPrunableTokens: plan.totalPrunableTokens,
    supersededCount: masked.filter((m) => m.offloaded.superseded).length,
    changedIndices: newHistory.changedIndices,
    offloaded: masked.map((m) => m.offloaded),
    keptWhole,
    failures,
    durationMs: outcome.durationMs,
  };
  if (masked.length > 0 && plan.trigger) result.trigger = plan.trigger;
  if (masked.length > 0) {
    result.notice = formatMaskingNotice({
      masked: masked.length,
      oversized: masked.filter(
        (m) => maxOutputTokens > 0 && m.offloaded.tokensBefore > maxOutputTokens,
      ).length,
      maxOutputTokens,
      tokensSaved,
      directory,
    });
  }
  return result;
}
