/**
 * Forwards one request upstream and streams the answer back as it arrives, chunk by chunk, with
 * backpressure (no whole-response buffering). A client that goes away aborts the upstream request
 * (the caller's signal, which it arms when the request arrives: a client gone while the pass ran
 * never reaches upstream); an upstream that cuts the stream cuts the client's too (its headers are
 * already sent, so there is no status left to change). Upstream errors come back with their own
 * status and body.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { clientResponseHeaders, upstreamRequestHeaders } from './headers.js';

export type ForwardOutcome = 'complete' | 'client-gone' | 'upstream-cut' | 'unreachable';

export interface ForwardRequest {
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
  body?: Buffer | string;
  response: ServerResponse;
  /** Aborted when the client goes away (armed by the caller when the request arrived). */
  signal: AbortSignal;
  fetch: typeof fetch;
  /** Sees every chunk after it was written to the client (usage taps). */
  onChunk?: (chunk: Uint8Array) => void;
  /** Rewrites a whole (small) JSON answer before it is sent; used for nothing else. */
  rewriteJson?: (value: unknown) => unknown;
  /** Writes the gateway's own error when the upstream cannot be reached. */
  onUnreachable: (error: unknown) => void;
  /**
   * Runs after the answer's last byte was written and before the response ends, so what it
   * records is there by the time the client sees the end (and sends its next request).
   */
  beforeEnd?: (result: ForwardResult) => Promise<void>;
}

export interface ForwardResult {
  status: number;
  outcome: ForwardOutcome;
  /** Epoch ms of the first byte written to the client. */
  firstByteAt?: number;
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

export async function forward(request: ForwardRequest): Promise<ForwardResult> {
  const { response, signal } = request;
  if (signal.aborted || response.destroyed) return { status: 0, outcome: 'client-gone' };
  let upstream: Response;
  try {
    upstream = await request.fetch(request.url, {
      method: request.method,
      headers: upstreamRequestHeaders(request.headers),
      ...(request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD'
        ? {
            // A string body would be checked for lone surrogates by fetch, character by
            // character; bytes go as they are (encoding is one native call).
            body:
              typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body,
          }
        : {}),
      redirect: 'manual',
      signal,
    });
  } catch (error) {
    if (signal.aborted) return { status: 0, outcome: 'client-gone' };
    request.onUnreachable(error);
    return { status: 0, outcome: 'unreachable' };
  }
  const headers = clientResponseHeaders(upstream.headers);
  if (request.rewriteJson && upstream.ok && upstream.body) {
    return await sendRewritten(upstream, headers, request, response);
  }
  response.writeHead(upstream.status, headers);
  // Headers go out at once: a streaming client sees the answer start as soon as upstream does.
  response.flushHeaders();
  const result: ForwardResult = { status: upstream.status, outcome: 'complete' };
  if (upstream.body) {
    try {
      for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) {
        result.firstByteAt ??= Date.now();
        if (!response.write(chunk)) await drainedOrClosed(response);
        if (response.destroyed) return { ...result, outcome: 'client-gone' };
        request.onChunk?.(chunk);
      }
    } catch {
      if (signal.aborted || response.destroyed) return { ...result, outcome: 'client-gone' };
      response.destroy();
      return { ...result, outcome: 'upstream-cut' };
    }
  }
  await request.beforeEnd?.(result);
  response.end();
  return result;
}

async function sendRewritten(
  upstream: Response,
  headers: ReturnType<typeof clientResponseHeaders>,
  request: ForwardRequest,
  response: ServerResponse,
): Promise<ForwardResult> {
  const text = await upstream.text();
  let body = text;
  try {
    body = JSON.stringify(request.rewriteJson?.(JSON.parse(text)));
  } catch {
    // Not the JSON we expected: pass it on untouched.
  }
  response.writeHead(upstream.status, headers);
  response.end(body);
  request.onChunk?.(Buffer.from(body));
  return { status: upstream.status, outcome: 'complete', firstByteAt: Date.now() };
}
