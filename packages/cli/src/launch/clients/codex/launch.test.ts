/**
 * What `toolmask codex` builds for codex: the provider and upstream it routes (the person's
 * config layers and their own `-c` overrides), the `-c` overrides it adds (no secret in them),
 * what it refuses, and that it writes nothing: the person's files stay as they were and the state
 * folder gets no file of the run.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { readCodexArgs, splitRoutingOverrides } from './args.js';
import {
  CODEX_OPENAI_PROVIDER,
  CODEX_SESSION_VARIABLE,
  CODEX_TOKEN_VARIABLE,
  CodexLaunchError,
  planCodexLaunch,
  prepareCodexLaunch,
} from './launch.js';
import { parseOverrideValue, parseToml } from '../../files/toml-values.js';

const cleanups = cleanUpAfterEach();
const GATEWAY = { url: 'http://127.0.0.1:4321', accessSecret: 'the-access-secret' };

async function home(files: Record<string, string> = {}) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-codex-launch-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const codex = path.join(root, 'home', '.codex');
  await fs.mkdir(codex, { recursive: true });
  await fs.mkdir(path.join(root, 'project'));
  for (const [name, text] of Object.entries(files))
    await fs.writeFile(path.join(codex, name), text);
  return { root, env: { HOME: path.join(root, 'home') }, cwd: path.join(root, 'project'), codex };
}

async function snapshot(folder: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await fs.readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const stats = await fs.stat(file);
    result[file] = `${stats.mode.toString(8)} ${await fs.readFile(file, 'utf8')}`;
  }
  return result;
}

const CUSTOM = [
  '# mine',
  'model_provider = "mine"',
  '[model_providers.mine]',
  'name = "Mine"',
  'base_url = "https://llm.example.com/v1/"',
  'env_key = "MINE_KEY"',
  '',
].join('\n');

describe('planCodexLaunch', () => {
  it("routes a provider of the person's own: its base URL is the upstream", async () => {
    const { env, cwd } = await home({ 'config.toml': CUSTOM });
    const plan = await planCodexLaunch(env, cwd, ['exec', 'hi']);
    expect(plan).toMatchObject({
      provider: 'mine',
      upstream: 'https://llm.example.com/v1',
      upstreams: { openai: 'https://llm.example.com/v1' },
      azure: false,
      routingArgs: [],
      args: ['exec', 'hi'],
    });
  });

  it('routes the built-in OpenAI provider where the login goes', async () => {
    const apiKey = await home({ 'auth.json': JSON.stringify({ OPENAI_API_KEY: 'sk-x' }) });
    expect(await planCodexLaunch(apiKey.env, apiKey.cwd, [])).toMatchObject({
      provider: 'openai',
      auth: 'api-key',
      upstream: 'https://api.openai.com/v1',
    });
    const chatgpt = await home({
      'auth.json': JSON.stringify({ auth_mode: 'chatgpt', tokens: { access_token: 't' } }),
    });
    expect(await planCodexLaunch(chatgpt.env, chatgpt.cwd, [])).toMatchObject({
      auth: 'chatgpt',
      upstream: 'https://chatgpt.com/backend-api/codex',
    });
    const own = await home({ 'config.toml': 'openai_base_url = "https://proxy.example/v1"\n' });
    expect(await planCodexLaunch({ ...own.env, CODEX_API_KEY: 'k' }, own.cwd, [])).toMatchObject({
      auth: 'api-key',
      upstream: 'https://proxy.example/v1',
    });
  });

  it("takes the person's profile and -c overrides, and moves those overrides before the launcher's", async () => {
    const { env, cwd } = await home({
      'config.toml': `${CUSTOM}[model_providers.other]\nbase_url = "https://other.example/v1"\n`,
      'work.config.toml': 'model_provider = "other"\n',
    });
    expect((await planCodexLaunch(env, cwd, ['-p', 'work'])).upstream).toBe(
      'https://other.example/v1',
    );
    const args = [
      'exec',
      '-c',
      'model_providers.mine.base_url="https://cli.example/v1"',
      '-c',
      'model="o3"',
      'hi',
    ];
    const plan = await planCodexLaunch(env, cwd, args);
    expect(plan.upstream).toBe('https://cli.example/v1');
    expect(plan.routingArgs).toEqual([
      '-c',
      'model_providers.mine.base_url="https://cli.example/v1"',
    ]);
    expect(plan.args).toEqual(['exec', '-c', 'model="o3"', 'hi']);
    // A terminal title the person chose (in a file or with -c) is left as theirs.
    const titled = await planCodexLaunch(env, cwd, ['-c', 'tui.terminal_title=["project"]']);
    const launched = prepareCodexLaunch({ env, gateway: GATEWAY, sessionId: 's', plan: titled });
    expect(launched.args.join(' ')).not.toContain('tui.terminal_title=[]');
    expect(launched.args.slice(-2)).toEqual(['-c', 'tui.terminal_title=["project"]']);
  });

  it('refuses what it cannot route, before anything starts', async () => {
    const cases: Array<[Record<string, string>, string[], RegExp]> = [
      [{}, [], /cannot tell how your codex signs in/],
      [{ 'config.toml': CUSTOM }, ['--oss'], /--oss/],
      [{ 'config.toml': 'model_provider = "nowhere"\n' }, [], /is not defined/],
      [{ 'config.toml': 'model_provider = "ollama"\n' }, [], /built-in "ollama"/],
      [
        {
          'config.toml':
            'model_provider = "c"\n[model_providers.c]\nbase_url = "http://x/v1"\nwire_api = "chat"\n',
        },
        [],
        /wire_api = "chat"/,
      ],
      [
        { 'config.toml': 'model_provider = "b"\n[model_providers.b]\naws = { profile = "p" }\n' },
        [],
        /AWS/,
      ],
      [{ 'config.toml': 'model_provider = [\n' }, [], /not valid TOML/],
    ];
    for (const [files, args, message] of cases) {
      const { env, cwd } = await home(files);
      const attempt = planCodexLaunch(env, cwd, args);
      await expect(attempt).rejects.toThrow(CodexLaunchError);
      await expect(attempt).rejects.toThrow(message);
    }
  });
});

describe('prepareCodexLaunch', () => {
  it('routes by -c overrides and the environment; no secret on the command line, no file written', async () => {
    const { root, env, cwd } = await home({ 'config.toml': CUSTOM });
    const before = await snapshot(root);
    const plan = await planCodexLaunch(env, cwd, ['exec', 'hi']);
    const launch = prepareCodexLaunch({ env, gateway: GATEWAY, sessionId: 'session-1', plan });
    expect(launch.args).toEqual([
      '--no-daemon',
      '-c',
      'model_provider="mine"',
      '-c',
      'model_providers.mine.base_url="http://127.0.0.1:4321/openai"',
      '-c',
      'model_providers.mine.supports_websockets=false',
      '-c',
      `model_providers.mine.env_http_headers.x-toolmask-session="${CODEX_SESSION_VARIABLE}"`,
      '-c',
      `mcp_servers.toolmask={ "url" = "http://127.0.0.1:4321/mcp", "env_http_headers" = { "x-toolmask-token" = "${CODEX_TOKEN_VARIABLE}" }, "default_tools_approval_mode" = "approve", "required" = true }`,
      '-c',
      'shell_environment_policy.exclude=["TOOLMASK_*"]',
      // Codex sets no terminal title of its own: the launcher's says where the dashboard is.
      '-c',
      'tui.terminal_title=[]',
      'exec',
      'hi',
    ]);
    expect(launch.args.join(' ')).not.toContain(GATEWAY.accessSecret);
    expect(launch.env[CODEX_TOKEN_VARIABLE]).toBe(GATEWAY.accessSecret);
    expect(launch.env[CODEX_SESSION_VARIABLE]).toBe('session-1');
    expect(launch.env['NO_PROXY']).toBe('127.0.0.1,localhost');
    expect(launch.summary).toMatch(
      /^toolmask: codex \(mine\) → https:\/\/llm\.example\.com\/v1 through the gateway at http:\/\/127\.0\.0\.1:4321; read-back over MCP; dashboard /,
    );
    expect(await launch.cleanup()).toEqual([]);
    // Every override parses as codex reads it.
    for (let index = 2; index < launch.args.length - 2; index += 2) {
      const text = launch.args[index]!;
      expect(() =>
        parseToml(`${text.slice(0, text.indexOf('='))} = ${text.slice(text.indexOf('=') + 1)}`),
      ).not.toThrow();
    }
    expect(await snapshot(root)).toEqual(before);
    // (The snapshot holds each file's mode: none changed, none was added.)
  });

  it('defines its own provider for the built-in OpenAI one; a ChatGPT login gets another name', async () => {
    for (const [auth, name] of [
      [{ OPENAI_API_KEY: 'sk-x' }, 'OpenAI'],
      [{ tokens: { access_token: 't' } }, 'OpenAI (ChatGPT) through toolmask'],
    ] as const) {
      const { env, cwd } = await home({ 'auth.json': JSON.stringify(auth) });
      const plan = await planCodexLaunch(env, cwd, []);
      const args = prepareCodexLaunch({ env, gateway: GATEWAY, sessionId: 's', plan }).args;
      expect(args.slice(1, 3)).toEqual(['-c', `model_provider="${CODEX_OPENAI_PROVIDER}"`]);
      const table = args[4]!;
      expect(table.startsWith(`model_providers.${CODEX_OPENAI_PROVIDER}=`)).toBe(true);
      const value = parseOverrideValue(table.slice(table.indexOf('=') + 1));
      expect(value).toMatchObject({
        name,
        base_url: 'http://127.0.0.1:4321/openai',
        requires_openai_auth: true,
        supports_websockets: false,
        env_http_headers: { 'x-toolmask-session': CODEX_SESSION_VARIABLE },
      });
    }
  });
});

describe('codex arguments and TOML', () => {
  it('reads -c, -p and -C in their forms and stops at --', () => {
    const read = readCodexArgs([
      '-cmodel_provider="a"',
      '--config=x.y=1',
      '--profile',
      'p',
      '-C',
      'dir',
      '--',
      '-c',
      'k=v',
    ]);
    expect(read.overrides.map((o) => [o.keys, o.value])).toEqual([
      [['model_provider'], 'a'],
      [['x', 'y'], 1],
    ]);
    expect(read).toMatchObject({ profile: 'p', cd: 'dir', oss: false });
    expect(
      splitRoutingOverrides([
        'exec',
        '--config',
        'model_provider=b',
        '--',
        '-c',
        'model_provider=c',
      ]),
    ).toEqual({
      routing: ['-c', 'model_provider=b'],
      rest: ['exec', '--', '-c', 'model_provider=c'],
    });
  });

  it('reads the TOML codex config files use', () => {
    const text = [
      '\ufeff# comment',
      'a = "x\\ty" # trailing',
      "b = 'C:\\path'",
      'c = """\nline\\\n   joined"""',
      'd = [1, 2_000, 0x10, -3.5e2, true,',
      '  # inside',
      '  "s", ]',
      'e.f = { g = 1, "h.i" = { j = false } }',
      'when = 1979-05-27T07:32:00Z',
      '[t."quoted key".u]',
      'v = 1',
      '[[list]]',
      'n = 1',
      '[[list]]',
      'n = 2',
      '[list.sub]',
      'm = 3',
    ].join('\n');
    expect(parseToml(text)).toEqual({
      a: 'x\ty',
      b: 'C:\\path',
      c: 'linejoined',
      d: [1, 2000, 16, -350, true, 's'],
      e: { f: { g: 1, 'h.i': { j: false } } },
      when: '1979-05-27T07:32:00.000Z',
      t: { 'quoted key': { u: { v: 1 } } },
      list: [{ n: 1 }, { n: 2, sub: { m: 3 } }],
    });
    expect(() => parseToml('a = 1\na = 2\n')).toThrow(/^line 2: trying to redefine/);
    expect(parseOverrideValue('o3')).toBe('o3');
    expect(parseOverrideValue('"o3"')).toBe('o3');
  });
});
