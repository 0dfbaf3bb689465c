/**
 * The masking step of a model request: find its conversation, decode the body (body/decode-body.ts:
 * the conversation's incremental reader, or whole), let the conversation's pass mask it
 * (run-pass.ts), and write the body to send.
 *
 * Whatever goes wrong on the masking side, the original request goes out as it came and the
 * failure is counted: a body that is not valid UTF-8 or holds a number JavaScript cannot write back
 * exactly is forwarded untouched; so is one too heavy to parse without holding the event loop, and
 * one whose decoding or pass threw. Only a body that is not JSON at all is answered by the gateway
 * itself (400), in the protocol's error style.
 *
 * Every step gives the event loop a turn every few milliseconds (one pauser for the request's
 * decoding, core's own in the pass), so one request, however large, never keeps the gateway from
 * answering the others (bench/eventLoopBlocking.mjs).
 */
import { isUtf8 } from 'node:buffer';
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import { describeError } from '@toolmask/core/errors';
import type { EventLoopPauser } from '@toolmask/core/utils';
import { eventLoopPauser } from '@toolmask/core/utils';
import { decodeBody, decodeWhole, type DecodedBody } from '../body/decode-body.js';
import { headBytes } from '../body/element-reading.js';
import { conversationKey } from '../conversation/conversation-key.js';
import type { Conversation } from '../conversation/conversation.js';
import { boundedModel } from '../server/caller-values.js';
import type { ConversationHold } from './conversation-hold.js';
import type { GatewayContext } from './gateway-context.js';
import type { ExchangeWithBody } from './model-exchange.js';
import { notAConversation, runPass, unmasked, type MaskedBody } from './run-pass.js';

export type { MaskedBody } from './run-pass.js';

/**
 * The conversation's key: the session signal (the launcher's header, or the client's own) as its
 * owner scopes it, and its head.
 */
async function keyOf(exchange: ExchangeWithBody, head: Buffer): Promise<string> {
  return conversationKey(exchange.owner.scopeSession(await exchange.session()), head);
}

/**
 * The body masked, or undefined when the gateway answered the request itself (400). Only for
 * `mask` and `countTokens` requests with a body; the conversation is taken from `hold`.
 */
export async function maskExchange(
  context: GatewayContext,
  exchange: ExchangeWithBody,
  hold: ConversationHold,
): Promise<MaskedBody | undefined> {
  const { raw } = exchange;
  // Whether the body is UTF-8 is checked where it is decoded (decode-body.ts): the conversation's
  // reader checks only what it has not seen.
  const { codec } = exchange.protocol;
  const pause = eventLoopPauser();
  const head = await headBytes(codec, raw, pause);
  if (exchange.route.action === 'countTokens') return countTokens(context, exchange, head, pause);
  // Read once for this request (looked up as it arrived): its pass is given these (its client's
  // file: masking-settings.ts).
  const config = await (exchange.maskingConfig ?? context.maskingConfig(exchange.client));
  if (head) return maskInKnownConversation(context, exchange, hold, { head, config, pause });
  const decoded = await decodeWhole(codec, raw, exchange.route.model, pause);
  if (decoded.kind !== 'conversation') return notAConversation(context, exchange, decoded);
  // The same key as the incremental path's would be: the head as it came, here re-serialized.
  const key = await keyOf(exchange, Buffer.from(JSON.stringify(decoded.head)));
  const conversation = hold.take(key);
  return conversation.exclusive(() =>
    runPass(context, exchange, decoded, { conversation, config }),
  );
}

/**
 * The conversation is known before its body is read (its head's bytes were found): its own reader
 * decodes the body, in the conversation's turn. With masking off, a conversation that never had
 * an output masked gets its body as it came, neither decoded nor kept (still counted for it).
 */
async function maskInKnownConversation(
  context: GatewayContext,
  exchange: ExchangeWithBody,
  hold: ConversationHold,
  request: { head: Buffer; config: ToolOutputMaskingConfig; pause: EventLoopPauser },
): Promise<MaskedBody | undefined> {
  const { raw, protocol } = exchange;
  const { config, pause } = request;
  const conversation = hold.take(await keyOf(exchange, request.head));
  if (!config.enabled && !(await maskedBefore(conversation))) {
    return isUtf8(raw) ? { body: raw, conversation, failures: 0 } : { body: raw, failures: 1 };
  }
  return conversation.exclusive(async () => {
    // A replica's read of what other replicas did, under way while the body is decoded.
    const lookAhead = conversation.lookAhead();
    let decoded: DecodedBody;
    try {
      const reader = conversation.bodies.reader(protocol.codec);
      decoded = await decodeBody(reader, raw, exchange.route.model, pause);
    } catch (error) {
      return unmasked(context, exchange, conversation, error);
    }
    return runPass(context, exchange, decoded, {
      conversation,
      config,
      ...(lookAhead ? { lookAhead } : {}),
    });
  });
}

/**
 * Whether outputs of the conversation were masked before masking was turned off: they stay masked,
 * as the same bytes, so the provider's cache and the model's view hold; the usual path applies
 * them, and its pass, being off, masks nothing new.
 */
async function maskedBefore(conversation: Conversation): Promise<boolean> {
  try {
    return await conversation.hasMaskedOutputs();
  } catch {
    return true; // unknown: the usual path finds out, and counts the failure
  }
}

/** countTokens: what is already decided applied, without a pass and without changing any state. */
async function countTokens(
  context: GatewayContext,
  exchange: ExchangeWithBody,
  head: Buffer | undefined,
  pause: EventLoopPauser,
): Promise<MaskedBody | undefined> {
  const { raw, protocol, route } = exchange;
  const decoded = await decodeWhole(protocol.codec, raw, route.model, pause);
  if (decoded.kind !== 'conversation') return notAConversation(context, exchange, decoded);
  // The same key as the masked requests': the head's bytes as they came, when they can be found.
  const key = await keyOf(exchange, head ?? Buffer.from(JSON.stringify(decoded.head)));
  try {
    const preview = await context.conversations.get(key).preview(decoded.contents);
    return {
      body: await decoded.write(preview.contents, preview.changedIndices),
      model: boundedModel(decoded.description.model),
      failures: 0,
    };
  } catch (error) {
    context.log(`[toolmask gateway] countTokens sent unmasked: ${describeError(error)}`);
    return { body: raw, failures: 1 };
  }
}
