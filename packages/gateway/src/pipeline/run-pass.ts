/**
 * The pass over a decoded body, in its conversation's turn (mask-exchange.ts decides which body
 * and which conversation): the conversation's pass masks the contents, and the body to send is
 * written from what it returns. And what a body that holds no conversation to mask becomes.
 *
 * Never throws: a pass that throws sends the body as it came, the failure counted once; only a
 * body that is not JSON at all is answered by the gateway itself (400, `undefined` here).
 */
import type { SentBody } from '../body/pieced-body.js';
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import { describeError } from '@toolmask/core/errors';
import type { DecodedBody, DecodedConversation } from '../body/decode-body.js';
import type { BodySegments } from '../body/prompt-segments.js';
import type { StoreLookAhead } from '../conversation/conversation-sync.js';
import type { Conversation } from '../conversation/conversation.js';
import type { PreparedRequest } from '../conversation/prepared-request.js';
import { boundedModel } from '../server/caller-values.js';
import type { GatewayContext } from './gateway-context.js';
import { replyError, type ExchangeWithBody } from './model-exchange.js';

/** The body to send, and what masking it found (the usage record's fields). */
export interface MaskedBody {
  body: SentBody;
  /** The conversation's, when the request belongs to one (held by the request: conversation-hold.ts). */
  conversation?: Conversation;
  model?: string;
  prepared?: PreparedRequest;
  /**
   * Within the `mask` phase, in ms: the conversation's pass, and writing the body to send
   * (`Server-Timing`: the rest of `mask` is finding the conversation and decoding the body).
   */
  phases?: { pass: number; write: number };
  /** Outputs left unmasked for a failure (the record counts them). */
  failures: number;
  /** The net figures' segments of the body as it came and of `body`, when the reader has them. */
  segments?: () => BodySegments | undefined;
  /** The body as it came without its conversation (the array empty), when the reader has it. */
  outside?: () => Buffer;
  /**
   * The work that decides no byte of `body`, for after the send: the reader's (what the next
   * request's read checks against) and the decisions' append on a store only this gateway
   * writes. forward-exchange.ts runs it then; the next read and pass run theirs first if nobody
   * did.
   */
  settle?: () => Promise<void>;
}

/** The conversation a pass runs in, and the settings read for its request. */
export interface PassTurn {
  conversation: Conversation;
  config: ToolOutputMaskingConfig;
  /** The store's catch-up read, started before the body was decoded. */
  lookAhead?: StoreLookAhead;
}

/** A body with nothing to mask: as it came (a failure counted when it could not be read), or 400. */
export function notAConversation(
  context: GatewayContext,
  exchange: ExchangeWithBody,
  decoded: Exclude<DecodedBody, DecodedConversation>,
): MaskedBody | undefined {
  const { raw } = exchange;
  switch (decoded.kind) {
    case 'malformed':
      replyError(exchange.response, exchange.protocol, {
        status: 400,
        code: 'MALFORMED_JSON',
        message: `the request body is not valid JSON (${decoded.message})`,
      });
      return undefined;
    case 'not-utf8':
      return { body: raw, failures: 1 };
    case 'inexact':
      context.log(
        `[toolmask gateway] a ${exchange.protocol.kind} request holds a number JSON cannot carry exactly; forwarded unmasked`,
      );
      return { body: raw, failures: 1 };
    case 'heavy':
      context.log(
        `[toolmask gateway] a ${exchange.protocol.kind} request holds more JSON values than the gateway parses at once; forwarded unmasked`,
      );
      return { body: raw, failures: 1 };
    default:
      return { body: raw, failures: 0 };
  }
}

/** The pass over a decoded body, in its conversation's turn. */
export async function runPass(
  context: GatewayContext,
  exchange: ExchangeWithBody,
  decoded: DecodedBody,
  turn: PassTurn,
): Promise<MaskedBody | undefined> {
  if (decoded.kind !== 'conversation') return notAConversation(context, exchange, decoded);
  const { raw } = exchange;
  const { conversation, config, lookAhead } = turn;
  // Bounded for what toolmask keeps and labels; the body sent keeps the name as it came.
  const model = boundedModel(decoded.description.model);
  // The name the model knows the read-back tool by: what this request declares, else what an
  // earlier request of the conversation declared.
  const readToolName = conversation.readToolName(decoded.description.readToolName);
  try {
    const passStarted = performance.now();
    const prepared = await conversation.prepareInTurn(decoded.contents, {
      config,
      signal: exchange.signal,
      ...(readToolName ? { readToolName } : {}),
      // The provider's cache economics: the pass's warm trigger and the idle gap.
      cache: exchange.protocol.cache,
      ...(lookAhead ? { lookAhead } : {}),
      ...(decoded.incremental ? { keptAsSent: true } : { retainedBytes: raw.length }),
      sentBefore: decoded.sentBefore,
    });
    // No session id on metrics: a label per conversation would grow the exporter's memory and
    // a Prometheus server's series without bound (the masking log event carries it). Recorded
    // after the send (an instrument call per output masked: milliseconds on a cold request).
    const recordPass = () =>
      context.telemetry.recordPass(prepared.result, {
        client: exchange.client,
        model,
      });
    const settle = settleAfterSend(decoded, conversation, recordPass);
    const writeStarted = performance.now();
    // The body as it came when nothing in it changed.
    const body = await (decoded.send ?? decoded.write)(
      prepared.contents,
      prepared.changedIndices,
      prepared.differs,
    );
    return {
      body,
      phases: { pass: writeStarted - passStarted, write: performance.now() - writeStarted },
      conversation,
      model,
      prepared,
      ...(decoded.segments ? { segments: decoded.segments } : {}),
      ...(decoded.outside ? { outside: decoded.outside } : {}),
      settle,
      // Tool outputs the protocol cannot read count once, in the request that brings them.
      failures:
        prepared.result.failures.length +
        prepared.unsavedDecisions +
        decoded.unmaskable +
        (prepared.storeBehind ? 1 : 0),
    };
  } catch (error) {
    const settle = settleAfterSend(decoded, conversation);
    return { ...unmasked(context, exchange, conversation, error), settle };
  }
}

/**
 * What the request leaves for after its send: the pass's metrics (`record`, at once), the
 * reader's digests, the decisions' append.
 */
function settleAfterSend(
  decoded: DecodedConversation,
  conversation: Conversation,
  record?: () => void,
): () => Promise<void> {
  return async () => {
    record?.();
    await decoded.settle?.();
    await conversation.writeDecisions();
  };
}

/** The request goes out as it came after a failure on the masking side, counted once. */
export function unmasked(
  context: GatewayContext,
  exchange: ExchangeWithBody,
  conversation: Conversation,
  error: unknown,
): MaskedBody {
  context.log(
    `[toolmask gateway] masking failed; the request goes out unmasked: ${describeError(error)}`,
  );
  return { body: exchange.raw, conversation, failures: 1 };
}
