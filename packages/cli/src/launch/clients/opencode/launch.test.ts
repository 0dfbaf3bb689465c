/**
 * What `toolmask opencode` builds for opencode: which providers it routes (the OpenAI-compatible
 * ones of the merged config), what it refuses, the one config layer it passes in the environment
 * (the person's own `OPENCODE_CONFIG_CONTENT` kept), the prune note, and that it writes nothing.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { opencodeModelFlag } from './args.js';
import { planOpencodeLaunch, prepareOpencodeLaunch, pruneNote } from './launch.js';

const cleanups = cleanUpAfterEach();
const GATEWAY = { url: 'http://127.0.0.1:4321', accessSecret: 'a1b2c3d4e5f6' };

const compatible = (baseURL: string) => ({
  npm: '@ai-sdk/openai-compatible',
  options: { baseURL, apiKey: 'k' },
  models: { m1: {} },
});

async function folders(options: { global?: unknown; project?: unknown } = {}) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-opencode-launch-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  await fs.mkdir(path.join(home, '.config', 'opencode'), { recursive: true });
  await fs.mkdir(path.join(project, '.git'), { recursive: true });
  if (options.global !== undefined) {
    const file = path.join(home, '.config', 'opencode', 'opencode.json');
    await fs.writeFile(file, JSON.stringify(options.global));
  }
  if (options.project !== undefined) {
    await fs.writeFile(path.join(project, 'opencode.json'), JSON.stringify(options.project));
  }
  return { root, home, project, env: { HOME: home, PWD: project } };
}

describe('planOpencodeLaunch', () => {
  it('routes each OpenAI-compatible provider of the merged config', async () => {
    const paths = await folders({
      global: { provider: { a: compatible('https://a.example/v1') } },
      project: {
        provider: { b: compatible('{env:B_URL}'), c: { npm: '@ai-sdk/anthropic' } },
        model: 'b/m1',
      },
    });
    const plan = await planOpencodeLaunch({ ...paths.env, B_URL: 'http://b:1/v1' }, '/', []);
    expect(plan.upstreams).toEqual({
      openaiNamed: { o0: 'https://a.example/v1', o1: 'http://b:1/v1' },
    });
    expect(plan.model).toBe('b/m1');
    expect(plan.pruneOn).toBe(false);
  });

  it('refuses a model of a provider it cannot route, and a config with none', async () => {
    const paths = await folders({ project: { provider: { a: compatible('https://a/v1') } } });
    await expect(
      planOpencodeLaunch(paths.env, paths.project, ['-m', 'amazon-bedrock/x']),
    ).rejects.toThrow(/provider "amazon-bedrock"/);
    const empty = await folders();
    await expect(planOpencodeLaunch(empty.env, empty.project, [])).rejects.toThrow(
      /no provider toolmask can route/,
    );
  });

  it("routes opencode's own anthropic, openai, google and github-copilot to their fronts (issue 35)", async () => {
    const paths = await folders();
    const plan = await planOpencodeLaunch(paths.env, paths.project, [
      '-m',
      'anthropic/claude-sonnet-4-5',
    ]);
    expect(plan.upstreams).toEqual({ anthropic: 'https://api.anthropic.com' });
    expect([...plan.routes]).toEqual([
      [
        'anthropic',
        { front: 'anthropic', url: 'https://api.anthropic.com', gatewayPath: '/anthropic/v1' },
      ],
    ]);
    // Keys in the environment, a sign-in in auth.json, a base URL of the person's own.
    const data = path.join(paths.root, 'data');
    await fs.mkdir(path.join(data, 'opencode'), { recursive: true });
    await fs.writeFile(
      path.join(data, 'opencode', 'auth.json'),
      JSON.stringify({ 'github-copilot': { type: 'oauth', enterpriseUrl: 'ghe.example.com' } }),
    );
    const env = {
      ...paths.env,
      XDG_DATA_HOME: data,
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: 'https://proxy.example/v1',
      GEMINI_API_KEY: 'g',
    };
    const all = await planOpencodeLaunch(env, paths.project, ['-m', 'google/gemini-2.5-pro']);
    expect(all.upstreams).toEqual({
      gemini: 'https://generativelanguage.googleapis.com',
      openaiNamed: { o0: 'https://proxy.example/v1', o2: 'https://copilot-api.ghe.example.com' },
    });
    expect(all.routes.get('google')?.gatewayPath).toBe('/gemini/v1beta');
  });

  it('routes a ChatGPT sign-in of opencode to the ChatGPT endpoint, and says why a base URL cannot be routed', async () => {
    const paths = await folders({
      project: {
        provider: { anthropic: { options: { baseURL: 'https://proxy.example/claude' } } },
      },
    });
    const data = path.join(paths.root, 'data');
    await fs.mkdir(path.join(data, 'opencode'), { recursive: true });
    await fs.writeFile(
      path.join(data, 'opencode', 'auth.json'),
      JSON.stringify({ openai: { type: 'oauth', access: 'a', refresh: 'r', expires: 1 } }),
    );
    const env = { ...paths.env, XDG_DATA_HOME: data };
    const plan = await planOpencodeLaunch(env, paths.project, ['-m', 'openai/gpt-5']);
    expect(plan.upstreams).toEqual({
      openaiNamed: { o0: 'https://chatgpt.com/backend-api/codex' },
    });
    await expect(
      planOpencodeLaunch(env, paths.project, ['-m', 'anthropic/claude-sonnet-4-5']),
    ).rejects.toThrow(/"anthropic".*does not end in \/v1/);
  });

  it('notes a prune the person turned on, unless OPENCODE_DISABLE_PRUNE', async () => {
    const project = { provider: { a: compatible('https://a/v1') }, compaction: { prune: true } };
    const paths = await folders({ project });
    const plan = await planOpencodeLaunch(paths.env, paths.project, []);
    expect(pruneNote(plan)).toMatch(/prune is on/);
    const off = await planOpencodeLaunch(
      { ...paths.env, OPENCODE_DISABLE_PRUNE: '1' },
      paths.project,
      [],
    );
    expect(pruneNote(off)).toBeUndefined();
  });
});

describe('prepareOpencodeLaunch', () => {
  it('passes one layer in OPENCODE_CONFIG_CONTENT, the person’s own kept, and writes nothing', async () => {
    const config = { provider: { a: compatible('https://a.example/v1') }, model: 'a/m1' };
    const paths = await folders({ project: config });
    const own = JSON.stringify({ theme: 'dark', provider: { a: { options: { timeout: 5 } } } });
    const env = { ...paths.env, OPENCODE_CONFIG_CONTENT: own };
    const plan = await planOpencodeLaunch(env, paths.project, []);
    const launch = prepareOpencodeLaunch({
      env,
      gateway: GATEWAY,
      sessionId: 'run-1',
      plan,
      stateDir: '/state',
    });
    // The layer is in opencode's environment, which the model's commands inherit: it names the
    // secret's file, never the secret.
    expect(launch.env['OPENCODE_CONFIG_CONTENT']).not.toContain(GATEWAY.accessSecret);
    expect(JSON.parse(launch.env['OPENCODE_CONFIG_CONTENT']!)).toEqual({
      theme: 'dark',
      provider: {
        a: {
          options: {
            timeout: 5,
            baseURL: `${GATEWAY.url}/openai/~o0`,
            headers: { 'x-toolmask-session': 'run-1' },
          },
        },
      },
      mcp: {
        toolmask: {
          type: 'remote',
          url: `${GATEWAY.url}/mcp`,
          headers: { 'x-toolmask-token': '{file:/state/access-secret}' },
          enabled: true,
        },
      },
    });
    expect(launch.summary).toMatch(/^toolmask: opencode → https:\/\/a\.example\/v1 through/);
    expect(launch.notes).toEqual([]);
    expect(
      JSON.parse(await fs.readFile(path.join(paths.project, 'opencode.json'), 'utf8')),
    ).toEqual(config);
    expect(await launch.cleanup()).toEqual([]);
  });

  it('reads -m/--model in every form, the last one winning', () => {
    expect(opencodeModelFlag(['run', '-m', 'a/b', 'hi'])).toBe('a/b');
    expect(opencodeModelFlag(['--model=a/b', '--model', 'c/d'])).toBe('c/d');
    expect(opencodeModelFlag(['--', '-m', 'a/b'])).toBeUndefined();
  });
});
