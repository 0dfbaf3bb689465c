/**
 * One model request through the gateway: read the body (bounded), find the conversation in it
 * (the front), let the conversation's pass mask it, forward it, stream the answer back while
 * reading the provider's usage report, then record the usage.
 *
 * Whatever goes wrong on the masking side, the original request goes out as it came and the
 * failure is counted: a body that is not valid UTF-8 or holds a number JavaScript cannot write back
 * exactly is forwarded untouched; so is one whose pass threw. Only a body that is not JSON at all,
 * or too large, is answered by the gateway itself (400, 413), in the protocol's error style.
 */
import { describeError } from '@toolmask/core/errors';
import { isUtf8 } from 'node:buffer';
import type { Content, ToolOutputMaskingConfig } from '@toolmask/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SESSION_HEADER, conversationKey } from '../conversation/conversation-key.js';
import type { Conversation, PreparedRequest } from '../conversation/conversation.js';
import type { Front } from '../fronts/front.js';
import { IncrementalBody } from '../conversation/incremental-body.js';
import { FRONTS } from '../fronts/fronts.js';
import { withClientMaskingOff } from '../fronts/client-masking.js';
import { roundTripsExactly } from '../http/json-safety.js';
import { BodyTooLargeError, readBody } from '../http/read-body.js';
import { forward, type ForwardResult } from '../upstream/forward.js';
import type { RouteMatch } from '../upstream/routes.js';
import { upstreamTarget } from '../upstream/upstreams.js';
import { UsageTap } from '../usage/usage-tap.js';
import { clientOf, type UsageRecord } from '../usage/usage-record.js';
import type { GatewayContext } from '../gateway-context.js';

function sendError(
  response: ServerResponse,
  front: Front,
  status: number,
  code: string,
  message: string,
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
    .end(front.errorBody(status, code, message));
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

interface MaskedBody {
  body: Buffer | string;
  conversationId?: string;
  /** The conversation, held (in flight) until the handler releases it. */
  conversation?: Conversation;
  model?: string;
  prepared?: PreparedRequest;
  /** Why masking was skipped or failed, for the record. */
  failures: number;
}

/** The conversation's key: the launcher's session header, or the body's own, and its head. */
function keyOf(request: IncomingMessage, front: Front, raw: Buffer, head: Buffer): string {
  const session = headerValue(request, SESSION_HEADER) ?? front.codec.session?.(raw);
  return conversationKey(session, head);
}

/**
 * The conversation of a body whose head can be found, held from here until the handler is done
 * with it (released there, or by the caller when it leaves the body to another path).
 */
function holdConversation(
  context: GatewayContext,
  request: IncomingMessage,
  front: Front,
  raw: Buffer,
): { conversationId: string; conversation: Conversation } | undefined {
  const head = IncrementalBody.head(front.codec, raw);
  if (!head) return undefined;
  const conversationId = keyOf(request, front, raw, head);
  return { conversationId, conversation: context.conversations.get(conversationId).hold() };
}

function record(
  context: GatewayContext,
  request: IncomingMessage,
  model: string,
  prepared: PreparedRequest,
): void {
  // No session id on metrics: a label per conversation would grow the exporter's memory and
  // a Prometheus server's series without bound (the masking log event carries it).
  context.telemetry.recordPass(prepared.result, {
    client: clientOf(headerValue(request, 'user-agent')),
    model,
  });
}

function failed(
  context: GatewayContext,
  raw: Buffer,
  conversation: Conversation,
  error: unknown,
): MaskedBody {
  context.log(
    `[toolmask gateway] masking failed; the request goes out unmasked: ${describeError(error)}`,
  );
  return { body: raw, conversationId: conversation.id, conversation, failures: 1 };
}

/**
 * The fast path: only what is new since the conversation's previous request is decoded, and only
 * what the pass changed is serialized (conversation/incremental-body.ts). Undefined when the body
 * is not of the shape it reads; the caller then parses it whole.
 */
async function maskIncrementally(
  context: GatewayContext,
  request: IncomingMessage,
  route: RouteMatch,
  front: Front,
  raw: Buffer,
  signal: AbortSignal,
  config: ToolOutputMaskingConfig,
): Promise<MaskedBody | undefined> {
  const held = holdConversation(context, request, front, raw);
  if (!held) return undefined;
  const { conversationId, conversation } = held;
  try {
    return await conversation.exclusive(async () => {
      const body = conversation.body(front.codec);
      const decoded = body.read(raw, route.model);
      if (!decoded) {
        body.reset();
        conversation.release();
        return undefined;
      }
      const { model, readToolName } = decoded.description;
      const prepared = await conversation.prepareNow(decoded.contents, {
        signal,
        config,
        keptAsSent: true,
        ...(readToolName ? { readToolName } : {}),
      });
      record(context, request, model, prepared);
      return {
        // The body as it came when nothing in it changed.
        body: decoded.write(prepared.contents),
        conversationId,
        conversation,
        model,
        prepared,
        // Tool outputs the front cannot read count once, in the request that brings them.
        failures:
          prepared.result.failures.length + prepared.unsavedDecisions + decoded.newUnmaskable,
      };
    });
  } catch (error) {
    return failed(context, raw, conversation, error);
  }
}

/**
 * Masking is off: the body goes out as it came, neither decoded nor kept, and is still counted for
 * its conversation (usage records, the dashboard). Undefined when the usual paths must read it:
 * its head cannot be found, or outputs of its conversation were masked before masking was turned
 * off (they stay masked, as the same bytes, so the provider's cache and the model's view hold;
 * the usual path applies them, and its pass, being off, masks nothing new).
 */
async function countedUnmasked(
  context: GatewayContext,
  request: IncomingMessage,
  front: Front,
  raw: Buffer,
): Promise<MaskedBody | undefined> {
  const held = holdConversation(context, request, front, raw);
  if (!held) return undefined;
  const { conversationId, conversation } = held;
  let maskedBefore: boolean;
  try {
    maskedBefore = await conversation.hasMaskedOutputs();
  } catch {
    maskedBefore = true; // unknown: the usual path finds out, and counts the failure
  }
  if (maskedBefore) {
    conversation.release();
    return undefined;
  }
  return { body: raw, conversationId, conversation, failures: 0 };
}

/** The whole-body path: for countTokens, and for any body the fast path cannot read. */
async function maskParsed(
  context: GatewayContext,
  request: IncomingMessage,
  route: RouteMatch,
  front: Front,
  raw: Buffer,
  parsed: unknown,
  signal: AbortSignal,
  config: ToolOutputMaskingConfig | undefined,
): Promise<MaskedBody> {
  const unchanged: MaskedBody = { body: raw, failures: 0 };
  const frontRequest = front.read(parsed, route.model);
  if (!frontRequest) return unchanged;
  if (!roundTripsExactly(parsed)) {
    context.log(
      `[toolmask gateway] a ${front.kind} request holds a number JSON cannot carry exactly; forwarded unmasked`,
    );
    return { ...unchanged, failures: 1 };
  }
  // The same key as the fast path's: the head's bytes as they came, when they can be found.
  const head =
    IncrementalBody.head(front.codec, raw) ?? Buffer.from(JSON.stringify(frontRequest.head));
  const conversationId = keyOf(request, front, raw, head);
  const written = (result: { contents: Content[]; changedIndices: number[] }) =>
    result.changedIndices.length > 0
      ? frontRequest.write(result.contents, result.changedIndices)
      : raw;
  if (route.action === 'countTokens') {
    try {
      const preview = await context.conversations
        .get(conversationId)
        .preview(frontRequest.contents);
      return { body: written(preview), conversationId, model: frontRequest.model, failures: 0 };
    } catch (error) {
      context.log(`[toolmask gateway] countTokens sent unmasked: ${describeError(error)}`);
      return { body: raw, failures: 1 };
    }
  }
  // Held from here until the handler is done with it.
  const conversation = context.conversations.get(conversationId).hold();
  try {
    const prepared = await conversation.prepare(frontRequest.contents, {
      signal,
      ...(config ? { config } : {}),
      retainedBytes: raw.length,
      ...(frontRequest.readToolName ? { readToolName: frontRequest.readToolName } : {}),
    });
    record(context, request, frontRequest.model, prepared);
    return {
      body: written(prepared),
      conversationId,
      conversation,
      model: frontRequest.model,
      prepared,
      failures:
        prepared.result.failures.length +
        prepared.unsavedDecisions +
        (frontRequest.unmaskable ?? 0),
    };
  } catch (error) {
    return failed(context, raw, conversation, error);
  }
}

export async function handleModelRequest(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  route: RouteMatch,
): Promise<void> {
  const front = FRONTS[route.front];
  const upstream = upstreamTarget(context.upstreams, route);
  if (upstream.kind === 'none') {
    sendError(
      response,
      front,
      502,
      'NO_UPSTREAM',
      `no upstream is configured for ${front.kind} requests; start the gateway with --openai-upstream URL`,
    );
    return;
  }
  if (upstream.kind === 'bad-location') {
    sendError(
      response,
      front,
      400,
      'BAD_LOCATION',
      `${JSON.stringify(upstream.location)} is not a Vertex AI location (lowercase letters, digits and dashes, like us-central1)`,
    );
    return;
  }
  if (upstream.kind === 'bad-path') {
    sendError(response, front, 400, 'BAD_PATH', 'the request path would leave the upstream');
    return;
  }
  const target = upstream.url;
  const arrived = context.now();
  const started = performance.now();
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  let raw: Buffer | undefined;
  let readMs = 0;
  if (hasBody) {
    try {
      raw = await readBody(request, context.maxBodyBytes);
      readMs = performance.now() - started;
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        sendError(response, front, 413, 'BODY_TOO_LARGE', `${error.message} (--max-body-mb)`);
        return;
      }
      throw error;
    }
  }

  // Armed now: a client that goes away while the pass runs stops it and the upstream call.
  const controller = new AbortController();
  const clientGone = () => {
    if (!response.writableFinished) controller.abort();
  };
  response.on('close', clientGone);
  let masked: MaskedBody = { body: raw ?? '', failures: 0 };
  try {
    if (raw && (route.action === 'mask' || route.action === 'countTokens')) {
      const outcome = await maskBody(
        context,
        request,
        response,
        route,
        front,
        raw,
        controller.signal,
      );
      if (!outcome) return;
      masked = outcome;
      // Memory is bounded once the body is written (a conversation asked to let its history go
      // in the middle of a pass does so when the pass ends: conversation.ts).
      context.conversations.trim();
    }
    const gatewayMs = performance.now() - started;
    const tap = new UsageTap(front.usage);
    const recordAnswer = async (result: ForwardResult) => {
      if (route.action !== 'mask' || !masked.conversation) return;
      await recordUsage(context, request, front, route, masked, tap, result, arrived, gatewayMs);
    };
    // Started when the answer's last byte is written, before its end reaches the client, and
    // finished after: the client never waits for the disk, and its next request still finds
    // this one's state (the conversation's next pass waits its turn behind `finish`, and reads of
    // the stores wait for writes in flight: state/ordered-stores.ts).
    let recording: Promise<void> | undefined;
    const result = await forward({
      url: target,
      method: request.method ?? 'GET',
      headers: request.headers,
      ...(hasBody ? { body: masked.body } : {}),
      response,
      signal: controller.signal,
      ...(context.dispatcher ? { dispatcher: context.dispatcher } : {}),
      onChunk: (chunk) => tap.feed(chunk),
      // Where the gateway's time went, for whoever measures it (bench/gatewayBench.mjs).
      timings: { read: readMs, mask: gatewayMs - readMs },
      ...(route.action === 'listExperiments' && context.disableClientMasking
        ? { rewriteJson: withClientMaskingOff }
        : {}),
      onUnreachable: (error) =>
        sendError(
          response,
          front,
          502,
          'UPSTREAM_UNREACHABLE',
          `the upstream ${new URL(target).origin} could not be reached (${String((error as Error)?.cause ?? (error as Error)?.message ?? error)})`,
        ),
      beforeEnd: (answered) => {
        recording = recordAnswer(answered);
      },
    });
    // A request the client abandoned before it went out was never billed: nothing to record.
    const neverSent = result.outcome === 'client-gone' && result.status === 0;
    if (!recording && !neverSent) recording = recordAnswer(result);
    await recording;
  } finally {
    response.off('close', clientGone);
    masked.conversation?.release();
  }
}

/**
 * The body masked, or undefined when the gateway answered the request itself (400). A body that
 * is not UTF-8 goes out as it came.
 */
async function maskBody(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  route: RouteMatch,
  front: Front,
  raw: Buffer,
  signal: AbortSignal,
): Promise<MaskedBody | undefined> {
  if (!isUtf8(raw)) return { body: raw, failures: 1 };
  // Read once for this request: its pass is given these (Conversation's PrepareOptions.config).
  const config = route.action === 'mask' ? await context.maskingConfig() : undefined;
  if (config) {
    if (!config.enabled) {
      const counted = await countedUnmasked(context, request, front, raw);
      if (counted) return counted;
    }
    const fast = await maskIncrementally(context, request, route, front, raw, signal, config);
    if (fast) return fast;
  }
  let parsed: unknown;
  try {
    const text = raw.toString('utf8');
    // A byte order mark is no part of the JSON text (RFC 8259 lets a parser ignore it).
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    sendError(
      response,
      front,
      400,
      'MALFORMED_JSON',
      `the request body is not valid JSON (${(error as Error).message})`,
    );
    return undefined;
  }
  return maskParsed(context, request, route, front, raw, parsed, signal, config);
}

/** The usage record of one answered request, and the conversation's state after it. */
async function recordUsage(
  context: GatewayContext,
  request: IncomingMessage,
  front: Front,
  route: RouteMatch,
  masked: MaskedBody,
  tap: UsageTap,
  result: ForwardResult,
  arrived: number,
  gatewayMs: number,
): Promise<void> {
  const conversation = masked.conversation as Conversation;
  const usage = tap.end() ?? {};
  const prepared = masked.prepared;
  const pass = prepared?.result;
  const record: UsageRecord = {
    at: arrived,
    conversationId: conversation.id,
    client: clientOf(headerValue(request, 'user-agent')),
    front: front.kind,
    model: masked.model ?? route.model,
    status: result.status,
    ...(usage.promptTokens !== undefined ? { promptTokens: usage.promptTokens } : {}),
    ...(usage.cachedTokens !== undefined ? { cachedTokens: usage.cachedTokens } : {}),
    ...(usage.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
    maskedOutputs: prepared?.maskedOutputs ?? 0,
    newlyMasked: pass?.maskedCount ?? 0,
    tokensKeptOut: prepared?.tokensKeptOut ?? 0,
    bytesOffloaded: pass?.offloaded.reduce((sum, output) => sum + output.bytes, 0) ?? 0,
    failures: masked.failures + (result.outcome === 'upstream-cut' ? 1 : 0),
    ...(pass?.trigger ? { trigger: pass.trigger } : {}),
    cacheLikelyCold: prepared?.cacheLikelyCold ?? false,
    gatewayMs,
  };
  context.telemetry.recordRequest(record);
  // The record and the conversation's state are separate files: written side by side.
  await Promise.all([
    context.recordUsage(record),
    finishConversation(context, conversation, usage, record, arrived),
  ]);
}

async function finishConversation(
  context: GatewayContext,
  conversation: Conversation,
  usage: { promptTokens?: number; cachedTokens?: number },
  record: UsageRecord,
  arrived: number,
): Promise<void> {
  try {
    // In turn with the conversation's passes: the next one sees this answer's time and usage.
    await conversation.exclusive(() =>
      conversation.finish(usage, {
        startedAt: conversation.meta?.startedAt ?? arrived,
        client: record.client,
        model: record.model,
      }),
    );
  } catch (error) {
    context.log(
      `[toolmask gateway] could not save the state of conversation ${conversation.id}: ${describeError(error)}`,
    );
  }
}
