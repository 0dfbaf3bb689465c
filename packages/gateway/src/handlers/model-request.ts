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
import { isUtf8 } from 'node:buffer';
import type { Content } from '@toolmask/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SESSION_HEADER, conversationKey } from '../conversation/conversation-key.js';
import type { PreparedRequest } from '../conversation/conversation.js';
import type { Front } from '../fronts/front.js';
import { IncrementalBody } from '../conversation/incremental-body.js';
import { FRONTS } from '../fronts/fronts.js';
import { withClientMaskingOff } from '../fronts/client-masking.js';
import { roundTripsExactly } from '../http/json-safety.js';
import { BodyTooLargeError, readBody } from '../http/read-body.js';
import { forward } from '../upstream/forward.js';
import type { RouteMatch } from '../upstream/routes.js';
import { upstreamUrl } from '../upstream/upstreams.js';
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

function record(
  context: GatewayContext,
  request: IncomingMessage,
  conversationId: string,
  model: string,
  prepared: PreparedRequest,
): void {
  context.conversations.trim();
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
  conversationId: string,
  error: unknown,
): MaskedBody {
  context.log(
    `[toolmask gateway] masking failed; the request goes out unmasked: ${String((error as Error)?.message ?? error)}`,
  );
  return { body: raw, conversationId, failures: 1 };
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
): Promise<MaskedBody | undefined> {
  const head = IncrementalBody.head(front.codec, raw);
  if (!head) return undefined;
  const conversationId = keyOf(request, front, raw, head);
  const conversation = context.conversations.get(conversationId);
  try {
    return await conversation.exclusive(async () => {
      const body = conversation.body(front.codec);
      const decoded = body.read(raw, route.model);
      if (!decoded) {
        body.reset();
        return undefined;
      }
      const { model, readToolName } = decoded.description;
      const prepared = await conversation.prepareNow(decoded.contents, {
        ...(readToolName ? { readToolName } : {}),
      });
      record(context, request, conversationId, model, prepared);
      return {
        body: prepared.changedIndices.length > 0 ? body.write(prepared.contents) : raw,
        conversationId,
        model,
        prepared,
        failures: prepared.result.failures.length + prepared.unsavedDecisions + decoded.unmaskable,
      };
    });
  } catch (error) {
    return failed(context, raw, conversationId, error);
  }
}

/** The whole-body path: for countTokens, and for any body the fast path cannot read. */
async function maskParsed(
  context: GatewayContext,
  request: IncomingMessage,
  route: RouteMatch,
  front: Front,
  raw: Buffer,
  parsed: unknown,
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
  try {
    const conversation = context.conversations.get(conversationId);
    if (route.action === 'countTokens') {
      const preview = await conversation.preview(frontRequest.contents);
      return { body: written(preview), conversationId, model: frontRequest.model, failures: 0 };
    }
    const prepared = await conversation.prepare(frontRequest.contents, {
      retainedBytes: raw.length,
      ...(frontRequest.readToolName ? { readToolName: frontRequest.readToolName } : {}),
    });
    record(context, request, conversationId, frontRequest.model, prepared);
    return {
      body: written(prepared),
      conversationId,
      model: frontRequest.model,
      prepared,
      failures:
        prepared.result.failures.length +
        prepared.unsavedDecisions +
        (frontRequest.unmaskable ?? 0),
    };
  } catch (error) {
    return failed(context, raw, conversationId, error);
  }
}

export async function handleModelRequest(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  route: RouteMatch,
): Promise<void> {
  const front = FRONTS[route.front];
  const target = upstreamUrl(context.upstreams, route);
  if (!target) {
    sendError(
      response,
      front,
      502,
      'NO_UPSTREAM',
      `no upstream is configured for ${front.kind} requests; start the gateway with --openai-upstream URL`,
    );
    return;
  }
  const arrived = context.now();
  const started = performance.now();
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  let raw: Buffer | undefined;
  if (hasBody) {
    try {
      raw = await readBody(request, context.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        sendError(response, front, 413, 'BODY_TOO_LARGE', `${error.message} (--max-body-mb)`);
        return;
      }
      throw error;
    }
  }

  let masked: MaskedBody = { body: raw ?? '', failures: 0 };
  if (raw && (route.action === 'mask' || route.action === 'countTokens')) {
    if (!isUtf8(raw)) {
      masked = { body: raw, failures: 1 };
    } else {
      const fast =
        route.action === 'mask'
          ? await maskIncrementally(context, request, route, front, raw)
          : undefined;
      if (fast) {
        masked = fast;
      } else {
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw.toString('utf8'));
        } catch (error) {
          sendError(
            response,
            front,
            400,
            'MALFORMED_JSON',
            `the request body is not valid JSON (${(error as Error).message})`,
          );
          return;
        }
        masked = await maskParsed(context, request, route, front, raw, parsed);
      }
    }
  }
  const gatewayMs = performance.now() - started;

  const tap = new UsageTap(front.usage);
  const result = await forward({
    url: target,
    method: request.method ?? 'GET',
    headers: request.headers,
    ...(hasBody ? { body: masked.body } : {}),
    response,
    fetch: context.fetch,
    onChunk: (chunk) => tap.feed(chunk),
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
  });
  if (route.action !== 'mask' || !masked.conversationId) return;

  const usage = tap.end() ?? {};
  const prepared = masked.prepared;
  const pass = prepared?.result;
  const record: UsageRecord = {
    at: arrived,
    conversationId: masked.conversationId,
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
  await context.recordUsage(record);
  const conversation = context.conversations.get(masked.conversationId);
  try {
    await conversation.finish(usage, {
      startedAt: conversation.meta?.startedAt ?? arrived,
      client: record.client,
      model: record.model,
    });
  } catch (error) {
    context.log(
      `[toolmask gateway] could not save the state of conversation ${masked.conversationId}: ${String((error as Error)?.message ?? error)}`,
    );
  }
}
