/**
 * Plays a gemini-cli-like client for the gateway's tests: it keeps the whole unmasked history and
 * resends it with every request, as the real CLI does, answers each function call with a bulky
 * tool output, and reads the streamed answer back.
 */
import * as http from 'node:http';
import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import { listenGateway, type ListenOptions, type RunningGateway } from '../listen-gateway.js';

export interface ContentLike {
  role: string;
  parts: Array<Record<string, unknown>>;
}

/** A bulky shell output: `lines` numbered lines with a tag, so every output is different. */
export function shellOutput(tag: string, lines = 400): string {
  const body = Array.from(
    { length: lines },
    (_, i) => `${tag} line ${i + 1}: compiled unit_${i + 1}.o`,
  );
  return `Output: ${body.join('\n')}\nExit Code: 0`;
}

/**
 * A Gemini request body: a prompt, then `outputs` shell calls with their outputs of 2,000 lines
 * each (`shellOutput`), every call id starting with `tag`.
 */
export function shellHistory(tag: string, outputs: number): string {
  const contents: ContentLike[] = [{ role: 'user', parts: [{ text: `build ${tag}` }] }];
  for (let index = 0; index < outputs; index++) {
    const id = `${tag}-${index}`;
    const call = { id, name: 'run_shell_command', args: {} };
    const output = { output: shellOutput(id, 2_000) };
    contents.push({ role: 'model', parts: [{ functionCall: call }] });
    contents.push({
      role: 'user',
      parts: [{ functionResponse: { id, name: 'run_shell_command', response: output } }],
    });
  }
  return JSON.stringify({ contents });
}

export interface StreamedAnswer {
  status: number;
  /** Parsed `data:` events. */
  events: unknown[];
  text: string;
}

/** POSTs `body` and reads an SSE or JSON answer whole. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<StreamedAnswer> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await answer.text();
  const events: unknown[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data && data !== '[DONE]') events.push(JSON.parse(data));
  }
  return { status: answer.status, events, text };
}

/** The parts of a Gemini streamed answer's model turn. */
export function answerParts(answer: StreamedAnswer): Array<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = [];
  for (const event of answer.events) {
    const response = (event as { response?: unknown }).response ?? event;
    const candidates = (response as { candidates?: Array<{ content?: { parts?: unknown[] } }> })
      .candidates;
    for (const part of candidates?.[0]?.content?.parts ?? [])
      parts.push(part as Record<string, unknown>);
  }
  return parts;
}

/**
 * A client loop against `url`: a first prompt, then for every function call the model makes a
 * tool response (from `outputFor`), until the model answers with text only or `maxRequests`.
 */
export async function runGeminiClient(options: {
  url: string;
  prompt: string;
  outputFor: (call: { id: string; name: string; args: unknown }, index: number) => unknown;
  maxRequests: number;
  wrap?: (contents: ContentLike[]) => unknown;
  headers?: Record<string, string>;
  history?: ContentLike[];
}): Promise<{ history: ContentLike[]; answers: StreamedAnswer[] }> {
  const history: ContentLike[] = options.history ?? [
    { role: 'user', parts: [{ text: options.prompt }] },
  ];
  const answers: StreamedAnswer[] = [];
  let calls = 0;
  for (let request = 0; request < options.maxRequests; request++) {
    const answer = await post(
      options.url,
      options.wrap ? options.wrap(history) : { contents: history },
      options.headers,
    );
    answers.push(answer);
    const parts = answerParts(answer);
    if (parts.length === 0) break;
    history.push({ role: 'model', parts });
    const functionCalls = parts.filter((part) => part['functionCall']);
    if (functionCalls.length === 0) break;
    history.push({
      role: 'user',
      parts: functionCalls.map((part) => {
        const call = part['functionCall'] as { id: string; name: string; args: unknown };
        return {
          functionResponse: {
            id: call.id,
            name: call.name,
            response: options.outputFor(call, calls++),
          },
        };
      }),
    });
  }
  return { history, answers };
}

/**
 * A state folder and a settings file with small thresholds, removed by `cleanup`. The warm rule
 * is `floor` unless `settings` names one: the gateway's tests are about what a pass does to the
 * bytes, and their sessions are too short to pay a warm break back under `pay-back`.
 */
export async function gatewayFixture(
  settings: Record<string, unknown> = {
    toolProtectionThreshold: 20_000,
    minPrunableTokensThreshold: 20_000,
  },
): Promise<{ root: string; stateDir: string; settingsFile: string; cleanup(): Promise<void> }> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-gateway-'));
  const settingsFile = path.join(root, 'settings.json');
  await fs.writeFile(
    settingsFile,
    JSON.stringify({ experimental: { toolOutputMasking: { warmRule: 'floor', ...settings } } }),
  );
  return {
    root,
    stateDir: path.join(root, 'state'),
    settingsFile,
    cleanup: () => fs.rm(root, { recursive: true, force: true }),
  };
}

/**
 * What the gateway's owner sends to what reads outputs or state (`/api`, `/mcp`, the dashboard):
 * its access secret, which a test, like the person, can read.
 */
export function ownerHeaders(running: RunningGateway): Record<string, string> {
  return { 'x-toolmask-token': running.gateway.accessSecret };
}

/** `fetch` as the gateway's owner. */
export function ownerFetch(
  running: RunningGateway,
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  return fetch(url, {
    ...init,
    headers: { ...ownerHeaders(running), ...(init.headers as Record<string, string>) },
  });
}

/** A gateway on a free loopback port. */
export function startTestGateway(options: ListenOptions): Promise<RunningGateway> {
  return listenGateway({ port: 0, ...options });
}

/** A raw HTTP request (for cases fetch will not send, like an abort mid-stream). */
export function rawRequest(
  url: string,
  body: string,
  onResponse: (response: http.IncomingMessage, request: http.ClientRequest) => void,
): http.ClientRequest {
  const request = http.request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
  });
  request.on('response', (response) => onResponse(response, request));
  request.on('error', () => undefined);
  request.end(body);
  return request;
}

/** Resolves once the gateway has no request in flight (one a test did not wait for included). */
export async function settled(running: RunningGateway, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (running.gateway.inFlight > 0) {
    if (Date.now() > deadline) throw new Error('the gateway is still busy');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
