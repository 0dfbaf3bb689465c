/**
 * One model request through the gateway, step by step over one `ModelExchange`:
 *
 * 1. find its upstream (a request with none, or with a path that would leave it, is answered here);
 * 2. read its body (bounded: 413 past the limit);
 * 3. mask it (mask-exchange.ts), for the requests that carry a conversation;
 * 4. forward it, streaming the answer back while reading the provider's usage report;
 * 5. record the usage and the conversation's state after the answer (record-exchange.ts).
 *
 * The exchange is closed on every path (its conversation lease released).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError } from '../errors.js';
import { readBody } from '../body/read-body.js';
import { withClientMaskingOff } from '../protocols/gemini/client-masking.js';
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
import { recordExchange } from './record-exchange.js';

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
  const upstreamUrl = target.url;
  const arrivedAt = context.now();
  const startedMs = performance.now();
  let raw: Buffer | undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    try {
      raw = await readBody(request, context.maxBodyBytes);
    } catch (error) {
      if (!(error instanceof BodyTooLargeError)) throw error;
      replyError(response, protocol, {
        status: 413,
        code: 'BODY_TOO_LARGE',
        message: `${error.message} (--max-body-mb)`,
      });
      return;
    }
  }
  const exchange = openExchange({
    request,
    response,
    route,
    protocol,
    upstreamUrl,
    raw,
    arrivedAt,
    startedMs,
    readMs: raw ? performance.now() - startedMs : 0,
  });
  try {
    let masked: MaskedBody = { body: raw ?? '', failures: 0 };
    if (hasBody(exchange) && (route.action === 'mask' || route.action === 'countTokens')) {
      const outcome = await maskExchange(context, exchange);
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
  const recordAnswer = async (result: ForwardResult) => {
    const { conversation } = masked;
    if (route.action !== 'mask' || !conversation) return;
    const answered = { result, usage: tap.end() ?? {}, gatewayMs };
    await recordExchange(context, exchange, { ...masked, conversation }, answered);
  };
  // Started when the answer's last byte is written, before its end reaches the client, and
  // finished after: the client never waits for the disk, and its next request still finds
  // this one's state (the conversation's next pass waits its turn behind `finish`, and reads of
  // the stores wait for writes in flight: state/ordered-stores.ts).
  let recording: Promise<void> | undefined;
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
    ...(route.action === 'listExperiments' && context.disableClientMasking
      ? { rewriteJson: withClientMaskingOff }
      : {}),
    onUnreachable: (error) =>
      replyError(response, protocol, {
        status: 502,
        code: 'UPSTREAM_UNREACHABLE',
        message: `the upstream ${new URL(exchange.upstreamUrl).origin} could not be reached (${String((error as Error)?.cause ?? (error as Error)?.message ?? error)})`,
      }),
    beforeEnd: (answered) => {
      recording = recordAnswer(answered);
    },
  });
  // A request the client abandoned before it went out was never billed: nothing to record.
  const neverSent = result.outcome === 'client-gone' && result.status === 0;
  if (!recording && !neverSent) recording = recordAnswer(result);
  await recording;
}
