/**
 * What `toolmask claude` builds for claude: the base URL it routes (the highest settings layer's
 * `env`, else the environment, else the public API), the layer and MCP file it passes (with the
 * person's own `--settings` and custom headers folded in), what it refuses, and that it writes
 * nothing but its own files in the state folder, removed at the end.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { claudeSettingsFlag, withoutClaudeSettingsFlag } from './args.js';
import {
  CLAUDE_READ_BACK_TOOL,
  CLAUDE_SEARCH_TOOL,
  planClaudeLaunch,
  prepareClaudeLaunch,
  withCustomHeader,
} from './launch.js';

const cleanups = cleanUpAfterEach();
const GATEWAY = { url: 'http://127.0.0.1:4321', accessSecret: 'secret' };

async function folders(options: { user?: unknown; project?: unknown; trusted?: boolean } = {}) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-claude-launch-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  await fs.mkdir(path.join(home, '.claude'), { recursive: true });
  await fs.mkdir(path.join(project, '.claude'), { recursive: true });
  if (options.user !== undefined) {
    await fs.writeFile(path.join(home, '.claude', 'settings.json'), JSON.stringify(options.user));
  }
  if (options.project !== undefined) {
    await fs.writeFile(
      path.join(project, '.claude', 'settings.json'),
      JSON.stringify(options.project),
    );
  }
  if (options.trusted) {
    const state = { projects: { [project]: { hasTrustDialogAccepted: true } } };
    await fs.writeFile(path.join(home, '.claude.json'), JSON.stringify(state));
  }
  const env = {
    HOME: home,
    CLAUDE_CODE_MANAGED_SETTINGS_PATH: path.join(root, 'no-managed-settings.json'),
  };
  return { root, home, project, env, stateDir: path.join(root, 'state') };
}

async function snapshot(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await fs.readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files[file] = await fs.readFile(file, 'utf8');
  }
  return files;
}

describe('planClaudeLaunch', () => {
  it('routes the public API by default, and the environment base URL when set', async () => {
    const paths = await folders();
    expect((await planClaudeLaunch(paths.env, paths.project, [])).upstreams).toEqual({});
    const own = { ...paths.env, ANTHROPIC_BASE_URL: 'https://proxy.example/anthropic/' };
    expect((await planClaudeLaunch(own, paths.project, [])).upstreams).toEqual({
      anthropic: 'https://proxy.example/anthropic',
    });
  });

  it("takes the settings' env over the environment, as claude does", async () => {
    const paths = await folders({ user: { env: { ANTHROPIC_BASE_URL: 'https://user.example' } } });
    const env = { ...paths.env, ANTHROPIC_BASE_URL: 'https://env.example' };
    expect((await planClaudeLaunch(env, paths.project, [])).upstreams.anthropic).toBe(
      'https://user.example',
    );
    // The person's own --settings is above the user file.
    const args = [
      '--settings',
      '{"env":{"ANTHROPIC_BASE_URL":"https://flag.example"}}',
      '-p',
      'hi',
    ];
    const plan = await planClaudeLaunch(env, paths.project, args);
    expect(plan.upstreams.anthropic).toBe('https://flag.example');
    expect(plan.args).toEqual(['-p', 'hi']);
  });

  it("reads a project's settings only in a folder the person trusted", async () => {
    const project = { env: { ANTHROPIC_BASE_URL: 'https://repo.example' } };
    const untrusted = await folders({ project });
    expect((await planClaudeLaunch(untrusted.env, untrusted.project, [])).upstreams).toEqual({});
    const trusted = await folders({ project, trusted: true });
    expect((await planClaudeLaunch(trusted.env, trusted.project, [])).upstreams.anthropic).toBe(
      'https://repo.example',
    );
  });

  it("finds the trust of a heavy user's .claude.json, past 1 MB of project history", async () => {
    const project = { env: { ANTHROPIC_BASE_URL: 'https://repo.example' } };
    const trusted = await folders({ project, trusted: true });
    const stateFile = path.join(trusted.home, '.claude.json');
    const state = JSON.parse(await fs.readFile(stateFile, 'utf8')) as {
      projects: Record<string, unknown>;
    };
    for (let index = 0; index < 3_000; index++) {
      state.projects[`/work/old-${index}`] = { history: 'x'.repeat(500) };
    }
    await fs.writeFile(stateFile, JSON.stringify(state));
    expect((await fs.stat(stateFile)).size).toBeGreaterThan(1024 * 1024);
    expect((await planClaudeLaunch(trusted.env, trusted.project, [])).upstreams.anthropic).toBe(
      'https://repo.example',
    );
  });

  it('refuses Bedrock, Vertex AI and a base URL pinned by managed settings', async () => {
    const paths = await folders({ user: { env: { CLAUDE_CODE_USE_BEDROCK: '1' } } });
    await expect(planClaudeLaunch(paths.env, paths.project, [])).rejects.toThrow(
      /Bedrock|another provider/,
    );
    const plain = await folders();
    const managed = path.join(plain.root, 'managed.json');
    await fs.writeFile(managed, JSON.stringify({ env: { ANTHROPIC_BASE_URL: 'https://corp' } }));
    const env = { HOME: plain.home, CLAUDE_CODE_MANAGED_SETTINGS_PATH: managed };
    await expect(planClaudeLaunch(env, plain.project, [])).rejects.toThrow(/managed settings/);
  });
});

describe('prepareClaudeLaunch', () => {
  it('passes a settings layer and an MCP file, keeps the person’s headers, writes nothing of theirs', async () => {
    const user = { env: { ANTHROPIC_CUSTOM_HEADERS: 'x-team: blue' }, model: 'opus' };
    const paths = await folders({ user });
    const before = await snapshot(paths.home);
    const args = ['--settings={"permissions":{"allow":["Bash"]}}', '-p', 'hi'];
    const plan = await planClaudeLaunch(paths.env, paths.project, args);
    const launch = await prepareClaudeLaunch({
      env: { ...paths.env, ANTHROPIC_API_KEY: 'sk-own' },
      gateway: GATEWAY,
      stateDir: paths.stateDir,
      sessionId: 'run-1',
      plan,
    });
    expect(launch.env['ANTHROPIC_BASE_URL']).toBe(`${GATEWAY.url}/anthropic`);
    expect(launch.env['ANTHROPIC_CUSTOM_HEADERS']).toBe('x-team: blue\nx-toolmask-session: run-1');
    expect(launch.env['ANTHROPIC_API_KEY']).toBe('sk-own');
    // The launcher's terminal title (the dashboard) is not replaced by Claude Code's (issue 35).
    expect(launch.env['CLAUDE_CODE_DISABLE_TERMINAL_TITLE']).toBe('1');
    const [settingsArg, mcpArg, allowArg, ...rest] = launch.args;
    expect(rest).toEqual(['-p', 'hi']);
    expect(allowArg).toBe(`--allowedTools=${CLAUDE_READ_BACK_TOOL},${CLAUDE_SEARCH_TOOL}`);
    const settingsFile = settingsArg!.replace(/^--settings=/, '');
    const mcpFile = mcpArg!.replace(/^--mcp-config=/, '');
    expect(JSON.parse(await fs.readFile(settingsFile, 'utf8'))).toEqual({
      permissions: { allow: ['Bash'] },
      env: {
        ANTHROPIC_BASE_URL: `${GATEWAY.url}/anthropic`,
        ANTHROPIC_CUSTOM_HEADERS: 'x-team: blue\nx-toolmask-session: run-1',
      },
    });
    expect(JSON.parse(await fs.readFile(mcpFile, 'utf8'))).toEqual({
      mcpServers: {
        toolmask: {
          type: 'http',
          url: `${GATEWAY.url}/mcp`,
          headers: { 'x-toolmask-token': 'secret' },
        },
      },
    });
    expect((await fs.stat(mcpFile)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.dirname(mcpFile))).mode & 0o777).toBe(0o700);
    expect(await snapshot(paths.home)).toEqual(before);
    expect(launch.summary).toMatch(/^toolmask: claude → https:\/\/api\.anthropic\.com through/);
    await launch.cleanup();
    expect(await fs.readdir(path.join(paths.stateDir, 'launch'))).toEqual([]);
  });
});

describe('prepareClaudeLaunch and credentials', () => {
  it('copies no key or credential header of the person’s --settings to disk: they go in the environment', async () => {
    const paths = await folders();
    const own = {
      env: {
        ANTHROPIC_API_KEY: 'sk-ant-SECRET',
        ANTHROPIC_CUSTOM_HEADERS: 'Authorization: Bearer sk-proxy-SECRET',
      },
    };
    const plan = await planClaudeLaunch(paths.env, paths.project, [
      `--settings=${JSON.stringify(own)}`,
      '-p',
      'hi',
    ]);
    const launch = await prepareClaudeLaunch({
      env: paths.env,
      gateway: GATEWAY,
      stateDir: paths.stateDir,
      sessionId: 'run-2',
      plan,
    });
    const written = await snapshot(path.join(paths.stateDir, 'launch'));
    expect(Object.values(written).join('\n')).not.toMatch(/SECRET/);
    expect(launch.env['ANTHROPIC_API_KEY']).toBe('sk-ant-SECRET');
    expect(launch.env['ANTHROPIC_CUSTOM_HEADERS']).toBe(
      'Authorization: Bearer sk-proxy-SECRET\nx-toolmask-session: run-2',
    );
    await launch.cleanup();
  });

  it('keeps a variable in the layer only where a settings file below would override it', async () => {
    const paths = await folders({ user: { env: { ANTHROPIC_CUSTOM_HEADERS: 'x-team: blue' } } });
    const plan = await planClaudeLaunch(paths.env, paths.project, ['-p', 'hi']);
    const launch = await prepareClaudeLaunch({
      env: paths.env,
      gateway: GATEWAY,
      stateDir: paths.stateDir,
      sessionId: 'run-3',
      plan,
    });
    const settingsFile = launch.args[0]!.replace(/^--settings=/, '');
    expect(JSON.parse(await fs.readFile(settingsFile, 'utf8')).env).toEqual({
      ANTHROPIC_BASE_URL: `${GATEWAY.url}/anthropic`,
      ANTHROPIC_CUSTOM_HEADERS: 'x-team: blue\nx-toolmask-session: run-3',
    });
    await launch.cleanup();
  });
});

describe('claude arguments and headers', () => {
  it('finds and drops --settings in both forms, not after --', () => {
    expect(claudeSettingsFlag(['--settings', 'a.json', '--settings=b.json'])).toBe('b.json');
    expect(claudeSettingsFlag(['--', '--settings', 'a.json'])).toBeUndefined();
    expect(withoutClaudeSettingsFlag(['-p', '--settings', 'a', 'x', '--settings=b'])).toEqual([
      '-p',
      'x',
    ]);
  });

  it('sets the session header once, after the person’s own', () => {
    expect(withCustomHeader(undefined, 'x-toolmask-session', 'a')).toBe('x-toolmask-session: a');
    expect(withCustomHeader('A: 1\r\nx-toolmask-session: old\n', 'x-toolmask-session', 'b')).toBe(
      'A: 1\nx-toolmask-session: b',
    );
  });
});
