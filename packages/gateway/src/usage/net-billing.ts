/**
 * What a conversation would have billed without masking, request by request, from what the
 * provider reported for the requests as sent. Pure: no I/O, no clock.
 *
 * A prompt is measured as segments (prompt-shape.ts): the body without its conversation array, then
 * each element of it, each with its characters and a digest. Two consecutive bodies share the
 * prefix of equal segments; a provider's prefix cache reads at most that prefix.
 *
 * The provider's figures calibrate the conversation: its characters per token is the sum of the
 * prompt tokens it reported over the sum of the characters sent, measured, not assumed. The
 * unmasked prompt's figures are then the provider's own, moved by what masking changed, converted
 * at that rate:
 *
 *     prompt'  = prompt + k × (unmasked chars − sent chars)
 *     read'    = read + k × (unmasked shared prefix − sent shared prefix)   (0 when cold)
 *     written' = prompt' − read' − the provider's uncached, unwritten part
 *
 * A request the provider read nothing for (its cache cold or emptied, masked or not), or after the
 * idle gap, reads nothing unmasked either. Where masking changed nothing, the counterfactual is the
 * provider's report exactly.
 *
 * Bills are in input-token equivalents at the provider's relative prices (core's CacheEconomics):
 * a read at r, a write at w, any other prompt token at 1. Net = counterfactual − actual: positive
 * when masking billed less.
 */
import type { CacheEconomics } from '@toolmask/core';
import type { UsageReport } from '../protocols/protocol.js';

/** A body's prompt as segments: digests and characters, the body-without-array first. */
export interface PromptShape {
  digests: string[];
  chars: number[];
}

/** The conversation's state between requests (kept with its meta, so a team's replicas share it). */
export interface NetState {
  unmasked: PromptShape;
  sent: PromptShape;
  /** Epoch ms of the last request. */
  at: number;
  /** Sums over the requests with usage, for the calibration. */
  reportedTokens: number;
  sentChars: number;
}

/** The unmasked prompt's figures, as the provider would have reported them. */
export interface Counterfactual {
  promptTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
}

export interface NetStep {
  unmasked: PromptShape;
  sent: PromptShape;
  usage: UsageReport;
  at: number;
  idleGapMs: number;
}

/** Elements kept in a state at most: a longer conversation is compared on its first ones only. */
export const MAX_STATE_SEGMENTS = 8_192;

export function totalChars(shape: PromptShape): number {
  return shape.chars.reduce((sum, chars) => sum + chars, 0);
}

/**
 * Characters of the leading segments `next` shares with `previous`. The first segment (the body
 * outside its conversation) counts as shared whatever it holds: clients put per-request values
 * there (Codex's metadata) that no provider caches on, and it is the same in the request as sent
 * and unmasked, so it cancels out of the difference the counterfactual takes. Whether the cache
 * was warm at all is the provider's to say (its reads).
 */
export function sharedChars(previous: PromptShape | undefined, next: PromptShape): number {
  if (!previous) return 0;
  let shared = next.chars[0] ?? 0;
  const count = Math.min(previous.digests.length, next.digests.length);
  for (let index = 1; index < count; index++) {
    if (previous.digests[index] !== next.digests[index]) break;
    shared += next.chars[index]!;
  }
  return shared;
}

function bounded(shape: PromptShape): PromptShape {
  return shape.digests.length <= MAX_STATE_SEGMENTS
    ? shape
    : {
        digests: shape.digests.slice(0, MAX_STATE_SEGMENTS),
        chars: shape.chars.slice(0, MAX_STATE_SEGMENTS),
      };
}

/**
 * One request's step: the state after it, and its counterfactual when the provider reported its
 * prompt tokens (undefined otherwise: the state keeps the shapes, the calibration is unchanged).
 */
export function stepNet(
  state: NetState | undefined,
  step: NetStep,
): { state: NetState; counterfactual?: Counterfactual; estimatedPromptTokens?: number } {
  const sentChars = totalChars(step.sent);
  // The prompt as the conversation's calibration so far predicts it, before this report.
  const estimated =
    state && state.sentChars > 0
      ? { estimatedPromptTokens: Math.round((state.reportedTokens / state.sentChars) * sentChars) }
      : {};
  const { promptTokens } = step.usage;
  const reportedTokens = (state?.reportedTokens ?? 0) + (promptTokens ?? 0);
  const allSent = (state?.sentChars ?? 0) + (promptTokens !== undefined ? sentChars : 0);
  const next: NetState = {
    unmasked: bounded(step.unmasked),
    sent: bounded(step.sent),
    at: step.at,
    reportedTokens,
    sentChars: allSent,
  };
  if (promptTokens === undefined || allSent === 0) return { state: next, ...estimated };
  const perChar = reportedTokens / allSent;
  const read = step.usage.cachedTokens ?? 0;
  const written = step.usage.cacheWriteTokens ?? 0;
  const plain = Math.max(0, promptTokens - read - written);
  const prompt = Math.max(
    0,
    promptTokens + Math.round(perChar * (totalChars(step.unmasked) - sentChars)),
  );
  // Cold for both when the provider read nothing, or after the idle gap since the last request.
  const warm = read > 0 && (state === undefined || step.at - state.at <= step.idleGapMs);
  const sharedDelta =
    sharedChars(state?.unmasked, step.unmasked) - sharedChars(state?.sent, step.sent);
  const readUnmasked = warm
    ? Math.min(prompt, Math.max(0, read + Math.round(perChar * sharedDelta)))
    : 0;
  return {
    state: next,
    ...estimated,
    counterfactual: {
      promptTokens: prompt,
      cachedTokens: readUnmasked,
      cacheWriteTokens: Math.max(0, prompt - readUnmasked - plain),
    },
  };
}

/** A prompt's figures as billed, in input-token equivalents. */
export function billedTokens(
  figures: { promptTokens: number; cachedTokens?: number; cacheWriteTokens?: number },
  economics: Pick<CacheEconomics, 'cacheReadPrice' | 'cacheWritePrice'>,
): number {
  const read = figures.cachedTokens ?? 0;
  const written = figures.cacheWriteTokens ?? 0;
  const plain = Math.max(0, figures.promptTokens - read - written);
  return plain + read * economics.cacheReadPrice + written * economics.cacheWritePrice;
}
