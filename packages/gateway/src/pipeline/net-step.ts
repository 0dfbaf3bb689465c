/**
 * The net figures' step of a recorded exchange (usage/net-billing.ts): the body as the client sent
 * it and as it went, measured, and the conversation's state stepped with the provider's usage. Run
 * in the conversation's turn (its state is the previous request's); the counterfactual goes into
 * the usage record, the state into the conversation's meta (saved with it, so every gateway
 * sharing the conversation store shares it). A body that cannot be measured (too large, not JSON)
 * leaves the record without one and the state forgotten: the next request starts a fresh
 * calibration. The measures come from the incremental reader (body/prompt-segments.ts: each element
 * measured once, when first parsed), else from parsing both bodies whole (usage/prompt-shape.ts).
 */
import { sentLength, wholeBody, type SentBody } from '../body/pieced-body.js';
import type { BodySegments } from '../body/prompt-segments.js';
import type { UsageReport } from '../protocols/protocol.js';
import type { ConversationMeta } from '../state/stores.js';
import { stepNet, type PromptShape } from '../usage/net-billing.js';
import { MAX_SHAPED_BYTES, promptShape } from '../usage/prompt-shape.js';
import type { UsageRecord } from '../usage/usage-record.js';
import type { ModelExchange } from './model-exchange.js';

/** The meta's next `net`, with the record's counterfactual figures set when the step gives them. */
export function netStep(
  exchange: ModelExchange,
  sentBody: { body: SentBody; segments?: () => BodySegments | undefined },
  previous: ConversationMeta | undefined,
  usage: UsageReport,
  record: UsageRecord,
): ConversationMeta['net'] {
  const { raw, protocol } = exchange;
  if (raw === undefined) return undefined;
  const shapes = shapesOf(raw, sentBody, protocol.codec.arrayPath);
  if (!shapes) return undefined;
  const { unmasked, sent } = shapes;
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

/**
 * Both bodies' shapes: from the incremental reader's segments when it has them (each element
 * measured once for the conversation, no body parsed again), else each body parsed whole. The
 * same figures either way (prompt-segments.test.ts), and the same bound on a body's size.
 */
function shapesOf(
  raw: Buffer,
  sentBody: { body: SentBody; segments?: () => BodySegments | undefined },
  arrayPath: readonly string[],
): { unmasked: PromptShape; sent: PromptShape } | undefined {
  const { body } = sentBody;
  if (raw.length > MAX_SHAPED_BYTES || sentLength(body) > MAX_SHAPED_BYTES) return undefined;
  const segments = sentBody.segments?.();
  if (segments) return segments;
  const unmasked = promptShape(raw, arrayPath);
  const sent = body === raw ? unmasked : promptShape(wholeBody(body), arrayPath);
  return unmasked && sent ? { unmasked, sent } : undefined;
}
