/**
 * The net figures' step of a recorded exchange (usage/net-billing.ts): the body as the client sent
 * it and as it went, measured, and the conversation's state stepped with the provider's usage. Run
 * in the conversation's turn (its state is the previous request's); the counterfactual goes into
 * the usage record, the state into the conversation's meta (saved with it, so every gateway
 * sharing the conversation store shares it). A body that cannot be measured (too large, not JSON) leaves the record without one
 * and the state forgotten: the next request starts a fresh calibration.
 */
import type { UsageReport } from '../protocols/protocol.js';
import type { ConversationMeta } from '../state/stores.js';
import { stepNet } from '../usage/net-billing.js';
import { promptShape } from '../usage/prompt-shape.js';
import type { UsageRecord } from '../usage/usage-record.js';
import type { ModelExchange } from './model-exchange.js';

/** The meta's next `net`, with the record's counterfactual figures set when the step gives them. */
export function netStep(
  exchange: ModelExchange,
  sentBody: Buffer | string,
  previous: ConversationMeta | undefined,
  usage: UsageReport,
  record: UsageRecord,
): ConversationMeta['net'] {
  const { raw, protocol } = exchange;
  if (raw === undefined) return undefined;
  const arrayPath = protocol.codec.arrayPath;
  const unmasked = promptShape(raw, arrayPath);
  const sent = sentBody === raw ? unmasked : promptShape(sentBody, arrayPath);
  if (!unmasked || !sent) return undefined;
  const { state, counterfactual, estimatedPromptTokens } = stepNet(previous?.net, {
    unmasked,
    sent,
    usage,
    at: record.at,
    idleGapMs: protocol.cache.idleGapMs,
  });
  if (estimatedPromptTokens !== undefined) record.estimatedPromptTokens = estimatedPromptTokens;
  if (counterfactual) {
    record.unmaskedPromptTokens = counterfactual.promptTokens;
    record.unmaskedCachedTokens = counterfactual.cachedTokens;
    record.unmaskedCacheWriteTokens = counterfactual.cacheWriteTokens;
  }
  return state;
}
