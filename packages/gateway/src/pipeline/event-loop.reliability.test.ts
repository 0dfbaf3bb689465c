/**
 * One legal request never holds the gateway's event loop (issue 21, hole 5): while a body of
 * megabytes of nested arrays, or of 80,000 small tool calls, is decoded and masked, a timer of the
 * same process keeps firing and `/healthz` keeps answering. Before the reader and the pass worked
 * in stretches these bodies held the loop for 1 to 3 seconds; the bound here (500 ms) is generous
 * for a loaded CI machine, and far below that. bench/eventLoopBlocking.mjs measures the same at
 * 40 MB and 150,000 calls (docs/benchmarks.md).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { gatewayFixture, startTestGateway } from '../test-utils/gemini-client.js';

const cleanups = cleanUpAfterEach();

const GEMINI_PATH = '/v1beta/models/m:streamGenerateContent?alt=sse';
const OPENAI_PATH = '/openai/v1/chat/completions';
const MAX_GAP_MS = 500;

/**
 * An upstream that reads each body without parsing it (a fake that parses would hold this very
 * loop), keeps its bytes, and answers one event.
 */
async function startDrainingUpstream(): Promise<{ url: string; bodies: Buffer[] }> {
  const bodies: Buffer[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = {
        candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1 },
      };
      response.end(`data: ${JSON.stringify(event)}\r\n\r\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

async function setUp() {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const upstream = await startDrainingUpstream();
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: upstream.url, openai: `${upstream.url}/v1` },
  });
  cleanups.push(() => running.close());
  return { upstream, url: running.url };
}

function post(url: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': body.length },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Runs `work` while a 5 ms timer and `/healthz` polls (one at a time) run beside it: the longest
 * the timer waited, and the slowest poll.
 */
async function loopGaps(url: string, work: () => Promise<void>) {
  let last = performance.now();
  let timerGap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    timerGap = Math.max(timerGap, now - last);
    last = now;
  }, 5);
  let polling = true;
  let slowestPoll = 0;
  let polls = 0;
  const poller = (async () => {
    while (polling) {
      const started = performance.now();
      const answer = await fetch(`${url}/healthz`);
      await answer.arrayBuffer();
      slowestPoll = Math.max(slowestPoll, performance.now() - started);
      polls++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    await work();
  } finally {
    polling = false;
    await poller;
    clearInterval(timer);
  }
  return { timerGap, slowestPoll, polls };
}

/** `count` copies of `unit` (JSON text) as a JSON array of about `count * unit` bytes. */
const arrayOf = (unit: string, count: number) => `[${new Array(count).fill(unit).join(',')}]`;

describe('the event loop while a large request is decoded and masked', () => {
  it('keeps running through 8 MB of nested arrays in a tool output', async () => {
    const { upstream, url } = await setUp();
    // 100,000 arrays 40 deep, side by side: 4 million values.
    const nested = arrayOf(`${'['.repeat(40)}7${']'.repeat(40)}`, 100_000);
    const body = Buffer.from(
      JSON.stringify({
        contents: [
          { role: 'user', parts: [{ text: 'read data.json' }] },
          { role: 'model', parts: [{ functionCall: { id: 'a', name: 'read_file', args: {} } }] },
        ],
      }).replace(
        /\]\}$/,
        `,{"role":"user","parts":[{"functionResponse":{"id":"a","name":"read_file","response":{"output":${nested}}}}]},` +
          '{"role":"model","parts":[{"text":"read"}]},{"role":"user","parts":[{"text":"go on"}]}]}',
      ),
    );
    expect(body.length).toBeGreaterThan(8_000_000);
    const gaps = await loopGaps(url, async () => {
      expect(await post(`${url}${GEMINI_PATH}`, body)).toBe(200);
    });
    expect(gaps.timerGap).toBeLessThan(MAX_GAP_MS);
    expect(gaps.slowestPoll).toBeLessThan(MAX_GAP_MS);
    // Too heavy to parse at once, the entry is left as it came: the body goes out unchanged.
    expect(upstream.bodies.at(-1)?.equals(body)).toBe(true);
  });

  it('keeps running through 80,000 small tool calls, in both protocols, and the next request', async () => {
    const { upstream, url } = await setUp();
    const calls = 80_000;
    const gemini = ['{"role":"user","parts":[{"text":"list everything"}]}'];
    const toolCalls: string[] = [];
    const toolMessages: string[] = [];
    for (let index = 0; index < calls; index++) {
      gemini.push(
        `{"role":"model","parts":[{"functionCall":{"name":"ls","id":"c${index}","args":{"path":"d${index}"}}}]}`,
        `{"role":"user","parts":[{"functionResponse":{"name":"ls","id":"c${index}","response":{"output":"a${index}.ts b${index}.ts"}}}]}`,
      );
      toolCalls.push(
        `{"id":"t${index}","type":"function","function":{"name":"ls","arguments":"{}"}}`,
      );
      toolMessages.push(`{"role":"tool","tool_call_id":"t${index}","content":"a${index}.ts"}`);
    }
    const geminiBody = (entries: string[]) => Buffer.from(`{"contents":[${entries.join(',')}]}`);
    const next = [
      '{"role":"model","parts":[{"text":"listed"}]}',
      '{"role":"user","parts":[{"text":"now?"}]}',
    ];
    const messages = [
      '{"role":"system","content":"agent"}',
      '{"role":"user","content":"list everything"}',
      `{"role":"assistant","content":"","tool_calls":[${toolCalls.join(',')}]}`,
      ...toolMessages,
    ];
    const openAiBody = Buffer.from(`{"model":"q","messages":[${messages.join(',')}]}`);
    const bodies: Array<[string, Buffer]> = [
      [GEMINI_PATH, geminiBody(gemini)],
      [GEMINI_PATH, geminiBody([...gemini, ...next])],
      [OPENAI_PATH, openAiBody],
    ];
    const gaps = await loopGaps(url, async () => {
      for (const [path, body] of bodies) expect(await post(`${url}${path}`, body)).toBe(200);
    });
    expect(gaps.timerGap).toBeLessThan(MAX_GAP_MS);
    expect(gaps.slowestPoll).toBeLessThan(MAX_GAP_MS);
    expect(upstream.bodies).toHaveLength(3);
  });
});
