/**
 * `toolmask setup codex` for a person signed in with ChatGPT (issue 35, item 2), with the real
 * `codex` binary (npm @openai/codex 0.169.0): a fresh `CODEX_HOME` holds a (fake) ChatGPT
 * sign-in in `auth.json` and the person's config.toml, whose `openai_base_url` stands in for
 * https://chatgpt.com/backend-api/codex (a scripted loopback Responses API fake). After setup a
 * plain `codex exec` goes through a running gateway with codex's own sign-in: four bulky commands,
 * old outputs masked, one read back over MCP, the final answer. `--undo` then gives back every
 * byte of the home.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMaskedSnippet } from '@toolmask/core';
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
import { snapshot } from '../../../test-data/setup-homes.js';
import { codexClient } from './index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const CODEX = path.join(repo, 'node_modules/.bin/codex');
const FINAL = 'FINAL ANSWER: signed in with ChatGPT, through the gateway.';
const SHELL_STEPS = 4;
const MCP_NAMESPACE = 'mcp__toolmask';

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

function respond(request: RecordedUpstreamRequest) {
  if (!request.path.endsWith('/responses'))
    return { json: { object: 'list', data: [], models: [] } };
  const outputs = toolOutputsOf(request.json);
  const step = outputs.length;
  const call = (name: string, args: unknown, namespace?: string) =>
    responsesAnswer([
      {
        functionCall: {
          callId: `call_${step}`,
          name,
          arguments: args,
          ...(namespace ? { namespace } : {}),
        },
      },
    ]);
  if (step < SHELL_STEPS) {
    return call('exec_command', {
      cmd: `seq ${(step + 1) * 100_000} ${(step + 1) * 100_000 + 1_400}`,
    });
  }
  if (step === SHELL_STEPS) {
    const snippet = outputs.map(toolOutputText).find((text) => parseMaskedSnippet(text));
    const file = snippet ? parseMaskedSnippet(snippet)!.filePath : 'no snippet seen';
    return call('read_tool_output', { file, offset: 10, limit: 3 }, MCP_NAMESPACE);
  }
  return responsesAnswer([{ text: FINAL }]);
}

/** A ChatGPT sign-in as codex 0.169.0 keeps it (a token that does not expire before 2100). */
function chatgptLogin() {
  const jwt = [
    { alg: 'none' },
    { 'https://api.openai.com/auth': { chatgpt_account_id: 'acct-1' }, exp: 4_102_444_800 },
  ]
    .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
    .join('.');
  const token = `${jwt}.c2ln`;
  return {
    token,
    login: {
      auth_mode: 'chatgpt',
      OPENAI_API_KEY: null,
      tokens: { id_token: token, access_token: token, refresh_token: 'r', account_id: 'acct-1' },
      last_refresh: new Date().toISOString(),
    },
  };
}

describe.skipIf(!existsSync(CODEX))('toolmask setup codex with a ChatGPT sign-in', () => {
  it('the real codex keeps its sign-in, goes through the gateway, masks and reads back; --undo restores every byte', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-setup-codex-chatgpt-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const home = path.join(root, 'home');
    const codexHome = path.join(root, 'codex-home');
    const stateDir = path.join(root, 'state');
    await fs.mkdir(home, { recursive: true });
    await fs.mkdir(codexHome, { recursive: true });
    const upstream = await startFakeUpstream(respond);
    cleanups.push(() => upstream.close());
    const chatgpt = `${upstream.url}/chatgpt`;
    const configFile = path.join(codexHome, 'config.toml');
    await fs.writeFile(
      configFile,
      `# mine\nmodel = "gpt-5-codex"\nopenai_base_url = "${chatgpt}"\n`,
    );
    const { token, login } = chatgptLogin();
    await fs.writeFile(path.join(codexHome, 'auth.json'), JSON.stringify(login), { mode: 0o600 });
    // codex writes sessions, skills and its database there itself: setup's files are compared.
    const filesOf = async () => {
      const all = await snapshot(codexHome);
      return { config: all['config.toml'], auth: all['auth.json'] };
    };
    const before = await filesOf();
    const maskingSettings = path.join(root, 'masking.json');
    await fs.writeFile(
      maskingSettings,
      JSON.stringify({
        experimental: {
          toolOutputMasking: {
            // A short session: the floor warm rule masks in it (the rule is not the subject).
            toolProtectionThreshold: 5_000,
            minPrunableTokensThreshold: 2_000,
            warmRule: 'floor',
          },
        },
      }),
    );
    const gateway = await listenGateway({
      port: 0,
      stateDir,
      settingsFile: maskingSettings,
      upstreams: { openai: chatgpt },
    });
    cleanups.push(() => gateway.close());
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      CODEX_HOME: codexHome,
      NO_COLOR: '1',
    };
    const setup = await setUpClient(codexClient, {
      gatewayUrl: gateway.url,
      stateDir,
      env,
      gatewayUpstreams: { openai: chatgpt },
    });
    expect(JSON.stringify(setup)).toContain('codex keeps its ChatGPT sign-in');

    const result = await run(['exec', '--skip-git-repo-check', 'Print rows.'], env, home);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(FINAL);
    const posts = upstream.requests.filter((request) => request.method === 'POST');
    expect(posts.length).toBe(SHELL_STEPS + 2);
    for (const request of posts) {
      expect(request.path).toBe('/chatgpt/responses');
      expect(request.headers['authorization']).toBe(`Bearer ${token}`);
      expect(request.headers['chatgpt-account-id']).toBe('acct-1');
      expect(request.headers['content-encoding']).toBeUndefined();
    }
    expect(upstream.requests.some((request) => request.headers['upgrade'])).toBe(false);
    const last = toolOutputsOf(posts.at(-1)!.json).map(toolOutputText);
    expect(last.filter((text) => parseMaskedSnippet(text)).length).toBeGreaterThan(0);
    expect(last.at(-1)).toMatch(/\b[1-4]000\d\d\b/);

    await undoClient(codexClient, stateDir);
    expect(await filesOf()).toEqual(before);
    expect(before.config).toBeDefined();
  }, 180_000);
});
