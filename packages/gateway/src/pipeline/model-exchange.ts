/**
 * One model request on its way through the gateway, as every step of the pipeline
 * (handle-model-request.ts) reads it: made once its upstream, its owner and its body are known,
 * and never changed after (each step returns what it finds; none sets fields here). `close()`
 * ends it on every path: the client's `close` no longer aborts it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import type { WireErrorCode } from '../errors.js';
import type { ModelRoute, Protocol } from '../protocols/protocol.js';
import { clientSessionSignal, sessionSignal } from '../protocols/session-signal.js';
import type { Outbound, RequestOwner } from '../server/tenancy.js';
import type { ClientKind } from '../usage/usage-record.js';

export interface ModelExchange {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly route: ModelRoute;
  readonly protocol: Protocol;
  /** Who it belongs to (the tenancy's). */
  readonly owner: RequestOwner;
  /** The agent CLI that sent it, by its user agent (usage-record.ts `clientOf`), read once. */
  readonly client: ClientKind;
  /** Where it goes upstream, and with which headers (the owner's key swap done). */
  readonly outbound: Outbound;
  /** The body as it came (none for a GET or HEAD). */
  readonly raw: Buffer | undefined;
  /** Aborted when the client goes away (a pass under way stops, the upstream call too). */
  readonly signal: AbortSignal;
  /** Epoch ms when it arrived (the usage record's time). */
  readonly arrivedAt: number;
  /** `performance.now()` when it arrived, and the milliseconds spent reading its body. */
  readonly startedMs: number;
  readonly readMs: number;
  /**
   * The masking settings for its client, looked up when it arrived (a `mask` request's only;
   * handle-model-request.ts says why then).
   */
  readonly maskingConfig: Promise<ToolOutputMaskingConfig> | undefined;
  /**
   * Its session signal (protocols/session-signal.ts), read once when first asked: the
   * conversation key and the usage record both need it, and finding it may walk the body.
   */
  session(): Promise<string | undefined>;
  /** The client's own session id (the launcher's header aside), read once when first asked. */
  clientSession(): Promise<string | undefined>;
  close(): void;
}

/** An exchange with a body (what the masking step is given). */
export type ExchangeWithBody = ModelExchange & { readonly raw: Buffer };

export function hasBody(exchange: ModelExchange): exchange is ExchangeWithBody {
  return exchange.raw !== undefined;
}

/** An error the gateway answers itself, in the protocol's style. */
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
  fields: Omit<ModelExchange, 'signal' | 'session' | 'clientSession' | 'close'>,
): ModelExchange {
  // Armed now: a client that goes away while the pass runs stops it and the upstream call.
  const controller = new AbortController();
  const { response, protocol, request, raw } = fields;
  const clientGone = () => {
    if (!response.writableFinished) controller.abort();
  };
  response.on('close', clientGone);
  let session: Promise<string | undefined> | undefined;
  let clientSession: Promise<string | undefined> | undefined;
  return {
    ...fields,
    signal: controller.signal,
    session: () => (session ??= sessionSignal(protocol, request.headers, raw)),
    clientSession: () => (clientSession ??= clientSessionSignal(protocol, request.headers, raw)),
    close() {
      response.off('close', clientGone);
    },
  };
}
