/**
 * The provider's own cache-cold signal, from what it reported about the last answer: a prompt
 * this large that it cached none of means it is not caching this conversation, so the next pass
 * may mask as at any cold moment (the other signal, the idle gap, is the masking middleware's).
 * And the state a conversation keeps after an answer for it: when it ended, and what the
 * provider said it cached.
 */
import type { ConversationMeta } from '../state/stores.js';

/** A prompt this large that the provider cached none of: it is not caching this conversation. */
export const MIN_CACHEABLE_PROMPT_TOKENS = 4_096;

/** What the provider reported of an answer's prompt (protocols' usage reports). */
export interface PromptUsage {
  promptTokens?: number;
  cachedTokens?: number;
  cacheWriteTokens?: number;
}

/** The provider reported that none of a large last prompt was cached. */
export function providerCacheCold(meta: ConversationMeta | undefined): boolean {
  return (
    meta?.lastPromptTokens !== undefined &&
    meta.lastPromptTokens >= MIN_CACHEABLE_PROMPT_TOKENS &&
    meta.lastCachedTokens === 0
  );
}

/** The conversation's state after an answer that ended at `endedAt` with `usage`. */
export function metaAfterAnswer(
  meta: ConversationMeta,
  usage: PromptUsage,
  endedAt: number,
): ConversationMeta {
  const after: ConversationMeta = { ...meta, lastEndedAt: endedAt };
  if (usage.promptTokens !== undefined) after.lastPromptTokens = usage.promptTokens;
  // What the provider holds in its cache after this answer: a prompt it wrote there (Anthropic
  // reports writes apart from reads) is cached for the next request, not a sign of a cold cache.
  if (usage.cachedTokens !== undefined) {
    after.lastCachedTokens = usage.cachedTokens + (usage.cacheWriteTokens ?? 0);
  }
  return after;
}
