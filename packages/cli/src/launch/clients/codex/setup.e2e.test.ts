/**
 * `toolmask setup codex` with the real `codex` binary (npm @openai/codex 0.169.0) in a fresh home
 * whose config.toml is the person's (a comment, a model, their `openai_base_url`, an MCP server of
 * theirs): after setup, `codex mcp list --json` shows the gateway's MCP server with its header and
 * approval mode, the file is 0600 (the secret is in it), and a plain `codex exec` goes through a
 * running gateway to a loopback fake of the Responses API, calls the read-back tool over MCP and
 * prints the fake's answer. `--undo` then gives back config.toml byte for byte, and its mode.
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
  responsesAnswer,
  toolOutputsOf,
  toolOutputText,
} from '@toolmask/test-support/fake-openai-responses';
import {
  startFakeUpstream,
  type RecordedUpstreamRequest,
} from '@toolmask/test-support/fake-upstream';
import { setUpClient, undoClient } from '../../../test-data/client-setup.js';
import { codexClient } from './index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const CODEX = path.join(repo, 'node_modules/.bin/codex');
const FINAL = 'FINAL ANSWER: the tool answered.';

const cleanups = cleanUpAfterEach();

function run(args: string[], env: Record<string, string>, cwd: string) {
  const child = spawn(CODEX, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

/** One read-back call (Codex calls MCP tools with their server's namespace), then the answer. */
function respond(request: RecordedUpstreamRequest) {
  if (request.path !== '/v1/responses') return { json: { object: 'list', data: [] } };
  if (toolOutputsOf(request.json).length === 0) {
    return responsesAnswer([
      {
        functionCall: {
          callId: 'call_0',
          name: 'read_tool_output',
          arguments: { file: 'no-such-output.txt', offset: 1, limit: 2 },
          namespace: 'mcp__toolmask',
        },
      },
    ]);
  }
  return responsesAnswer([{ text: FINAL }]);
}

/** The person's file; their base URL (codex's `openai_base_url`) is the fake's. */
const ownConfig = (baseUrl: string) => `# my codex settings
model = "gpt-5-codex"
openai_base_url = "${baseUrl}"

[mcp_servers.docs]
command = "docs-server-not-installed"
enabled = false
`;

describe.skipIf(!existsSync(CODEX))('toolmask setup codex with the real codex', () => {
  it('codex sees the MCP server and the provider, goes through the gateway, calls the read-back tool; --undo puts back', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-setup-codex-e2e-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const home = path.join(root, 'home');
    const stateDir = path.join(root, 'state');
    const configFile = path.join(home, '.codex', 'config.toml');
    const upstream = await startFakeUpstream(respond);
    cleanups.push(() => upstream.close());
    const own = ownConfig(`${upstream.url}/v1`);
    await fs.mkdir(path.dirname(configFile), { recursive: true });
    await fs.writeFile(configFile, own, { mode: 0o644 });
    await fs.chmod(configFile, 0o644);
    const maskingSettings = path.join(root, 'masking.json');
    await fs.writeFile(maskingSettings, '{}');
    const gateway = await listenGateway({
      port: 0,
      stateDir,
      settingsFile: maskingSettings,
      upstreams: { openai: `${upstream.url}/v1` },
    });
    cleanups.push(() => gateway.close());
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      NO_COLOR: '1',
      OPENAI_API_KEY: 'fake-openai-key',
    };
    await setUpClient(codexClient, {
      gatewayUrl: gateway.url,
      stateDir,
      env,
      gatewayUpstreams: { openai: `${upstream.url}/v1` },
    });
    expect((await fs.stat(configFile)).mode & 0o777).toBe(0o600);

    const startedAt = performance.now();
    const list = await run(['mcp', 'list', '--json'], env, home);
    expect(list.code, list.stderr).toBe(0);
    const servers = JSON.parse(list.stdout) as Array<{ name: string; transport: unknown }>;
    expect(servers.find((server) => server.name === 'toolmask')?.transport).toMatchObject({
      type: 'streamable_http',
      url: `${gateway.url}/mcp`,
      http_headers: { 'x-toolmask-token': expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const get = await run(['mcp', 'get', 'toolmask'], env, home);
    expect(get.stdout).toContain('default_tools_approval_mode: approve');

    const result = await run(['exec', '--skip-git-repo-check', 'Read an output back.'], env, home);
    console.log(
      `codex mcp list, get and exec after setup: ${Math.round(performance.now() - startedAt)} ms`,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(FINAL);
    const requests = upstream.requests.filter((request) => request.path === '/v1/responses');
    expect(requests.length).toBe(2);
    for (const request of requests) {
      expect(request.headers['authorization']).toBe('Bearer fake-openai-key');
    }
    // The call reached the gateway's read-back tool (its own answer about the file).
    expect(toolOutputText(toolOutputsOf(requests[1]!.json)[0]!)).toContain(
      'read_tool_output: no offloaded outputs exist',
    );
    expect((await fs.readdir(path.join(stateDir, 'usage'))).length).toBeGreaterThan(0);

    const undo = await undoClient(codexClient, stateDir);
    expect(undo.lines).toEqual([`${configFile}: put back exactly as it was before setup`]);
    expect(await fs.readFile(configFile, 'utf8')).toBe(own);
    expect((await fs.stat(configFile)).mode & 0o777).toBe(0o644);
    expect(existsSync(`${configFile}.toolmask-backup`)).toBe(false);
  }, 120_000);
});
