/**
 * What a person must fix before a launch or a setup (here: a settings file that is not valid)
 * is a clear line and exit 2 for every command, never "unexpected error" with a stack.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../program.js';

let root: string | undefined;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
  root = undefined;
});

async function run(args: string[], env: Record<string, string>, cwd: string) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
    cwd,
  });
  return { code, stdout, stderr };
}

describe('a settings file that is not valid JSON', () => {
  it.each([
    ['setup gemini', ['setup', 'gemini'], '.gemini'],
    ['gemini', ['gemini', '--gemini-bin', '/bin/true', '-p', 'hi'], '.gemini'],
    ['qwen', ['qwen', '--qwen-bin', '/bin/true', '-p', 'hi'], '.qwen'],
  ])('toolmask %s: names the file, exit 2', async (_name, args, folder) => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-launch-errors-'));
    const home = path.join(root, 'home');
    const settings = path.join(home, folder, 'settings.json');
    await fs.mkdir(path.dirname(settings), { recursive: true });
    await fs.writeFile(settings, '{ "a": 1,, }');
    // Every home the commands know points into the temp folder: nothing of this machine's.
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      GEMINI_CLI_HOME: home,
      QWEN_HOME: path.join(home, '.qwen'),
      TOOLMASK_HOME: path.join(root, 'toolmask'),
      GEMINI_API_KEY: 'x',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_API_KEY: 'x',
    };
    const result = await run(args, env, root);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(settings);
    expect(result.stderr).not.toContain('unexpected error');
    // Nothing was set up or left behind.
    await expect(fs.readFile(settings, 'utf8')).resolves.toBe('{ "a": 1,, }');
    await expect(
      fs.stat(path.join(root, 'toolmask', 'gateway', 'setup-gemini.json')),
    ).rejects.toThrow(/ENOENT/);
  });
});

describe('toolmask gemini with no auth type and no API key', () => {
  it('says what to do, exit 2, before any gateway starts', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-launch-errors-'));
    const home = path.join(root, 'home');
    await fs.mkdir(path.join(home, '.gemini'), { recursive: true });
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      GEMINI_CLI_HOME: home,
      TOOLMASK_HOME: path.join(root, 'toolmask'),
    };
    const result = await run(['gemini', '--gemini-bin', '/bin/true', '-p', 'hi'], env, root);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('gemini has no auth method chosen yet');
    // No gateway was started: its state folder was never made.
    await expect(fs.stat(path.join(root, 'toolmask'))).rejects.toThrow(/ENOENT/);
  });
});

/** A temporary home for one command (every home the commands know points into it). */
async function home() {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-launch-errors-'));
  const homeDir = path.join(root, 'home');
  await fs.mkdir(path.join(homeDir, '.gemini'), { recursive: true });
  await fs.mkdir(path.join(homeDir, '.qwen'), { recursive: true });
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: homeDir,
    GEMINI_CLI_HOME: homeDir,
    QWEN_HOME: path.join(homeDir, '.qwen'),
    TOOLMASK_HOME: path.join(root, 'toolmask'),
    GEMINI_API_KEY: 'x',
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    OPENAI_API_KEY: 'x',
  };
  return { root, home: homeDir, env };
}

describe('a client that is not installed (issue 24, item 10)', () => {
  it.each([
    [
      'gemini',
      ['gemini', '--gemini-bin', 'no-such-gemini-here', '-p', 'hi'],
      127,
      'command not found',
    ],
    ['qwen', ['qwen', '--qwen-bin', 'no-such-qwen-here', '-p', 'hi'], 127, 'command not found'],
    [
      'gemini (not executable)',
      ['gemini', '--gemini-bin', './plain-file', '-p', 'hi'],
      126,
      'not executable',
    ],
  ])(
    'toolmask %s: one line, its exit code, nothing started or printed before',
    async (_name, args, code, words) => {
      const paths = await home();
      await fs.writeFile(path.join(paths.root, 'plain-file'), 'not a program\n', { mode: 0o644 });
      const result = await run(args, paths.env, paths.root);
      expect(result.code, result.stderr).toBe(code);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(words);
      expect(result.stderr).not.toContain('gateway at');
      await expect(fs.stat(path.join(paths.root, 'toolmask'))).rejects.toThrow(/ENOENT/);
    },
  );
});

describe('mistakes in the masking settings (issue 24, item 4)', () => {
  it.each([
    ['gemini', ['gemini', '--gemini-bin', '/bin/true', '-p', 'hi'], '.gemini'],
    ['qwen', ['qwen', '--qwen-bin', '/bin/true', '-p', 'hi'], '.qwen'],
  ])(
    'toolmask %s: the file, the key, the type expected and the key meant; exit 2',
    async (_name, args, folder) => {
      const paths = await home();
      const settings = path.join(paths.home, folder, 'settings.json');
      await fs.writeFile(
        settings,
        JSON.stringify({
          experimental: {
            toolOutputMasking: { toolProtectionThreshold: '50k', minPrunableTokensThresold: 5 },
          },
        }),
      );
      const result = await run(args, paths.env, paths.root);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(settings);
      expect(result.stderr).toContain(
        'experimental.toolOutputMasking.toolProtectionThreshold in ' +
          settings +
          ': expected non-negative integer, got the string "50k"',
      );
      expect(result.stderr).toContain('did you mean minPrunableTokensThreshold?');
      expect(result.stderr).not.toContain('gateway at');
      await expect(fs.stat(path.join(paths.root, 'toolmask'))).rejects.toThrow(/ENOENT/);
    },
  );

  it('an unknown key close to no known one is a warning, and the run goes ahead', async () => {
    const paths = await home();
    await fs.writeFile(
      path.join(paths.home, '.gemini', 'settings.json'),
      JSON.stringify({ experimental: { toolOutputMasking: { aSettingOfTomorrow: 1 } } }),
    );
    const result = await run(
      ['gemini', '--gemini-bin', '/bin/true', '-p', 'hi'],
      paths.env,
      paths.root,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'toolmask: warning: Unknown setting experimental.toolOutputMasking.aSettingOfTomorrow',
    );
    expect(result.stderr).toContain('this run: no model request went through the gateway');
  });
});
