/**
 * The masking step of a model request: find its conversation, decode the body (body/decode-body.ts:
 * the conversation's incremental reader, or whole), let the conversation's pass mask it, and write
 * the body to send.
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
import { eventLoopPauser } from '@toolmask/core/utils';
import {
  decodeBody,
  decodeWhole,
  type DecodedBody,
  type DecodedConversation,
} from '../body/decode-body.js';
import { headBytes } from '../body/element-reading.js';
import { conversationKey } from '../conversation/conversation-key.js';
import type { ConversationLease } from '../conversation/conversation-registry.js';
import type { Conversation } from '../conversation/conversation.js';
import type { StoreLookAhead } from '../conversation/conversation-sync.js';
import type { PreparedRequest } from '../conversation/prepared-request.js';
import { firstHeader } from '../server/access.js';
import { clientOf } from '../usage/usage-record.js';
import type { GatewayContext } from './gateway-context.js';
import { replyError, sessionSignal, type ExchangeWithBody } from './model-exchange.js';

/** The body to send, and what masking it found (the usage record's fields). */
export interface MaskedBody {
  body: Buffer | string;
  /** The conversation's, when the request belongs to one (held by the exchange's lease). */
  conversation?: Conversation;
  model?: string;
  prepared?: PreparedRequest;
  /** Outputs left unmasked for a failure (the record counts them). */
  failures: number;
}

/** The conversation a pass runs in, and the settings read for its request. */
interface PassTurn {
  conversation: Conversation;
  config: ToolOutputMaskingConfig;
  /** The store's catch-up read, started before the body was decoded. */
  lookAhead?: StoreLookAhead;
}

/**
 * The conversation's key: the launcher's session header, or the client's own (the protocol's
 * session header, else what its body says), and its head.
 */
async function keyOf(exchange: ExchangeWithBody, head: Buffer): Promise<string> {
  const session = await sessionSignal(exchange);
  // A team gateway's owners never share a conversation, however alike their sessions start.
  return conversationKey(
    exchange.owner !== undefined ? `${exchange.owner}\u0000${session ?? ''}` : session,
    head,
  );
}

/** The exchange's conversation, leased once (masking off, then on: the same key, one lease). */
function leaseConversation(
  context: GatewayContext,
  exchange: ExchangeWithBody,
  key: string,
): ConversationLease {
  if (!exchange.lease && context.team && exchange.owner !== undefined) {
    // Not awaited: the owner is what read-back checks later, never what this request needs.
    void context.team.claim(key, exchange.owner);
  }
  exchange.lease ??= context.conversations.lease(key);
  return exchange.lease;
}

/**
 * The body masked, or undefined when the gateway answered the request itself (400). Only for
 * `mask` and `countTokens` requests with a body.
 */
export async function maskExchange(
  context: GatewayContext,
  exchange: ExchangeWithBody,
): Promise<MaskedBody | undefined> {
  const { raw } = exchange;
  if (!isUtf8(raw)) return { body: raw, failures: 1 };
  const { codec } = exchange.protocol;
  const pause = eventLoopPauser();
  const head = await headBytes(codec, raw, pause);
  if (exchange.route.action === 'countTokens') {
    const decoded = await decodeWhole(codec, raw, exchange.route.model, pause);
    if (decoded.kind !== 'conversation') return passOver(context, exchange, decoded);
    return previewed(context, exchange, decoded, head);
  }
  // Read once for this request: its pass is given these.
  const config = (exchange.config = await context.maskingConfig());
  if (head && !config.enabled) {
    const counted = await countedUnmasked(context, exchange, await keyOf(exchange, head));
    if (counted) return counted;
  }
  if (head) {
    // The conversation is known before its body is read: its own reader decodes it, in turn.
    const key = await keyOf(exchange, head);
    const { conversation } = leaseConversation(context, exchange, key);
    return conversation.exclusive(async () => {
      // A team replica's read of what other replicas did, under way while the body is decoded.
      const lookAhead = conversation.lookAhead();
      let decoded: DecodedBody;
      try {
        decoded = await decodeBody(
          conversation.bodies.reader(codec),
          raw,
          exchange.route.model,
          pause,
        );
      } catch (error) {
        return unmasked(context, { exchange, conversation, error });
      }
      return passOver(context, exchange, decoded, {
        conversation,
        config,
        ...(lookAhead ? { lookAhead } : {}),
      });
    });
  }
  const decoded = await decodeWhole(codec, raw, exchange.route.model, pause);
  if (decoded.kind !== 'conversation') return passOver(context, exchange, decoded);
  // The same key as the incremental path's would be: the head as it came, here re-serialized.
  const key = await keyOf(exchange, Buffer.from(JSON.stringify(decoded.head)));
  const { conversation } = leaseConversation(context, exchange, key);
  return conversation.exclusive(() =>
    passOver(context, exchange, decoded, { conversation, config }),
  );
}

/**
 * The pass over a decoded body, in its conversation's turn. A body with no conversation to mask
 * lets its lease go: it belongs to none.
 */
async function passOver(
  context: GatewayContext,
  exchange: ExchangeWithBody,
  decoded: DecodedBody,
  turn?: PassTurn,
): Promise<MaskedBody | undefined> {
  const { raw } = exchange;
  if (decoded.kind !== 'conversation' || !turn) {
    exchange.lease?.release();
    exchange.lease = undefined;
    if (decoded.kind === 'malformed') {
      replyError(exchange.response, exchange.protocol, {
        status: 400,
        code: 'MALFORMED_JSON',
        message: `the request body is not valid JSON (${decoded.message})`,
      });
      return undefined;
    }
    if (decoded.kind === 'inexact') {
      context.log(
        `[toolmask gateway] a ${exchange.protocol.kind} request holds a number JSON cannot carry exactly; forwarded unmasked`,
      );
      return { body: raw, failures: 1 };
    }
    if (decoded.kind === 'heavy') {
      context.log(
        `[toolmask gateway] a ${exchange.protocol.kind} request holds more JSON values than the gateway parses at once; forwarded unmasked`,
      );
      return { body: raw, failures: 1 };
    }
    return { body: raw, failures: 0 };
  }
  const { conversation, config, lookAhead } = turn;
  const { model } = decoded.description;
  // The name the model knows the read-back tool by: what this request declares, else what an
  // earlier request of the conversation declared.
  const readToolName = conversation.readToolName(decoded.description.readToolName);
  try {
    const prepared = await conversation.prepareInTurn(decoded.contents, {
      config,
      signal: exchange.signal,
      ...(readToolName ? { readToolName } : {}),
      // The provider's cache economics: the pass's warm trigger and the idle gap.
      cache: exchange.protocol.cache,
      ...(lookAhead ? { lookAhead } : {}),
      ...(decoded.incremental ? { keptAsSent: true } : { retainedBytes: raw.length }),
    });
    // No session id on metrics: a label per conversation would grow the exporter's memory and
    // a Prometheus server's series without bound (the masking log event carries it).
    context.telemetry.recordPass(prepared.result, {
      client: clientOf(firstHeader(exchange.request, 'user-agent')),
      model,
    });
    return {
      // The body as it came when nothing in it changed.
      body: await decoded.write(prepared.contents, prepared.changedIndices),
      conversation,
      model,
      prepared,
      // Tool outputs the protocol cannot read count once, in the request that brings them.
      failures:
        prepared.result.failures.length +
        prepared.unsavedDecisions +
        decoded.unmaskable +
        (prepared.storeBehind ? 1 : 0),
    };
  } catch (error) {
    return unmasked(context, { exchange, conversation, error });
  }
}

/** The request goes out as it came after a failure on the masking side, counted once. */
function unmasked(
  context: GatewayContext,
  failed: { exchange: ExchangeWithBody; conversation: Conversation; error: unknown },
): MaskedBody {
  context.log(
    `[toolmask gateway] masking failed; the request goes out unmasked: ${describeError(failed.error)}`,
  );
  return { body: failed.exchange.raw, conversation: failed.conversation, failures: 1 };
}

/** countTokens: what is already decided applied, without a pass and without changing any state. */
async function previewed(
  context: GatewayContext,
  exchange: ExchangeWithBody,
  decoded: DecodedConversation,
  head: Buffer | undefined,
): Promise<MaskedBody> {
  // The same key as the masked requests': the head's bytes as they came, when they can be found.
  const key = await keyOf(exchange, head ?? Buffer.from(JSON.stringify(decoded.head)));
  try {
    const preview = await context.conversations.get(key).preview(decoded.contents);
    return {
      body: await decoded.write(preview.contents, preview.changedIndices),
      model: decoded.description.model,
      failures: 0,
    };
  } catch (error) {
    context.log(`[toolmask gateway] countTokens sent unmasked: ${describeError(error)}`);
    return { body: exchange.raw, failures: 1 };
  }
}

/**
 * Masking is off: the body goes out as it came, neither decoded nor kept, and is still counted for
 * its conversation (usage records, the dashboard). Undefined when outputs of its conversation were
 * masked before masking was turned off: they stay masked, as the same bytes, so the provider's
 * cache and the model's view hold; the usual path applies them, and its pass, being off, masks
 * nothing new.
 */
async function countedUnmasked(
  context: GatewayContext,
  exchange: ExchangeWithBody,
  key: string,
): Promise<MaskedBody | undefined> {
  const { conversation } = leaseConversation(context, exchange, key);
  let maskedBefore: boolean;
  try {
    maskedBefore = await conversation.hasMaskedOutputs();
  } catch {
    maskedBefore = true; // unknown: the usual path finds out, and counts the failure
  }
  if (maskedBefore) return undefined;
  return { body: exchange.raw, conversation, failures: 0 };
}
