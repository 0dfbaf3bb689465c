/**
 * Where `toolmask qwen` finds the person's base URL (qwen's own order: the flag, the environment,
 * the settings' security.auth.baseUrl) and that qwen itself is then sent to the gateway: a flag's
 * value is replaced by the gateway route, since the flag wins over OPENAI_BASE_URL in qwen.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { deadPid } from '@toolmask/test-support/dead-pid';
import { planQwenLaunch, prepareQwenLaunch, truncationNote } from './launch.js';

const cleanups = cleanUpAfterEach();
const GATEWAY = 'http://127.0.0.1:4321';

async function folders(userSettings?: unknown) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-qwen-launch-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  await fs.mkdir(path.join(home, '.qwen'), { recursive: true });
  await fs.mkdir(project);
  // An empty .env in the project: the search for one stops here (not the real home's).
  await fs.writeFile(path.join(project, '.env'), '');
  if (userSettings !== undefined) {
    await fs.writeFile(path.join(home, '.qwen', 'settings.json'), JSON.stringify(userSettings));
  }
  const env = {
    HOME: home,
    QWEN_CODE_SYSTEM_SETTINGS_PATH: path.join(root, 'no-system-settings.json'),
    QWEN_CODE_SYSTEM_DEFAULTS_PATH: path.join(root, 'no-system-defaults.json'),
  };
  return { root, home, project, env, stateDir: path.join(root, 'state') };
}

async function prepare(paths: Awaited<ReturnType<typeof folders>>, args: string[], env = {}) {
  const plan = await planQwenLaunch({ ...paths.env, ...env }, paths.project, args);
  const launch = await prepareQwenLaunch({
    env: { ...paths.env, ...env },
    gateway: { url: GATEWAY, accessSecret: 'a'.repeat(64) },
    stateDir: paths.stateDir,
    sessionId: 'session-1',
    plan,
  });
  cleanups.push(async () => void (await launch.cleanup()));
  return { plan, launch };
}

describe('toolmask qwen and the base URL', () => {
  it('--openai-base-url is the upstream, and qwen gets the gateway route in its place', async () => {
    const paths = await folders();
    for (const [args, expected] of [
      [
        ['-p', 'hi', '--openai-base-url', 'https://provider.example/v1'],
        ['-p', 'hi', '--openai-base-url', `${GATEWAY}/openai/v1`],
      ],
      [
        ['--openai-base-url=https://provider.example/v1', '-p', 'hi'],
        [`--openai-base-url=${GATEWAY}/openai/v1`, '-p', 'hi'],
      ],
      [
        ['--openaiBaseUrl', 'https://provider.example/v1'],
        ['--openaiBaseUrl', `${GATEWAY}/openai/v1`],
      ],
    ] as const) {
      // The flag wins over the environment, in qwen and here.
      const { plan, launch } = await prepare(paths, [...args], {
        OPENAI_BASE_URL: 'https://from-env.example/v1',
      });
      expect(plan.upstreams.openai).toBe('https://provider.example/v1');
      expect(launch.args).toEqual(expected);
      expect(launch.env['OPENAI_BASE_URL']).toBe(`${GATEWAY}/openai/v1`);
    }
  });

  it('without the flag, the arguments go to qwen as they are', async () => {
    const paths = await folders();
    const { plan, launch } = await prepare(paths, ['-p', 'hi', '--yolo'], {
      OPENAI_BASE_URL: 'https://from-env.example/v1',
    });
    expect(plan.upstreams.openai).toBe('https://from-env.example/v1');
    expect(launch.args).toEqual(['-p', 'hi', '--yolo']);
  });

  it("takes security.auth.baseUrl from qwen's settings when nothing else names one", async () => {
    const paths = await folders({
      security: { auth: { selectedType: 'openai', baseUrl: 'https://from-settings.example/v1' } },
    });
    const { plan, launch } = await prepare(paths, ['-p', 'hi']);
    expect(plan.upstreams.openai).toBe('https://from-settings.example/v1');
    // The variable qwen gets wins over its settings' baseUrl.
    expect(launch.env['OPENAI_BASE_URL']).toBe(`${GATEWAY}/openai/v1`);
    // The environment still wins over the settings, as in qwen.
    const fromEnv = await planQwenLaunch(
      { ...paths.env, OPENAI_BASE_URL: 'https://from-env.example/v1' },
      paths.project,
      [],
    );
    expect(fromEnv.upstreams.openai).toBe('https://from-env.example/v1');
  });
});

describe("qwen's terminal title", () => {
  it('sets none of its own for the run, unless the person chose (issue 35)', async () => {
    const layerOf = async (launch: Awaited<ReturnType<typeof prepare>>['launch']) =>
      JSON.parse(await fs.readFile(launch.env['QWEN_CODE_SYSTEM_SETTINGS_PATH']!, 'utf8')) as {
        ui?: unknown;
      };
    const env = { OPENAI_BASE_URL: 'https://provider.example/v1' };
    const plain = await prepare(await folders(), [], env);
    expect((await layerOf(plain.launch)).ui).toEqual({ hideWindowTitle: true });
    const chosen = await prepare(await folders({ ui: { hideWindowTitle: false } }), [], env);
    expect((await layerOf(chosen.launch)).ui).toBeUndefined();
  });
});

describe('qwen layers left behind', () => {
  it("a killed launcher's layer (it may hold an API key) is removed by the next launch", async () => {
    const paths = await folders();
    const launchDir = path.join(paths.stateDir, 'launch');
    await fs.mkdir(launchDir, { recursive: true });
    const killed = path.join(launchDir, `qwen-${await deadPid()}-0123abcd.json`);
    const running = path.join(launchDir, `qwen-${process.pid}-4567cdef.json`);
    await fs.writeFile(killed, '{"security":{"auth":{"apiKey":"secret"}}}');
    await fs.writeFile(running, '{}');
    const { launch } = await prepare(paths, ['-p', 'hi'], {
      OPENAI_BASE_URL: 'https://from-env.example/v1',
    });
    await expect(fs.stat(killed)).rejects.toThrow();
    expect((await fs.stat(running)).isFile()).toBe(true);
    // Its own layer is there while it runs, and gone after.
    const own = launch.env['QWEN_CODE_SYSTEM_SETTINGS_PATH']!;
    expect((await fs.stat(own)).isFile()).toBe(true);
    await launch.cleanup();
    await expect(fs.stat(own)).rejects.toThrow();
  });
});

describe("the note on qwen's own truncation (issue 24, item 6)", () => {
  it.each([
    ['the defaults', undefined, /about 25,000-30,000 characters by default/],
    [
      'a threshold of its own',
      { tools: { truncateToolOutputThreshold: 40_000 } },
      /40,000 characters, your setting/,
    ],
    ['truncation off (0)', { tools: { truncateToolOutputThreshold: 0 } }, undefined],
    ['truncation off (-1)', { tools: { truncateToolOutputThreshold: -1 } }, undefined],
    ['lines off', { tools: { truncateToolOutputLines: 0 } }, undefined],
  ])('%s', async (_name, settings, expected) => {
    const paths = await folders({ ...(settings ?? {}) });
    const env = { ...paths.env, OPENAI_BASE_URL: 'https://example.test/v1' };
    const plan = await planQwenLaunch(env, paths.project, []);
    const note = truncationNote(plan, env);
    if (expected === undefined) {
      expect(note).toBeUndefined();
      return;
    }
    expect(note).toMatch(expected);
    expect(note).toContain('tools.truncateToolOutputThreshold');
    expect(note).toContain(path.join(paths.home, '.qwen', 'settings.json'));
    // Said once, among the launch's notes.
    const launch = await prepareQwenLaunch({
      env,
      gateway: { url: GATEWAY, accessSecret: 'a'.repeat(64) },
      stateDir: paths.stateDir,
      sessionId: 's',
      plan,
    });
    cleanups.push(async () => void (await launch.cleanup()));
    expect(launch.notes).toEqual([note]);
  });
});
