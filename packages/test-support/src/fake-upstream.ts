/**
 * A scripted loopback upstream for the gateway's tests: it records every request exactly as it
 * arrived (raw bytes, headers, parsed JSON) and answers from a responder, as JSON, as server-sent
 * events (optionally cut mid-stream), or as an error. Helpers build Gemini, Code Assist and
 * OpenAI answers, and a usage report that plays a provider's prefix cache (cached tokens = the
 * part of the conversation unchanged since the previous request), so tests can count cache hits.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedUpstreamRequest {
  seq: number;
  method: string;
  /** Path without the query. */
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  /** The parsed body when it is JSON. */
  json?: unknown;
}

export type UpstreamReply =
  | { status?: number; json: unknown; headers?: Record<string, string> }
  | {
      status?: number;
      /** Each event is sent as `data: <JSON>`; a string as it is (e.g. `[DONE]`). */
      sse: unknown[];
      /** Cut the connection after this many events (an upstream that dies mid-stream). */
      cutAfter?: number;
      /** Milliseconds between events. */
      intervalMs?: number;
    }
  | { status: number; text: string; contentType?: string };

export type UpstreamResponder = (
  request: RecordedUpstreamRequest,
) => UpstreamReply | Promise<UpstreamReply>;

export interface FakeUpstream {
  readonly url: string;
  readonly requests: RecordedUpstreamRequest[];
  /** Requests whose path matches. */
  matching(pattern: RegExp): RecordedUpstreamRequest[];
  close(): Promise<void>;
}

export async function startFakeUpstream(respond: UpstreamResponder): Promise<FakeUpstream> {
  const requests: RecordedUpstreamRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const [path = '/', query = ''] = (request.url ?? '/').split('?');
      const recorded: RecordedUpstreamRequest = {
        seq: requests.length,
        method: request.method ?? 'GET',
        path,
        query,
        headers: request.headers,
        raw,
      };
      try {
        recorded.json = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
      } catch {
        // not JSON: recorded raw only
      }
      requests.push(recorded);
      Promise.resolve(respond(recorded))
        .then((reply) => send(response, reply))
        .catch((error: unknown) => {
          response.writeHead(500).end(String(error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    matching: (pattern) => requests.filter((request) => pattern.test(request.path)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function send(response: http.ServerResponse, reply: UpstreamReply): Promise<void> {
  if ('json' in reply) {
    response
      .writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers })
      .end(JSON.stringify(reply.json));
    return;
  }
  if ('text' in reply) {
    response
      .writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/json' })
      .end(reply.text);
    return;
  }
  response.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream' });
  response.flushHeaders();
  for (const [index, event] of reply.sse.entries()) {
    if (reply.cutAfter !== undefined && index >= reply.cutAfter) {
      // Let what was written reach the client first: the cut comes mid-stream.
      await new Promise((resolve) => setTimeout(resolve, 50));
      response.socket?.destroy();
      return;
    }
    response.write(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\r\n\r\n`);
    if (reply.intervalMs) await new Promise((resolve) => setTimeout(resolve, reply.intervalMs));
  }
  response.end();
}

/** Tokens of a JSON value, roughly (4 characters a token): what the fake reports. */
export function roughTokens(value: unknown): number {
  return Math.ceil((JSON.stringify(value) ?? '').length / 4);
}

/**
 * A provider's prefix cache, per conversation key: cached tokens are the tokens of the longest
 * run of leading entries unchanged since that conversation's previous request.
 */
export class PrefixCache {
  private readonly previous = new Map<string, string[]>();

  usage(key: string, entries: readonly unknown[]): { prompt: number; cached: number } {
    const serialized = entries.map((entry) => JSON.stringify(entry));
    const before = this.previous.get(key) ?? [];
    let common = 0;
    while (
      common < before.length &&
      common < serialized.length &&
      before[common] === serialized[common]
    ) {
      common++;
    }
    this.previous.set(key, serialized);
    const tokensOf = (list: string[]) =>
      list.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
    return { prompt: tokensOf(serialized), cached: tokensOf(serialized.slice(0, common)) };
  }
}

/** A Gemini API streamed answer with these parts and usage. */
export function geminiAnswer(
  parts: unknown[],
  usage?: { prompt: number; cached: number },
): UpstreamReply {
  const usageMetadata = usage
    ? {
        promptTokenCount: usage.prompt,
        ...(usage.cached > 0 ? { cachedContentTokenCount: usage.cached } : {}),
        candidatesTokenCount: 7,
        totalTokenCount: usage.prompt + 7,
      }
    : undefined;
  return {
    sse: [
      {
        candidates: [{ index: 0, content: { role: 'model', parts }, finishReason: 'STOP' }],
        ...(usageMetadata ? { usageMetadata } : {}),
      },
    ],
  };
}

/** The same answer wrapped the way Code Assist wraps it. */
export function codeAssistAnswer(
  parts: unknown[],
  usage?: { prompt: number; cached: number },
): UpstreamReply {
  const answer = geminiAnswer(parts, usage) as { sse: unknown[] };
  return { sse: answer.sse.map((event) => ({ response: event, traceId: 'fake' })) };
}

/** An OpenAI chat completions stream: content and/or tool calls, then usage, then [DONE]. */
export function openAiAnswer(
  message: { content?: string; toolCalls?: Array<{ id: string; name: string; arguments: string }> },
  usage?: { prompt: number; cached?: number },
): UpstreamReply {
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: 'fake' };
  const events: unknown[] = [];
  if (message.content) {
    events.push({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: message.content } }],
    });
  }
  for (const [index, call] of (message.toolCalls ?? []).entries()) {
    events.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index,
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: call.arguments },
              },
            ],
          },
        },
      ],
    });
  }
  events.push({
    ...base,
    choices: [
      { index: 0, delta: {}, finish_reason: message.toolCalls?.length ? 'tool_calls' : 'stop' },
    ],
  });
  if (usage) {
    events.push({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: 5,
        total_tokens: usage.prompt + 5,
        ...(usage.cached !== undefined
          ? { prompt_tokens_details: { cached_tokens: usage.cached } }
          : {}),
      },
    });
  }
  events.push('[DONE]');
  return { sse: events };
}

/**
 * An upstream whose model calls `run_shell_command` (call ids `call-<step>`) until the
 * conversation holds `steps` calls, then answers `done`; usage per step when `usage` is given.
 * A step is a model turn and its answer: `contents.length / 2` of the request.
 */
export function shellCallingUpstream(
  steps: number,
  usage?: (step: number) => { prompt: number; cached: number },
): Promise<FakeUpstream> {
  return startFakeUpstream((request) => {
    const contents = ((request.json as { contents?: unknown[] })?.contents ?? []) as unknown[];
    const step = Math.floor(contents.length / 2);
    return geminiAnswer(
      step < steps
        ? [{ functionCall: { id: `call-${step}`, name: 'run_shell_command', args: { n: step } } }]
        : [{ text: 'done' }],
      usage?.(step),
    );
  });
}
