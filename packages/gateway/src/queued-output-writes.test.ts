/**
 * A single gateway's output writes off the request path (state/outputs/queued-output-store.ts),
 * end to end: the bytes sent upstream are those of a gateway whose every write succeeds, a
 * failed write is counted and written again from the next request, and a read-back of an output
 * still queued gets its text.
 */
import { promises as fs } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createFileToolOutputStore, type ToolOutputStore } from '@toolmask/core/storage';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  gatewayFixture,
  ownerHeaders,
  runGeminiClient,
  shellOutput,
  startTestGateway,
} from './test-utils/gemini-client.js';
import { scriptedShellUpstream } from './test-utils/scripted-upstream.js';

const MODEL_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent';
const FILE = /file=\\"([^"\\]+)\\"/g;

const cleanups = cleanUpAfterEach();

/** A session of 12 shell calls through a fresh gateway; what it sent upstream, state dir named. */
async function session(outputs?: ToolOutputStore, log?: (line: string) => void) {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const upstream = await scriptedShellUpstream(12);
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: upstream.url },
    ...(outputs ? { stores: { outputs } } : {}),
    ...(log ? { log } : {}),
  });
  cleanups.push(() => running.close());
  const { answers } = await runGeminiClient({
    url: `${running.url}${MODEL_PATH}?alt=sse`,
    prompt: 'build it',
    outputFor: (call) => ({ output: shellOutput(call.id) }),
    maxRequests: 20,
  });
  expect(answers.every((answer) => answer.status === 200)).toBe(true);
  const texts = upstream
    .matching(/streamGenerateContent$/)
    .map((request) => request.raw.toString('utf8'));
  const stateDir = await fs.realpath(fixture.stateDir);
  return { running, texts, anonymous: texts.map((text) => text.split(stateDir).join('<state>')) };
}

const filesNamed = (text: string) => [...text.matchAll(FILE)].map((match) => match[1] as string);

/**
 * A session whose output writes are all held until `open()`: nothing is written yet when it
 * returns (the requests went on without their writes), with an MCP client of its gateway.
 */
async function heldSession() {
  const files = createFileToolOutputStore();
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const held: ToolOutputStore = {
    async save(...args) {
      await gate;
      return files.save(...args);
    },
  };
  cleanups.push(async () => open());
  const { running, texts } = await session(held);
  const file = filesNamed(texts.at(-1) ?? '')[0] as string;
  await expect(fs.access(file)).rejects.toThrow();
  const client = new Client({ name: 'toolmask-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
      requestInit: { headers: ownerHeaders(running) },
    }),
  );
  cleanups.push(() => client.close());
  return { client, file, texts, open };
}

describe('the gateway, its output writes queued', () => {
  it('sends the same bytes when writes fail; counts them and writes them from the next request', async () => {
    const { anonymous: expected } = await session();
    // The edge: the first write of every file fails (a disk that was full for a moment).
    const files = createFileToolOutputStore();
    const tried = new Set<string>();
    const failingOnce: ToolOutputStore = {
      async save(directory, fileName, text, byteLength) {
        if (!tried.has(fileName)) {
          tried.add(fileName);
          throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        }
        return files.save(directory, fileName, text, byteLength);
      },
    };
    const { running, texts, anonymous } = await session(failingOnce);
    expect(expected.some((text) => text.includes('tool_output_masked'))).toBe(true);
    expect(anonymous).toEqual(expected);

    // Counted: the failed writes on /metrics.
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(
      /toolmask_gateway_store_failures_total\{[^}]*operation="queuedSave"[^}]*store="outputs"|toolmask_gateway_store_failures_total\{[^}]*store="outputs"[^}]*operation="queuedSave"/,
    );
    // Closing writes what is still queued.
    await running.gateway.close();
    // Every output masked before the last request was written from the request after it.
    const beforeLast = new Set(texts.slice(0, -1).flatMap(filesNamed));
    expect(beforeLast.size).toBeGreaterThan(0);
    for (const file of beforeLast) {
      expect(await fs.readFile(file, 'utf8')).toMatch(/^Output: call-\d+ line 1: /);
    }
  });

  it('serves a read-back of an output whose write is still queued', async () => {
    const { client, file, open } = await heldSession();
    const reading = client.callTool({ name: 'read_tool_output', arguments: { file, limit: 2 } });
    open();
    const result = (await reading) as { content: Array<{ text: string }>; isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(result.content[0]?.text).toMatch(/call-\d+ line 1: compiled unit_1\.o/);
  });

  it('searches outputs whose writes are still queued', async () => {
    const { client, texts, open } = await heldSession();
    const searching = client.callTool({
      name: 'search_tool_outputs',
      arguments: { query: 'unit_399.o' },
    });
    open();
    const result = (await searching) as { content: Array<{ text: string }>; isError?: boolean };
    expect(result.isError).toBeFalsy();
    // Every masked output holds that line once: each one was written before the search ran.
    const masked = filesNamed(texts.at(-1) ?? '').length;
    expect(result.content[0]?.text).toMatch(
      new RegExp(
        `^search_tool_outputs: ${masked} matching lines in ${masked} of ${masked} saved outputs`,
      ),
    );
  });

  it('stops within its close timeout when the disk hangs, and says what it left unwritten', async () => {
    const hanging: ToolOutputStore = { save: () => new Promise<string>(() => undefined) };
    const lines: string[] = [];
    const { running } = await session(hanging, (line) => lines.push(line));
    // Before the bound, close waited for the queue for ever: this test timed out.
    await running.close(200);
    expect(lines.join('\n')).toMatch(
      /stopped with [1-9]\d* bytes of outputs not yet written \(the disk did not answer within \d+ ms\)/,
    );
  });
});
