/**
 * One model request through the gateway, step by step, each step taking what it needs and
 * returning what it found:
 *
 * 1. its upstream (a request with none, or with a path that would leave it, is answered here);
 * 2. its owner, from the gateway's tenancy (server/tenancy.ts), with the key it goes upstream
 *    with; a request the tenancy refuses is answered here;
 * 3. its body, read bounded: 413 past `maxBodyBytes`; 503 `BUSY` with `Retry-After` when the
 *    gateway's in-flight budget has no room for it (request-bounds.ts), the body not kept: the
 *    room is taken by its declared length before anything is read (an owner who proved
 *    something), or chunk by chunk;
 * 4. masked (mask-exchange.ts), for the requests that carry a conversation, in its turn among
 *    the passes the gateway runs at once (request-bounds.ts);
 * 5. forwarded, the answer streamed back while the provider's usage report is read, and recorded
 *    after it (forward-exchange.ts, record-exchange.ts).
 *
 * This handler holds the request's conversation (conversation-hold.ts) and its body's room in the
 * budget, and gives both back when the request ends, on every path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import { answerUnread, readBody } from '../body/read-body.js';
import type { ModelRoute, Protocol } from '../protocols/protocol.js';
import { PROTOCOLS } from '../protocols/protocols.js';
import { firstHeader } from '../server/credentials.js';
import type { RequestOwner } from '../server/tenancy.js';
import { upstreamTarget, type UpstreamTarget } from '../upstream/upstreams.js';
import { clientOf, type ClientKind } from '../usage/usage-record.js';
import { ConversationHold } from './conversation-hold.js';
import { forwardExchange } from './forward-exchange.js';
import type { GatewayContext } from './gateway-context.js';
import { maskExchange, type MaskedBody } from './mask-exchange.js';
import {
  hasBody,
  openExchange,
  replyError,
  type ModelExchange,
  type WireError,
} from './model-exchange.js';
import type { BodyReservation } from './request-bounds.js';

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
  const admission = await context.tenancy.admitModelRequest(
    request,
    route.upstream,
    route.upstreamPath,
  );
  if (admission.kind === 'refused') {
    refuseUnread(request, response, protocol, admission);
    return;
  }
  const { owner } = admission;
  const outbound = owner.outbound(target.url, request.headers);
  const arrivedAt = context.now();
  const startedMs = performance.now();
  const room = context.bodyBudget.open();
  const hold = new ConversationHold(context.conversations, owner);
  const client = clientOf(firstHeader(request, 'user-agent'));
  const maskingConfig = settingsWhileReading(context, client, route);
  try {
    const body = await readRequestBody(context, request, room, owner);
    if (body.kind === 'refused') {
      refuseUnread(request, response, protocol, body.refusal);
      return;
    }
    const exchange = openExchange({
      ...{ request, response, route, protocol, owner, outbound, arrivedAt, startedMs },
      ...{ client, maskingConfig },
      raw: body.raw,
      readMs: body.raw ? performance.now() - startedMs : 0,
    });
    try {
      const masked = await maskInTurn(context, exchange, hold);
      if (masked) await forwardExchange(context, exchange, masked);
    } finally {
      exchange.close();
    }
  } finally {
    hold.release();
    room.release();
  }
}

/**
 * A `mask` request's masking settings (its client's, by its user agent), looked up as it arrives,
 * while its body is read: the lookup checks the settings file on disk (a turn of the thread pool),
 * which a request of a known conversation otherwise waited for after its last byte (about a
 * quarter of a millisecond of its `mask` phase, issue 30). A file changed while a body arrives
 * applies from the next request, as one changed during a pass does.
 */
function settingsWhileReading(
  context: GatewayContext,
  client: ClientKind,
  route: ModelRoute,
): Promise<ToolOutputMaskingConfig> | undefined {
  if (route.action !== 'mask') return undefined;
  const config = context.maskingConfig(client);
  // A request refused before its pass never awaits it: its failure must not go unhandled.
  config.catch(() => {});
  return config;
}

/**
 * The body of a request that has one (not a GET or HEAD), within the gateway's bounds. An owner
 * who proved nothing gets no room for a length they only declared: one connection with a made-up
 * key that declared the largest body and sent none took the whole budget for the 5 minutes a
 * request may take, and every other request got 503 (issue 33, attack A39).
 */
async function readRequestBody(
  context: GatewayContext,
  request: IncomingMessage,
  room: BodyReservation,
  owner: RequestOwner,
): Promise<{ kind: 'read'; raw: Buffer | undefined } | { kind: 'refused'; refusal: Refusal }> {
  if (request.method === 'GET' || request.method === 'HEAD')
    return { kind: 'read', raw: undefined };
  const read = await readBody(request, context.maxBodyBytes, room, await owner.proven());
  if (read.kind === 'read') return { kind: 'read', raw: read.body };
  return {
    kind: 'refused',
    refusal: read.kind === 'too-large' ? tooLarge(context) : busy(context),
  };
}

/**
 * The body to send: masked when the request carries a conversation, in turn among the passes of
 * every conversation; as it came otherwise. Undefined when the request is done already (the
 * gateway answered it, or its client went away while it waited).
 */
async function maskInTurn(
  context: GatewayContext,
  exchange: ModelExchange,
  hold: ConversationHold,
): Promise<MaskedBody | undefined> {
  const { action } = exchange.route;
  if (!hasBody(exchange) || (action !== 'mask' && action !== 'countTokens')) {
    return { body: exchange.raw ?? '', failures: 0 };
  }
  // Nothing kept for a request whose owner may keep nothing now (server/tenancy.ts `mayStore`):
  // it goes upstream as it came, with no conversation, so nothing is recorded for it either.
  if (!(await exchange.owner.mayStore())) return { body: exchange.raw, failures: 0 };
  const release = await context.passSlots.acquire(exchange.signal);
  if (!release) return undefined;
  // The queued output writes wait for the pass (and every other one under way) to end.
  const writesHeld = context.holdOutputWrites();
  let masked: MaskedBody | undefined;
  try {
    masked = await maskExchange(context, exchange, hold);
  } finally {
    writesHeld();
    release();
  }
  // Memory is bounded once the body is written (a conversation asked to let its history go
  // in the middle of a pass does so when the pass ends: conversation.ts).
  if (masked) context.conversations.trim();
  return masked;
}

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
