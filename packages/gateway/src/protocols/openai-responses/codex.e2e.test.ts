/**
 * The OpenAI Responses front with the real `codex` binary (npm @openai/codex 0.169.0), headless
 * (`codex exec`) in a fresh home, through a gateway, in front of a scripted loopback fake of the
 * Responses API: the model runs four bulky shell commands (`exec_command`), reads one masked
 * output back with the gateway's read-back tool over MCP, and answers. Old outputs must reach the
 * fake masked, and codex must print the fake's answer.
 *
 * Codex cuts every command output to 10,000 characters itself (head and tail), so each command
 * prints about 10,000: whole when it is new, masked later. The home is under the system's temp
 * folder: codex then warns that it cannot create its helper commands' aliases there (`apply_patch`
 * on PATH), which this test does not use. Codex retries an error status five times, so the fake
 * answers every path with a success.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  responsesAnswer,
  toolOutputsOf,
  toolOutputText,
} from '@toolmask/test-support/fake-openai-responses';
import {
  startFakeUpstream,
  type RecordedUpstreamRequest,
} from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  ownerFetch,
  settled,
  startTestGateway,
} from '../../test-utils/gemini-client.js';
import { CODEX_READ_TOOL_NAME } from './codec.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const CODEX = path.join(repo, 'node_modules/.bin/codex');
const SHELL_STEPS = 4;
const FINAL = 'FINAL ANSWER: the numbers are in.';
const MCP_NAMESPACE = 'mcp__toolmask';

const cleanups = cleanUpAfterEach();

/** About 10,000 characters of numbers (Codex's own cut), different for each step. */
const bulkyCommand = (step: number) =>
  `seq ${(step + 1) * 100_000} ${(step + 1) * 100_000 + 1_400}`;

/**
 * The fake model: shell steps, then a read-back of the first masked output it sees (Codex's MCP
 * tools are called with their namespace), then the final answer.
 */
function respond(request: RecordedUpstreamRequest) {
  if (request.path !== '/v1/responses') return { json: { object: 'list', data: [] } };
  const outputs = toolOutputsOf(request.json);
  const step = outputs.length;
  const usage = { input: 20_000 + 3_000 * step, cached: 18_000 * Math.min(step, 1) + 2_500 * step };
  const call = (name: string, args: unknown, namespace?: string) =>
    responsesAnswer(
      [
        {
          functionCall: {
            callId: `call_${step}`,
            name,
            arguments: args,
            ...(namespace ? { namespace } : {}),
          },
        },
      ],
      usage,
    );
  if (step < SHELL_STEPS) return call('exec_command', { cmd: bulkyCommand(step) });
  if (step === SHELL_STEPS) {
    const snippet = outputs.map(toolOutputText).find((text) => parseMaskedSnippet(text));
    const file = snippet ? parseMaskedSnippet(snippet)!.filePath : 'no snippet seen';
    return call('read_tool_output', { file, offset: 10, limit: 3 }, MCP_NAMESPACE);
  }
  return responsesAnswer([{ text: FINAL }], usage);
}

async function runCodex(args: string[], env: Record<string, string>, cwd: string) {
  const child = spawn(CODEX, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

/** `~/.codex/config.toml`: the fake provider through the gateway, and its read-back server. */
function codexConfig(gatewayUrl: string, accessSecret: string): string {
  return [
    'model = "gpt-5-codex"',
    'model_provider = "fake"',
    '',
    '[model_providers.fake]',
    'name = "fake"',
    `base_url = "${gatewayUrl}/openai/v1"`,
    'env_key = "FAKE_KEY"',
    'wire_api = "responses"',
    '',
    // Streamable HTTP; `codex exec` never asks, so an MCP call needs approval up front.
    '[mcp_servers.toolmask]',
    `url = "${gatewayUrl}/mcp"`,
    `http_headers = { "x-toolmask-token" = "${accessSecret}" }`,
    'default_tools_approval_mode = "approve"',
    '',
  ].join('\n');
}

describe.skipIf(!existsSync(CODEX))('the real codex through the Responses front', () => {
  it('runs shell steps whose old outputs reach the API masked, reads one back, prints the answer', async () => {
    const fixture = await gatewayFixture({
      toolProtectionThreshold: 5_000,
      minPrunableTokensThreshold: 2_000,
    });
    cleanups.push(fixture.cleanup);
    const upstream = await startFakeUpstream(respond);
    cleanups.push(() => upstream.close());
    const running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { openai: `${upstream.url}/v1` },
    });
    cleanups.push(() => running.close());
    const home = path.join(fixture.root, 'home');
    await fs.mkdir(path.join(home, '.codex'), { recursive: true });
    await fs.writeFile(
      path.join(home, '.codex', 'config.toml'),
      codexConfig(running.url, running.gateway.accessSecret),
    );

    const startedAt = performance.now();
    const run = await runCodex(
      ['exec', '--skip-git-repo-check', 'Print some numbers, then read one output back.'],
      { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, FAKE_KEY: 'x' },
      home,
    );
    console.log(`codex exec through the gateway: ${Math.round(performance.now() - startedAt)} ms`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(FINAL);

    const requests = upstream.requests.filter((request) => request.path === '/v1/responses');
    // No retry: every request was answered once.
    expect(requests.length).toBe(SHELL_STEPS + 2);
    const session = requests[0]!.headers['session-id'];
    for (const request of requests) {
      expect(request.headers['authorization']).toBe('Bearer x');
      expect(request.headers['session-id']).toBe(session);
      expect((request.json as { prompt_cache_key: string }).prompt_cache_key).toBe(session);
    }
    // The read-back tool is declared as Codex declares MCP tools: a namespace of its server.
    const tools = (requests[0]!.json as { tools: Array<{ type: string; name: string }> }).tools;
    expect(tools).toContainEqual(
      expect.objectContaining({ type: 'namespace', name: MCP_NAMESPACE }),
    );
    // When the last shell output is sent, it goes whole and every older one is a snippet naming
    // the read-back tool.
    const shell = toolOutputsOf(requests[SHELL_STEPS]!.json);
    expect(shell).toHaveLength(SHELL_STEPS);
    const masked = shell.map((item) => parseMaskedSnippet(toolOutputText(item)));
    expect(masked.slice(0, -1).every(Boolean)).toBe(true);
    expect(masked.at(-1)).toBeUndefined();
    expect(typeof shell[0]!.output).toBe('string');
    expect(toolOutputText(shell[0]!)).toContain(`Full output: ${CODEX_READ_TOOL_NAME}(`);
    // A snippet is the same bytes in every request after the one that masked it.
    const firstSeen = new Map<string, string>();
    for (const request of requests) {
      for (const item of toolOutputsOf(request.json)) {
        if (!parseMaskedSnippet(toolOutputText(item))) continue;
        const bytes = JSON.stringify(item);
        expect(firstSeen.get(item.call_id) ?? bytes).toBe(bytes);
        firstSeen.set(item.call_id, bytes);
      }
    }
    // The read-back over MCP returned lines 10-12 of the first saved output, as the model asked.
    const readBack = toolOutputsOf(requests.at(-1)!.json).at(-1)!;
    expect(Array.isArray(readBack.output)).toBe(true);
    const saved = await fs.readFile(masked[0]!.filePath, 'utf8');
    // Without codex's header: line N is line N of what the command printed (issue 35).
    expect(saved.startsWith('100000\n100001\n')).toBe(true);
    const wanted = saved.split('\n').slice(9, 12).join('\n');
    expect(wanted).toBe('100009\n100010\n100011');
    expect(toolOutputText(readBack)).toContain(
      `Output:\n${wanted}\n[read_tool_output: lines 10-12`,
    );

    await settled(running);
    const sessions = (await (await ownerFetch(running, `${running.url}/api/sessions`)).json()) as {
      sessions: Array<{
        id: string;
        requests: number;
        cachedTokens: number;
        prompt?: string;
        folder?: string;
      }>;
    };
    expect(sessions.sessions).toHaveLength(1);
    expect(sessions.sessions[0]!.requests).toBe(requests.length);
    expect(sessions.sessions[0]!.cachedTokens).toBeGreaterThan(0);
    // Named as the dashboard shows it: the prompt and the folder codex tells its model.
    expect(sessions.sessions[0]).toMatchObject({
      prompt: 'Print some numbers, then read one output back.',
      folder: home,
    });
    // The output cards preview the command's own lines, not Codex's header before them.
    const outputs = (await (
      await ownerFetch(running, `${running.url}/api/sessions/${sessions.sessions[0]!.id}/outputs`)
    ).json()) as { outputs: Array<{ preview: string }> };
    expect(outputs.outputs.length).toBeGreaterThan(0);
    for (const output of outputs.outputs) expect(output.preview).toMatch(/^\d+\n\d+\n/);
  });
});
