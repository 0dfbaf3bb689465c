/**
 * `toolmask setup claude` with the real `claude` binary (npm @anthropic-ai/claude-code 2.1.328) in
 * a fresh home: after setup, `claude mcp list` connects to the gateway's MCP server, and a plain
 * `claude -p` (its ANTHROPIC_BASE_URL still the fake's, no --mcp-config, no --allowedTools) goes
 * through a running gateway to a loopback fake of the Messages API, loads the read-back tool with
 * `ToolSearch` and calls it (allowed by the settings, not denied), and prints the fake's answer.
 * `--undo` then gives back the settings file byte for byte and takes `mcpServers.toolmask` out of
 * `~/.claude.json`, which claude itself rewrote meanwhile and which is still 0600 (setup made it
 * so: it holds the access secret). DISABLE_AUTOUPDATER: claude must not install a copy of itself
 * from here.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listenGateway } from '@toolmask/gateway';
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
import { CLAUDE_READ_BACK_PERMISSION } from './setup.js';
import { setUpClient, undoClient } from '../../../test-data/client-setup.js';
import { claudeClient } from './index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const CLAUDE = path.join(repo, 'node_modules/.bin/claude');
const FINAL = 'FINAL ANSWER: the tool answered.';

const cleanups = cleanUpAfterEach();

function run(args: string[], env: Record<string, string>, cwd: string) {
  const child = spawn(CLAUDE, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

/** `ToolSearch` for the read-back tool, one call of it, then the answer. */
function respond(request: RecordedUpstreamRequest) {
  if (request.path !== '/v1/messages') return { status: 404, json: { type: 'error' } };
  const body = request.json as { tools?: Array<{ name: string }> };
  if (!body.tools?.some((tool) => tool.name === 'Bash')) return anthropicAnswer([{ text: 'ok' }]);
  const step = toolResultsOf(body).length;
  const call = (name: string, input: unknown) =>
    anthropicAnswer([{ toolUse: { id: `toolu_${step}`, name, input } }]);
  if (step === 0) return call('ToolSearch', { query: `select:${CLAUDE_READ_BACK_PERMISSION}` });
  if (step === 1) {
    return call(CLAUDE_READ_BACK_PERMISSION, { file: 'no-such-output.txt', offset: 1, limit: 2 });
  }
  return anthropicAnswer([{ text: FINAL }]);
}

describe.skipIf(!existsSync(CLAUDE))('toolmask setup claude with the real claude', () => {
  it('claude sees the MCP server, goes through the gateway, may call the read-back tool; --undo puts back', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-setup-claude-e2e-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    const stateDir = path.join(root, 'state');
    await fs.mkdir(path.join(home, '.claude'), { recursive: true });
    await fs.mkdir(project);
    const settingsFile = path.join(home, '.claude', 'settings.json');
    const ownSettings = '{\n  "env": {\n    "DISABLE_TELEMETRY": "1"\n  }\n}\n';
    await fs.writeFile(settingsFile, ownSettings);
    // The person's state file, readable by all before setup puts the access secret in it.
    const stateFile = path.join(home, '.claude.json');
    await fs.writeFile(stateFile, '{\n  "numStartups": 1\n}\n');
    await fs.chmod(stateFile, 0o644);

    const upstream = await startFakeUpstream(respond);
    cleanups.push(() => upstream.close());
    const maskingSettings = path.join(root, 'masking.json');
    await fs.writeFile(maskingSettings, '{}');
    const gateway = await listenGateway({
      port: 0,
      stateDir,
      settingsFile: maskingSettings,
      upstreams: { anthropic: upstream.url },
    });
    cleanups.push(() => gateway.close());
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      NO_COLOR: '1',
      ANTHROPIC_API_KEY: 'fake-anthropic-key',
      // The person's own base URL (a shell profile's): the gateway's upstream; the settings'
      // env, which setup writes, wins over it in claude.
      ANTHROPIC_BASE_URL: upstream.url,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    };
    await setUpClient(claudeClient, {
      gatewayUrl: gateway.url,
      stateDir,
      env,
      gatewayUpstreams: { anthropic: upstream.url },
    });

    const startedAt = performance.now();
    const list = await run(['mcp', 'list'], env, project);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(`toolmask: ${gateway.url}/mcp (HTTP) - ✔ Connected`);

    const result = await run(['-p', 'Read an output back.'], env, project);
    console.log(
      `claude mcp list and claude -p after setup: ${Math.round(performance.now() - startedAt)} ms`,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(FINAL);
    const requests = upstream.requests.filter((request) => request.path === '/v1/messages');
    const main = requests.filter((request) =>
      (request.json as { tools?: Array<{ name: string }> }).tools?.some(
        (tool) => tool.name === 'Bash',
      ),
    );
    expect(main.length).toBe(3);
    for (const request of requests) expect(request.headers['x-api-key']).toBe('fake-anthropic-key');
    // The call reached the gateway's read-back tool (its own answer about the file), not a denial.
    const readBack = toolResultText(toolResultsOf(main.at(-1)!.json).at(-1)!);
    expect(readBack).not.toMatch(/permission|haven't granted/i);
    expect(readBack).toMatch(/^read_tool_output: no offloaded outputs exist/);
    // It went through the gateway, which records every model request.
    expect((await fs.readdir(path.join(stateDir, 'usage'))).length).toBeGreaterThan(0);
    // After claude's runs (which rewrite its state file), still 0600.
    expect((await fs.stat(stateFile)).mode & 0o777).toBe(0o600);

    const undo = await undoClient(claudeClient, stateDir);
    expect(undo.lines.join('\n')).toContain(`${settingsFile}: put back exactly`);
    expect(undo.failures).toEqual([]);
    expect(await fs.readFile(settingsFile, 'utf8')).toBe(ownSettings);
    const state = JSON.parse(await fs.readFile(path.join(home, '.claude.json'), 'utf8')) as {
      mcpServers?: unknown;
    };
    expect(state.mcpServers).toBeUndefined();
    expect(
      (await fs.readdir(home, { recursive: true })).filter((name) =>
        String(name).endsWith('.toolmask-backup'),
      ),
    ).toEqual([]);
    const after = await run(['mcp', 'list'], env, project);
    expect(after.stdout).not.toContain('toolmask');
  }, 120_000);
});
