/**
 * Forwards one request upstream and streams the answer back as it arrives, chunk by chunk, with
 * backpressure (no whole-response buffering). A client that goes away aborts the upstream request
 * (the caller's signal, which it arms when the request arrives: a client gone while the pass ran
 * never reaches upstream); an upstream that cuts the stream cuts the client's too (its headers are
 * already sent, so there is no status left to change). Upstream errors come back with their own
 * status and body.
 *
 * The call is undici's `request`, not `fetch`: the body goes out as the Buffer it is (fetch copied
 * it into a web stream first) and the answer is read as a Node stream, without web streams' extra
 * hops per chunk. It follows no redirect and decodes no content-encoding: the answer's bytes reach
 * the client as upstream sent them, with their own encoding and length headers.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { type Dispatcher, request as undiciRequest } from 'undici';
import { PiecedBody, type SentBody } from '../body/pieced-body.js';
import { clientResponseHeaders, upstreamRequestHeaders } from './headers.js';
import { splitCredentials } from './upstreams.js';

export type ForwardOutcome = 'complete' | 'client-gone' | 'upstream-cut' | 'unreachable';

export interface ForwardRequest {
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
  body?: SentBody;
  response: ServerResponse;
  /** Aborted when the client goes away (armed by the caller when the request arrived). */
  signal: AbortSignal;
  /** Where the request goes through; undici's global dispatcher when undefined (tests: a MockAgent). */
  dispatcher?: Dispatcher;
  /** Sees every chunk after it was written to the client (usage taps). */
  onChunk?: (chunk: Uint8Array) => void;
  /** Rewrites a whole (small) JSON answer before it is sent; used for nothing else. */
  rewriteJson?: (value: unknown) => unknown;
  /**
   * The gateway's own time on this request so far, in ms by phase: sent to the client in a
   * `Server-Timing` header, with the wait for upstream's answer headers added as `upstream`.
   */
  timings?: Record<string, number>;
  /** Writes the gateway's own error when the upstream cannot be reached. */
  onUnreachable: (error: unknown) => void;
  /**
   * Called after the answer's last byte was written and before the response ends: what it
   * starts is under way before the client sees the end (and sends its next request). Awaited
   * when it returns a promise (a team gateway: the conversation's state is in the shared store
   * before the client can send its next request to another replica).
   */
  beforeEnd?: (result: ForwardResult) => void | Promise<void>;
}

export interface ForwardResult {
  status: number;
  outcome: ForwardOutcome;
  /**
   * The client went away (`client-gone`, status 0) after the request had gone upstream, while
   * the answer was awaited: it went through the gateway (a Ctrl-C mid-turn), and may be billed.
   */
  sent?: true;
}

/** Resolves when `response` can take more, or is gone; leaves no listener behind. */
function drainedOrClosed(response: ServerResponse): Promise<void> {
  if (response.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/** A `Server-Timing` header (W3C Server Timing): `name;dur=ms` by phase. */
function serverTiming(timings: Record<string, number>): string {
  return Object.entries(timings)
    .map(([name, ms]) => `${name};dur=${ms.toFixed(2)}`)
    .join(', ');
}

export async function forward(request: ForwardRequest): Promise<ForwardResult> {
  const { response, signal } = request;
  if (signal.aborted || response.destroyed) return { status: 0, outcome: 'client-gone' };
  let upstream: Dispatcher.ResponseData;
  const sentAt = performance.now();
  // Credentials in an upstream's URL go as a header, unless the client sent its own.
  const { url, authorization } = splitCredentials(request.url);
  const outgoing = upstreamRequestHeaders(request.headers);
  if (authorization && outgoing['authorization'] === undefined) {
    outgoing['authorization'] = authorization;
  }
  const { body } = request;
  // Pieces go out one write each, under the body's declared length (no chunked framing).
  if (body instanceof PiecedBody) outgoing['content-length'] = String(body.length);
  try {
    upstream = await undiciRequest(url, {
      method: request.method as Dispatcher.HttpMethod,
      headers: outgoing,
      ...(body !== undefined && request.method !== 'GET' && request.method !== 'HEAD'
        ? {
            // Bytes go out as they are; a string is encoded once (one native call).
            body:
              typeof body === 'string'
                ? Buffer.from(body, 'utf8')
                : body instanceof PiecedBody
                  ? // An iterable body is undici's (its docs' Dispatcher.dispatch), not its types'.
                    (body.pieces as unknown as Buffer)
                  : body,
          }
        : {}),
      signal,
      ...(request.dispatcher ? { dispatcher: request.dispatcher } : {}),
    });
  } catch (error) {
    if (signal.aborted) return { status: 0, outcome: 'client-gone', sent: true };
    request.onUnreachable(error);
    return { status: 0, outcome: 'unreachable' };
  }
  const status = upstream.statusCode;
  const headers = clientResponseHeaders(upstream.headers);
  if (request.timings) {
    // After the upstream's own entries, if it sent any.
    const own = serverTiming({ ...request.timings, upstream: performance.now() - sentAt });
    const upstreamTimings = headers['server-timing'];
    headers['server-timing'] = upstreamTimings ? `${String(upstreamTimings)}, ${own}` : own;
  }
  if (request.rewriteJson && status >= 200 && status < 300) {
    return await sendRewritten(upstream, status, headers, request, response);
  }
  response.writeHead(status, headers);
  // Headers go out at once: a streaming client sees the answer start as soon as upstream does.
  response.flushHeaders();
  const result: ForwardResult = { status, outcome: 'complete' };
  try {
    for await (const chunk of upstream.body as AsyncIterable<Buffer>) {
      if (!response.write(chunk)) await drainedOrClosed(response);
      if (response.destroyed) return { ...result, outcome: 'client-gone' };
      request.onChunk?.(chunk);
    }
  } catch {
    if (signal.aborted || response.destroyed) return { ...result, outcome: 'client-gone' };
    response.destroy();
    return { ...result, outcome: 'upstream-cut' };
  }
  await request.beforeEnd?.(result);
  response.end();
  return result;
}

/**
 * A small JSON answer read whole and rewritten; a new body takes its own length. An encoded answer
 * (upstream ignored `accept-encoding: identity`) or one that is not the JSON expected goes on as
 * the bytes it was, with its own headers.
 */
async function sendRewritten(
  upstream: Dispatcher.ResponseData,
  status: number,
  headers: ReturnType<typeof clientResponseHeaders>,
  request: ForwardRequest,
  response: ServerResponse,
): Promise<ForwardResult> {
  let bytes: Buffer;
  try {
    bytes = Buffer.from(await upstream.body.arrayBuffer());
  } catch {
    if (request.signal.aborted || response.destroyed) return { status, outcome: 'client-gone' };
    response.destroy();
    return { status, outcome: 'upstream-cut' };
  }
  let body = bytes;
  const encoding = headers['content-encoding'];
  if (encoding === undefined || encoding === 'identity') {
    try {
      body = Buffer.from(JSON.stringify(request.rewriteJson?.(JSON.parse(bytes.toString('utf8')))));
      headers['content-length'] = String(body.length);
    } catch {
      // Not the JSON we expected: pass it on untouched.
    }
  }
  if (response.destroyed) return { status, outcome: 'client-gone' };
  response.writeHead(status, headers);
  response.end(body);
  request.onChunk?.(body);
  return { status, outcome: 'complete' };
}
