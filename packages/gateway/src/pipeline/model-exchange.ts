/**
 * One model request on its way through the gateway: what every step of the pipeline
 * (handle-model-request.ts) reads and adds to, in one object instead of parameters passed along.
 * It is made once the upstream is known and the body read; `close()` ends it on every path: the
 * client's `close` no longer aborts it, and its conversation lease is released.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import type { ConversationLease } from '../conversation/conversation-registry.js';
import type { WireErrorCode } from '../errors.js';
import type { ModelRoute, Protocol } from '../protocols/protocol.js';
import { sessionSignal as protocolSessionSignal } from '../protocols/session-signal.js';

export interface ModelExchange {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly route: ModelRoute;
  readonly protocol: Protocol;
  /** Where it goes upstream. */
  readonly upstreamUrl: string;
  /** The body as it came (none for a GET or HEAD). */
  readonly raw: Buffer | undefined;
  /** Aborted when the client goes away (a pass under way stops, the upstream call too). */
  readonly signal: AbortSignal;
  /** Epoch ms when it arrived (the usage record's time). */
  readonly arrivedAt: number;
  /** `performance.now()` when it arrived, and the milliseconds spent reading its body. */
  readonly startedMs: number;
  readonly readMs: number;
  /** Who it belongs to, on a team gateway (server/team-access.ts). */
  readonly owner?: string;
  /** The masking settings, read once for this request (model requests that are masked). */
  config?: ToolOutputMaskingConfig;
  /** Its conversation, held from when it is known until `close`. */
  lease?: ConversationLease;
  /** Its session signal, once read (sessionSignal: the key and the usage record both need it). */
  session?: Promise<string | undefined>;
  close(): void;
}

/** An error the gateway answers itself, in the protocol's style. */
/** An exchange with a body (what the masking step is given). */
export type ExchangeWithBody = ModelExchange & { readonly raw: Buffer };

export function hasBody(exchange: ModelExchange): exchange is ExchangeWithBody {
  return exchange.raw !== undefined;
}

/**
 * The session the exchange says it belongs to: the launcher's session header, or the client's
 * own (its protocol's session header, else what its body says). One rule for the conversation key
 * (mask-exchange.ts) and the usage record's session (usage/side-request.ts).
 */
export function sessionSignal(exchange: ModelExchange): Promise<string | undefined> {
  // Read once: when the id is in the body, finding it walks the body.
  exchange.session ??= readSessionSignal(exchange);
  return exchange.session;
}

function readSessionSignal(exchange: ModelExchange): Promise<string | undefined> {
  return protocolSessionSignal(exchange.protocol, exchange.request.headers, exchange.raw);
}

export interface WireError {
  status: number;
  code: WireErrorCode;
  message: string;
}

/**
 * Answers with `error` in `protocol`'s style; a response already under way (its headers sent) can
 * only be cut.
 */
export function replyError(response: ServerResponse, protocol: Protocol, error: WireError): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response
    .writeHead(error.status, { 'content-type': 'application/json; charset=utf-8' })
    .end(protocol.errorBody(error.status, error.code, error.message));
}

export function openExchange(
  fields: Omit<ModelExchange, 'signal' | 'close' | 'config' | 'lease'>,
): ModelExchange {
  // Armed now: a client that goes away while the pass runs stops it and the upstream call.
  const controller = new AbortController();
  const { response } = fields;
  const clientGone = () => {
    if (!response.writableFinished) controller.abort();
  };
  response.on('close', clientGone);
  const exchange: ModelExchange = {
    ...fields,
    signal: controller.signal,
    close() {
      response.off('close', clientGone);
      exchange.lease?.release();
    },
  };
  return exchange;
}
