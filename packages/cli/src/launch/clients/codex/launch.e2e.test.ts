/**
 * `toolmask codex` end to end with the real `codex` binary (npm @openai/codex 0.169.0,
 * `node_modules/.bin` on PATH), headless (`codex exec`), in a fresh home whose
 * `~/.codex/config.toml` names a provider of the person's own at a scripted loopback fake of the
 * Responses API: four bulky shell commands (`exec_command`), one read-back over MCP (codex calls
 * it in its `mcp__toolmask` namespace), the final answer. The launcher must route the provider
 * through the gateway, mask old outputs, leave the config byte for byte as it was, keep the
 * access secret off codex's command line, print the run's figures and leave no process behind.
 *
 * Codex cuts every command output to 10,000 characters itself, so each command prints about
 * that. The home is under the system's temp folder: codex warns that it cannot create its helper
 * commands' aliases there, which this test does not use.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMaskedSnippet } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { processMarker, processesMarked } from '@toolmask/test-support/marked-processes';
import {
  responsesAnswer,
  toolOutputsOf,
  toolOutputText,
} from '@toolmask/test-support/fake-openai-responses';
import {
  startFakeUpstream,
  type RecordedUpstreamRequest,
} from '@toolmask/test-support/fake-upstream';
import { CODEX_READ_BACK_TOOL, CODEX_TOKEN_VARIABLE } from './launch.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const CLI = path.join(repo, 'packages/cli/dist/index.js');
const BIN = path.join(repo, 'node_modules/.bin');
const SHELL_STEPS = 4;
const FINAL = 'FINAL ANSWER: the numbers are in.';
const MCP_NAMESPACE = 'mcp__toolmask';

const cleanups = cleanUpAfterEach();
const marker = processMarker();

/** About 10,000 characters of numbers (Codex's own cut), different for each step. */
const bulkyCommand = (step: number) =>
  `seq ${(step + 1) * 100_000} ${(step + 1) * 100_000 + 1_400}`;

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
  // The last command also prints its environment: the access secret must not be in it.
  if (step < SHELL_STEPS) {
    return call('exec_command', {
      cmd: `${step === SHELL_STEPS - 1 ? 'env; ' : ''}${bulkyCommand(step)}`,
    });
  }
  if (step === SHELL_STEPS) {
    const snippet = outputs.map(toolOutputText).find((text) => parseMaskedSnippet(text));
    const file = snippet ? parseMaskedSnippet(snippet)!.filePath : 'no snippet seen';
    return call('read_tool_output', { file, offset: 10, limit: 3 }, MCP_NAMESPACE);
  }
  // A line only the first (masked) output holds, found without naming its file.
  if (step === SHELL_STEPS + 1)
    return call('search_tool_outputs', { query: '100009' }, MCP_NAMESPACE);
  return responsesAnswer([{ text: FINAL }], usage);
}

async function run(command: string, args: string[], env: Record<string, string>, cwd: string) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

describe.skipIf(!existsSync(path.join(BIN, 'codex')))('toolmask codex with the real codex', () => {
  it('routes the provider, masks old outputs, reads one back over MCP, prints the figures', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-codex-e2e-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    const state = path.join(root, 'state');
    await fs.mkdir(path.join(home, '.codex'), { recursive: true });
    await fs.mkdir(project);
    const upstream = await startFakeUpstream(respond);
    cleanups.push(() => upstream.close());
    // The person's own config, with a comment and a header of theirs: it must stay as it is.
    const config = [
      '# my codex settings',
      'model = "gpt-5-codex"',
      'model_provider = "fake"',
      '',
      '[model_providers.fake]',
      'name = "Fake"',
      `base_url = "${upstream.url}/v1"`,
      'env_key = "FAKE_KEY"',
      'http_headers = { "x-person" = "mine" }',
      '',
    ].join('\n');
    const configFile = path.join(home, '.codex', 'config.toml');
    await fs.writeFile(configFile, config);
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
    // A stand-in for codex that writes down its arguments, then runs the real one.
    const argvFile = path.join(root, 'argv.txt');
    const wrapper = path.join(root, 'codex-wrapper.sh');
    await fs.writeFile(
      wrapper,
      `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvFile}'\nexec '${path.join(BIN, 'codex')}' "$@"\n`,
      { mode: 0o700 },
    );

    const startedAt = performance.now();
    const result = await run(
      process.execPath,
      [
        CLI,
        'codex',
        '--codex-bin',
        wrapper,
        '--state-dir',
        state,
        '--masking-settings',
        maskingSettings,
        'exec',
        '--skip-git-repo-check',
        'Print some numbers, then read one output back.',
      ],
      {
        PATH: `${BIN}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
        ...marker,
        HOME: home,
        FAKE_KEY: 'fake-openai-key',
        NO_COLOR: '1',
      },
      project,
    );
    console.log(`toolmask codex exec: ${Math.round(performance.now() - startedAt)} ms`);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(FINAL);

    const requests = upstream.requests.filter((request) => request.path === '/v1/responses');
    expect(requests.length).toBe(SHELL_STEPS + 3);
    const session = requests[0]!.headers['session-id'];
    for (const request of upstream.requests) {
      expect(request.headers['authorization']).toBe('Bearer fake-openai-key');
      expect(request.headers['x-person']).toBe('mine');
      // The run's session header is the gateway's, not forwarded.
      expect(request.headers['x-toolmask-session']).toBeUndefined();
    }
    for (const request of requests) expect(request.headers['session-id']).toBe(session);
    const tools = (requests[0]!.json as { tools: Array<{ type: string; name: string }> }).tools;
    expect(tools).toContainEqual(
      expect.objectContaining({ type: 'namespace', name: MCP_NAMESPACE }),
    );
    // Old outputs went as snippets naming codex's MCP tool, the same bytes in every later request.
    const shell = toolOutputsOf(requests[SHELL_STEPS]!.json);
    const masked = shell.map((item) => parseMaskedSnippet(toolOutputText(item)));
    expect(masked.slice(0, -1).every(Boolean)).toBe(true);
    expect(masked.at(-1)).toBeUndefined();
    expect(toolOutputText(shell[0]!)).toContain(`${CODEX_READ_BACK_TOOL}(`);
    const firstSeen = new Map<string, string>();
    for (const request of requests) {
      for (const item of toolOutputsOf(request.json)) {
        if (!parseMaskedSnippet(toolOutputText(item))) continue;
        const bytes = JSON.stringify(item);
        expect(firstSeen.get(item.call_id) ?? bytes).toBe(bytes);
        firstSeen.set(item.call_id, bytes);
      }
    }
    // The read-back over MCP returned lines 10-12 of the first saved output: lines 10-12 of
    // what the command printed (the file is without codex's header: issue 35).
    const readBack = toolOutputsOf(requests.at(-1)!.json).at(-2)!;
    const saved = await fs.readFile(masked[0]!.filePath, 'utf8');
    expect(saved.startsWith('100000\n100001\n')).toBe(true);
    const wanted = saved.split('\n').slice(9, 12).join('\n');
    expect(wanted).toBe('100009\n100010\n100011');
    expect(toolOutputText(readBack)).toContain(
      `Output:\n${wanted}\n[read_tool_output: lines 10-12`,
    );
    // The search over MCP found the line in the first saved output.
    const found = toolOutputText(toolOutputsOf(requests.at(-1)!.json).at(-1)!);
    // codex puts its own header (wall time) before an MCP tool's answer.
    expect(found).toMatch(/\nsearch_tool_outputs: 1 matching line in 1 of \d+ saved outputs/);
    expect(found).toContain(`/${path.basename(masked[0]!.filePath)}\n`);
    expect(found).toMatch(/\n {2}\d+:100009\n/);

    // The person's config is byte for byte as it was; codex's command line holds no secret.
    expect(await fs.readFile(configFile, 'utf8')).toBe(config);
    const argv = await fs.readFile(argvFile, 'utf8');
    const secret = (await fs.readFile(path.join(state, 'access-secret'), 'utf8')).trim();
    expect(secret.length).toBeGreaterThan(8);
    expect(argv).not.toContain(secret);
    // Nor is it in anything sent upstream: the model's commands do not inherit it.
    expect(upstream.requests.length).toBeGreaterThan(0);
    for (const request of upstream.requests)
      expect(request.raw.toString('utf8')).not.toContain(secret);
    expect(argv).toContain(CODEX_TOKEN_VARIABLE);
    expect(argv.split('\n')[0]).toBe('--no-daemon');
    // Nothing of the run is left: no file in the launch folder, no process.
    expect(
      existsSync(path.join(state, 'launch')) ? await fs.readdir(path.join(state, 'launch')) : [],
    ).toEqual([]);
    // No process of the run is left: none still carries the marker its launcher was given.
    expect(processesMarked(marker)).toEqual([]);

    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.find((line) => line.startsWith('toolmask: codex'))).toMatch(
      new RegExp(
        `^toolmask: codex \\(fake\\) → ${upstream.url}/v1 through the gateway at http://127\\.0\\.0\\.1:\\d+; read-back over MCP; dashboard `,
      ),
    );
    // Codex's own session (thread) id, for its resume command through toolmask (issue 35).
    expect(lines.at(-2)).toMatch(
      /^toolmask: resume through toolmask: toolmask codex resume [0-9a-f-]{36}$/,
    );
    expect(lines.at(-3)).toMatch(
      /^toolmask: this run: 7 requests, [1-9]\d* outputs masked, (?:billed \d+(?:\.\d)?% (?:less|more) than without masking \([\d,]+ tokens(?:, \$[\d.]+|; no price for the model of [\d,]+ requests?)\)|billed the same as without masking|net billed not measured \([a-z ]+\))(?: over the [\d,]+ requests with cache figures)?, cache hits \d+% of [\d,]+ prompt tokens \(provider's count\)$/,
    );
    expect(lines.at(-1)).toContain("toolmask: dashboard: this run's gateway stopped with it");
    console.log(
      `${lines.find((line) => line.startsWith('toolmask: codex'))}\n${lines.slice(-3).join('\n')}`,
    );
  }, 60_000);

  it("routes codex's built-in OpenAI provider with its own login (an API key, a ChatGPT login)", async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-codex-e2e-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const upstream = await startFakeUpstream((request) =>
      request.path.endsWith('/responses')
        ? responsesAnswer([{ text: FINAL }], { input: 5_000 })
        : { json: { object: 'list', data: [], models: [] } },
    );
    cleanups.push(() => upstream.close());
    const jwt = [
      { alg: 'none' },
      { 'https://api.openai.com/auth': { chatgpt_account_id: 'acct-1' }, exp: 4_102_444_800 },
    ]
      .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
      .join('.');
    const logins = {
      'api-key': { auth_mode: 'apikey', OPENAI_API_KEY: 'sk-person' },
      chatgpt: {
        auth_mode: 'chatgpt',
        OPENAI_API_KEY: null,
        tokens: {
          id_token: `${jwt}.c2ln`,
          access_token: `${jwt}.c2ln`,
          refresh_token: 'r',
          account_id: 'acct-1',
        },
        last_refresh: new Date().toISOString(),
      },
    };
    for (const [kind, login] of Object.entries(logins)) {
      const home = path.join(root, kind);
      await fs.mkdir(path.join(home, '.codex'), { recursive: true });
      // openai_base_url stands in for the public endpoint the login would reach.
      const config = `openai_base_url = "${upstream.url}/${kind}"\n`;
      await fs.writeFile(path.join(home, '.codex', 'config.toml'), config);
      await fs.writeFile(path.join(home, '.codex', 'auth.json'), JSON.stringify(login), {
        mode: 0o600,
      });
      const seen = upstream.requests.length;
      const result = await run(
        process.execPath,
        [
          CLI,
          'codex',
          '--state-dir',
          path.join(root, 'state'),
          'exec',
          '--skip-git-repo-check',
          'hi',
        ],
        {
          PATH: `${BIN}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
          ...marker,
          HOME: home,
          NO_COLOR: '1',
        },
        root,
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe(FINAL);
      expect(result.stderr).toContain(
        `toolmask: codex (openai, ${kind === 'chatgpt' ? 'ChatGPT login' : 'API key'}) → ${upstream.url}/${kind} through the gateway`,
      );
      const posts = upstream.requests.slice(seen).filter((request) => request.method === 'POST');
      expect(posts.map((request) => request.path)).toEqual([`/${kind}/responses`]);
      const headers = posts[0]!.headers;
      // No WebSocket attempt, no compressed body, the person's credential forwarded.
      expect(upstream.requests.slice(seen).some((request) => request.headers['upgrade'])).toBe(
        false,
      );
      expect(headers['content-encoding']).toBeUndefined();
      if (kind === 'chatgpt') {
        expect(headers['authorization']).toBe(`Bearer ${jwt}.c2ln`);
        expect(headers['chatgpt-account-id']).toBe('acct-1');
      } else {
        expect(headers['authorization']).toBe('Bearer sk-person');
      }
      expect(await fs.readFile(path.join(home, '.codex', 'config.toml'), 'utf8')).toBe(config);
    }
  }, 60_000);
});
