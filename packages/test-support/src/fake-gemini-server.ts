/**
 * A loopback HTTP server that speaks enough of the Gemini API for a real `GeminiClient` to talk
 * to it: `:streamGenerateContent?alt=sse` (server-sent events), `:generateContent` and
 * `:countTokens`. It records every request body, so a test sees exactly what the model was sent,
 * and answers model requests from a script (a queue of model turns), then with a final text.
 *
 * Start it on port 0 and hand `baseUrl` to `config.refreshAuth(AuthType.USE_GEMINI, key, baseUrl)`.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Content, Part } from '@google/gemini-cli-core';

export type GeminiAction = 'streamGenerateContent' | 'generateContent' | 'countTokens' | 'other';

export interface RecordedRequest {
  /** Order of arrival, from 0. */
  seq: number;
  method: string;
  /** Path without the query string, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent`. */
  path: string;
  model: string;
  action: GeminiAction;
  /** Size of the raw request body in bytes. */
  bytes: number;
  /** The parsed JSON body (`contents`, `tools`, `systemInstruction`, `generationConfig`, ...). */
  body: GeminiRequestBody;
}

export interface GeminiRequestBody {
  contents?: Content[];
  [key: string]: unknown;
}

/** One scripted answer: the model turn's parts (text and/or function calls). */
export interface FakeModelTurn {
  parts: Part[];
  finishReason?: string;
}

/** A model turn that says `step <index>` and calls `run_shell_command` with id `call-<index>`. */
export function shellCallTurn(index: number, command: string): FakeModelTurn {
  return {
    parts: [
      { text: `step ${index}` },
      { functionCall: { id: `call-${index}`, name: 'run_shell_command', args: { command } } },
    ],
  };
}

export type FakeResponder = (
  request: RecordedRequest,
) => FakeModelTurn | undefined | Promise<FakeModelTurn | undefined>;

export interface FakeGeminiServerOptions {
  /** Model turns answered in order to `streamGenerateContent` / `generateContent` requests. */
  script?: readonly FakeModelTurn[];
  /** Consulted before the script; return undefined to fall through to it. */
  responder?: FakeResponder;
  /** Answer once the script is used up. Default: a plain "Done." text turn. */
  fallback?: FakeModelTurn;
}

export interface FakeGeminiServer {
  /** `http://127.0.0.1:<port>`: pass as `baseUrl` to `refreshAuth`. */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Only the model requests (`streamGenerateContent`), in order. */
  modelRequests(): RecordedRequest[];
  /** Appends turns to the script. */
  enqueue(...turns: FakeModelTurn[]): void;
  /** Scripted turns not yet answered. */
  remaining(): number;
  close(): Promise<void>;
}

const FALLBACK_TURN: FakeModelTurn = { parts: [{ text: 'Done.' }] };
const MODEL_PATH = /^\/[^/]+\/models\/([^/:]+):([A-Za-z]+)$/;

function actionOf(name: string | undefined): GeminiAction {
  return name === 'streamGenerateContent' || name === 'generateContent' || name === 'countTokens'
    ? name
    : 'other';
}

function responseJson(turn: FakeModelTurn, promptTokens: number): string {
  return JSON.stringify({
    candidates: [
      {
        index: 0,
        finishReason: turn.finishReason ?? 'STOP',
        content: { role: 'model', parts: turn.parts },
      },
    ],
    usageMetadata: {
      promptTokenCount: promptTokens,
      candidatesTokenCount: 10,
      totalTokenCount: promptTokens + 10,
    },
    modelVersion: 'fake',
  });
}

function parseBody(raw: Buffer): GeminiRequestBody {
  try {
    return raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as GeminiRequestBody) : {};
  } catch {
    return {};
  }
}

async function readBody(request: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeGeminiServer(
  options: FakeGeminiServerOptions = {},
): Promise<FakeGeminiServer> {
  const script: FakeModelTurn[] = [...(options.script ?? [])];
  const requests: RecordedRequest[] = [];
  const fallback = options.fallback ?? FALLBACK_TURN;

  const server = http.createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const match = MODEL_PATH.exec(url.pathname);
      const body = parseBody(raw);
      const recorded: RecordedRequest = {
        seq: requests.length,
        method: req.method ?? 'GET',
        path: url.pathname,
        model: match?.[1] ?? '',
        action: actionOf(match?.[2]),
        bytes: raw.length,
        body,
      };
      requests.push(recorded);
      // A rough prompt size, so that core's own bookkeeping sees plausible numbers.
      const promptTokens = Math.ceil(raw.length / 4);

      if (recorded.action === 'countTokens') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ totalTokens: promptTokens }));
        return;
      }
      if (recorded.action === 'other') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: {
              code: 404,
              message: `fake: no route for ${url.pathname}`,
              status: 'NOT_FOUND',
            },
          }),
        );
        return;
      }
      const turn = (await options.responder?.(recorded)) ?? script.shift() ?? fallback;
      const json = responseJson(turn, promptTokens);
      if (recorded.action === 'generateContent') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(json);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(`data: ${json}\r\n\r\n`);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 500, message: String(error), status: 'INTERNAL' } }));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    modelRequests: () => requests.filter((r) => r.action === 'streamGenerateContent'),
    enqueue: (...turns) => {
      script.push(...turns);
    },
    remaining: () => script.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
