/**
 * One model request through the gateway, step by step over one `ModelExchange`:
 *
 * 1. find its upstream (a request with none, or with a path that would leave it, is answered here);
 * 2. read its body, bounded: 413 past `maxBodyBytes`; 503 `BUSY` with `Retry-After` when the
 *    gateway's in-flight budget has no room for it (request-bounds.ts), the body not kept: the
 *    room is taken by its declared length before anything is read, or chunk by chunk;
 * 3. mask it (mask-exchange.ts), for the requests that carry a conversation, in its turn among
 *    the passes the gateway runs at once (request-bounds.ts);
 * 4. forward it, streaming the answer back while reading the provider's usage report;
 * 5. record the usage and the conversation's state after the answer (record-exchange.ts).
 *
 * The exchange is closed on every path (its conversation lease released), and the body's room in
 * the budget is given back with it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerUnread, readBody } from '../body/read-body.js';
import type { ModelRoute, Protocol } from '../protocols/protocol.js';
import { PROTOCOLS } from '../protocols/protocols.js';
import { forward, type ForwardResult } from '../upstream/forward.js';
import { upstreamTarget, type UpstreamTarget } from '../upstream/upstreams.js';
import { UsageTap } from '../usage/usage-tap.js';
import type { GatewayContext } from './gateway-context.js';
import { maskExchange, type MaskedBody } from './mask-exchange.js';
import {
  hasBody,
  openExchange,
  replyError,
  type ModelExchange,
  type WireError,
} from './model-exchange.js';
import { recordExchange, type Recording } from './record-exchange.js';

/** Why a request has no upstream URL, as the client is told. */
function noUpstream(
  target: Exclude<UpstreamTarget, { kind: 'url' }>,
  protocol: Protocol,
): WireError {
  switch (target.kind) {
    case 'none':
      return {
        status: 502,
        code: 'NO_UPSTREAM',
        message: `no upstream is configured for ${protocol.kind} requests; start the gateway with --openai-upstream URL`,
      };
    case 'bad-location':
      return {
        status: 400,
        code: 'BAD_LOCATION',
        message: `${JSON.stringify(target.location)} is not a Vertex AI location (lowercase letters, digits and dashes, like us-central1)`,
      };
    case 'bad-path':
      return {
        status: 400,
        code: 'BAD_PATH',
        message: 'the request path would leave the upstream',
      };
  }
}

export async function handleModelRequest(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  route: ModelRoute,
): Promise<void> {
  const protocol = PROTOCOLS[route.protocol];
  const target = upstreamTarget(context.upstreams, route);
  if (target.kind !== 'url') {
    replyError(response, protocol, noUpstream(target, protocol));
    return;
  }
  let upstreamUrl = target.url;
  let owner: string | undefined;
  if (context.team) {
    const found = await context.team.access.modelOwner(request);
    if (found.kind === 'refused') {
      refuseUnread(request, response, protocol, found);
      return;
    }
    owner = found.owner;
    if (found.replace) upstreamUrl = withTeamKey(request, upstreamUrl, found.replace);
  }
  const arrivedAt = context.now();
  const startedMs = performance.now();
  const room = context.bodyBudget.open();
  try {
    let raw: Buffer | undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const read = await readBody(request, context.maxBodyBytes, room);
      if (read.kind !== 'read') {
        refuseUnread(
          request,
          response,
          protocol,
          read.kind === 'too-large' ? tooLarge(context) : busy(context),
        );
        return;
      }
      raw = read.body;
    }
    const exchange = openExchange({
      request,
      response,
      route,
      protocol,
      upstreamUrl,
      ...(owner !== undefined ? { owner } : {}),
      raw,
      arrivedAt,
      startedMs,
      readMs: raw ? performance.now() - startedMs : 0,
    });
    try {
      let masked: MaskedBody = { body: raw ?? '', failures: 0 };
      if (hasBody(exchange) && (route.action === 'mask' || route.action === 'countTokens')) {
        // In turn among the passes of every conversation; a client gone while it waits: done.
        const release = await context.passSlots.acquire(exchange.signal);
        if (!release) return;
        let outcome: MaskedBody | undefined;
        try {
          outcome = await maskExchange(context, exchange);
        } finally {
          release();
        }
        if (!outcome) return;
        masked = outcome;
        // Memory is bounded once the body is written (a conversation asked to let its history go
        // in the middle of a pass does so when the pass ends: conversation.ts).
        context.conversations.trim();
      }
      await forwardExchange(context, exchange, masked);
    } finally {
      exchange.close();
    }
  } finally {
    room.release();
  }
}

/**
 * A virtual key replaced by the team's provider key where the client put it (a header, or
 * Gemini's `?key=`); returns the upstream URL to use.
 */
function withTeamKey(
  request: IncomingMessage,
  upstreamUrl: string,
  replace: { place: 'x-goog-api-key' | 'x-api-key' | 'authorization' | 'query'; value: string },
): string {
  if (replace.place === 'query') {
    const url = new URL(upstreamUrl);
    url.searchParams.set('key', replace.value);
    return url.toString();
  }
  request.headers[replace.place] =
    replace.place === 'authorization' ? `Bearer ${replace.value}` : replace.value;
  return upstreamUrl;
}

/** Seconds a client refused for lack of room is told to wait (`Retry-After`). */
const RETRY_AFTER_SECONDS = 1;

/** An answer to a body not read to its end, with the headers it adds. */
type Refusal = WireError & { headers?: Record<string, string> };

function tooLarge(context: GatewayContext): Refusal {
  return {
    status: 413,
    code: 'BODY_TOO_LARGE',
    message: `the request body is larger than ${context.maxBodyBytes} bytes (--max-body-mb)`,
  };
}

function busy(context: GatewayContext): Refusal {
  const megabytes = Math.round(context.bodyBudget.limitBytes / (1024 * 1024));
  return {
    status: 503,
    code: 'BUSY',
    message: `the gateway holds as many request bodies as it may at once (${megabytes} MB, --max-in-flight-mb); retry in a moment`,
    headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
  };
}

/**
 * A request answered before its body was read to its end, in the protocol's error style; the
 * client gets the answer before the connection closes (body/read-body.ts).
 */
function refuseUnread(
  request: IncomingMessage,
  response: ServerResponse,
  protocol: Protocol,
  error: Refusal,
): void {
  answerUnread(request, response, {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...error.headers },
    body: protocol.errorBody(error.status, error.code, error.message),
  });
}

/** Forwards the (masked) body and streams the answer back; records it when it was masked. */
async function forwardExchange(
  context: GatewayContext,
  exchange: ModelExchange,
  masked: MaskedBody,
): Promise<void> {
  const { request, response, route, protocol } = exchange;
  const gatewayMs = performance.now() - exchange.startedMs;
  const tap = new UsageTap((event) => protocol.usage(event));
  const rewrite = context.disableClientMasking
    ? protocol.clientMaskingOff(route.action)
    : undefined;
  const recordAnswer = (result: ForwardResult): Recording | undefined => {
    const { conversation } = masked;
    if (route.action !== 'mask' || !conversation) return undefined;
    const answered = { result, usage: tap.end() ?? {}, gatewayMs };
    return recordExchange(context, exchange, { ...masked, conversation }, answered);
  };
  // Started when the answer's last byte is written, before its end reaches the client, and
  // finished after: the client never waits for the disk, and its next request still finds
  // this one's state (the conversation's next pass waits its turn behind `finish`, and reads of
  // the stores wait for writes in flight: state/ordered-stores.ts).
  let recording: Recording | undefined;
  let recorded = false;
  const result = await forward({
    url: exchange.upstreamUrl,
    method: request.method ?? 'GET',
    headers: request.headers,
    ...(exchange.raw ? { body: masked.body } : {}),
    response,
    signal: exchange.signal,
    ...(context.dispatcher ? { dispatcher: context.dispatcher } : {}),
    onChunk: (chunk) => tap.feed(chunk),
    // Where the gateway's time went, for whoever measures it (bench/gatewayBench.mjs).
    timings: { read: exchange.readMs, mask: gatewayMs - exchange.readMs },
    ...(rewrite ? { rewriteJson: rewrite } : {}),
    onUnreachable: (error) =>
      replyError(response, protocol, {
        status: 502,
        code: 'UPSTREAM_UNREACHABLE',
        message: `the upstream ${new URL(exchange.upstreamUrl).origin} could not be reached (${String((error as Error)?.cause ?? (error as Error)?.message ?? error)})`,
      }),
    beforeEnd: (answered) => {
      recorded = true;
      recording = recordAnswer(answered);
      // A team gateway: the client's next request may reach another replica, which must find
      // this answer's state in the shared store (the usage record need not be there yet).
      return context.team ? recording?.state : undefined;
    },
  });
  // A request the client abandoned before it went out was never billed: nothing to record.
  const neverSent = result.outcome === 'client-gone' && result.status === 0;
  if (!recorded && !neverSent) recording = recordAnswer(result);
  await recording?.done;
}
