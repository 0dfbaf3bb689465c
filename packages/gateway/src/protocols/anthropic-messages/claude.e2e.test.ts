/**
 * The Anthropic Messages front with the real `claude` binary (npm @anthropic-ai/claude-code
 * 2.1.328), headless in a fresh home, through a gateway, in front of a scripted loopback fake of
 * the Messages API: the model runs four bulky Bash commands, loads the gateway's read-back tool
 * (MCP tools are deferred in Claude Code: `ToolSearch` first), reads one masked output back, and
 * answers. Old outputs must reach the fake masked, and claude must print the fake's answer.
 *
 * Claude Code persists a Bash output over 30,000 characters itself and sends a 2 KB preview in
 * its place, so each command prints about 24,500 characters: whole when it is new, masked later.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  anthropicAnswer,
  toolResultsOf,
  toolResultText,
} from '@toolmask/test-support/fake-anthropic';
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
import { CLAUDE_READ_TOOL_NAME } from './codec.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const CLAUDE = path.join(repo, 'node_modules/.bin/claude');
const BASH_STEPS = 4;
const FINAL = 'FINAL ANSWER: the numbers are in.';

const cleanups = cleanUpAfterEach();

/** About 24,500 characters of numbers, different for each step. */
const bulkyCommand = (step: number) =>
  `seq ${(step + 1) * 100_000} ${(step + 1) * 100_000 + 3_500}`;

/**
 * The fake model: Bash steps, then `ToolSearch` for the read-back tool, then a read-back of the
 * first masked output it sees, then the final answer. A request without the Bash tool (none in
 * 2.1.328 with non-essential traffic off) gets a plain answer.
 */
function respond(request: RecordedUpstreamRequest) {
  if (request.path !== '/v1/messages') return { status: 404, json: { type: 'error' } };
  const body = request.json as { tools?: Array<{ name: string }> };
  if (!body.tools?.some((tool) => tool.name === 'Bash')) return anthropicAnswer([{ text: 'ok' }]);
  const results = toolResultsOf(body);
  const step = results.length;
  const usage = { input: 2_000, cacheRead: 20_000 * step, cacheWrite: 3_000 };
  const call = (name: string, input: unknown) =>
    anthropicAnswer([{ toolUse: { id: `toolu_${step}`, name, input } }], usage);
  if (step < BASH_STEPS) {
    return call('Bash', { command: bulkyCommand(step), description: 'Print numbers' });
  }
  if (step === BASH_STEPS) return call('ToolSearch', { query: `select:${CLAUDE_READ_TOOL_NAME}` });
  if (step === BASH_STEPS + 1) {
    const snippet = results.map(toolResultText).find((text) => parseMaskedSnippet(text));
    const file = snippet ? parseMaskedSnippet(snippet)!.filePath : 'no snippet seen';
    return call(CLAUDE_READ_TOOL_NAME, { file, offset: 10, limit: 3 });
  }
  return anthropicAnswer([{ text: FINAL }], usage);
}

async function runClaude(args: string[], env: Record<string, string>, cwd: string) {
  const child = spawn(CLAUDE, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

describe.skipIf(!existsSync(CLAUDE))('the real claude through the Anthropic front', () => {
  it('runs Bash steps whose old outputs reach the API masked, reads one back, prints the answer', async () => {
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
      upstreams: { anthropic: upstream.url },
    });
    cleanups.push(() => running.close());
    const home = path.join(fixture.root, 'home');
    await fs.mkdir(home);
    // The read-back tool as a launcher would add it: Streamable HTTP, the access secret in its headers.
    const mcpConfig = {
      mcpServers: {
        toolmask: {
          type: 'http',
          url: `${running.url}/mcp`,
          headers: { 'x-toolmask-token': running.gateway.accessSecret },
        },
      },
    };

    const startedAt = performance.now();
    const run = await runClaude(
      [
        '-p',
        'Print some numbers, then read one output back.',
        '--allowedTools',
        'Bash',
        CLAUDE_READ_TOOL_NAME,
        '--mcp-config',
        JSON.stringify(mcpConfig),
      ],
      {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: home,
        ANTHROPIC_BASE_URL: running.url,
        ANTHROPIC_API_KEY: 'x',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      },
      home,
    );
    console.log(`claude -p through the gateway: ${Math.round(performance.now() - startedAt)} ms`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(FINAL);

    const requests = upstream.requests.filter((request) => request.path === '/v1/messages');
    expect(requests.length).toBe(BASH_STEPS + 3);
    for (const request of requests) {
      expect(request.query).toBe('beta=true');
      expect(request.headers['x-api-key']).toBe('x');
      // The provider allows four breakpoints: the gateway never adds one.
      expect(request.raw.toString().split('"cache_control"').length - 1).toBeLessThanOrEqual(4);
    }
    // In the last request every Bash output but the newest is a snippet naming the read-back tool.
    const results = toolResultsOf(requests.at(-1)!.json);
    const bash = results.slice(0, BASH_STEPS);
    const masked = bash.map((block) => parseMaskedSnippet(toolResultText(block)));
    expect(masked.slice(0, -1).every(Boolean)).toBe(true);
    expect(toolResultText(bash[0]!)).toContain(`Full output: ${CLAUDE_READ_TOOL_NAME}(`);
    // A snippet is the same bytes in every request after the one that masked it.
    const firstSeen = new Map<string, string>();
    for (const request of requests) {
      for (const block of toolResultsOf(request.json)) {
        if (!parseMaskedSnippet(toolResultText(block))) continue;
        const bytes = JSON.stringify(block);
        expect(firstSeen.get(block.tool_use_id) ?? bytes).toBe(bytes);
        firstSeen.set(block.tool_use_id, bytes);
      }
    }
    // The read-back over MCP returned lines 10-12 of the first output, as the model asked.
    const readBack = toolResultText(results.at(-1)!);
    expect(readBack).toContain('100009\n100010\n100011');
    expect(await fs.readFile(masked[0]!.filePath, 'utf8')).toMatch(/^100000\n100001\n/);

    await settled(running);
    const sessions = (await (await ownerFetch(running, `${running.url}/api/sessions`)).json()) as {
      sessions: Array<{ requests: number; cachedTokens: number; prompt?: string; folder?: string }>;
    };
    expect(sessions.sessions).toHaveLength(1);
    expect(sessions.sessions[0]!.requests).toBe(requests.length);
    expect(sessions.sessions[0]!.cachedTokens).toBeGreaterThan(0);
    // Named as the dashboard shows it: the prompt and the folder claude tells its model.
    expect(sessions.sessions[0]).toMatchObject({
      prompt: 'Print some numbers, then read one output back.',
      folder: home,
    });
  });
});
