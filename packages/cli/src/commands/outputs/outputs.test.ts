import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../test-data/run-cli.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);
const root = mkdtempSync(join(tmpdir(), 'toolmask-outputs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A gemini-cli home with one registered project whose temp dir holds outputs.
const home = join(root, 'home');
const projectRoot = join(root, 'app');
const tempDir = join(home, '.gemini', 'tmp', 'app');
const outputs = join(tempDir, 'tool-outputs');
const outside = join(root, 'outside');
// The gateway's state folder: ~/.toolmask/gateway by default, here under the test's root.
const stateDir = join(root, 'toolmask', 'gateway');
const env = { GEMINI_CLI_HOME: home, TOOLMASK_HOME: join(root, 'toolmask') };

function writeOutput(
  session: string,
  name: string,
  text: string,
  ageDays: number,
  under = outputs,
): string {
  const folder = session ? join(under, `session-${session}`) : under;
  mkdirSync(folder, { recursive: true });
  const file = join(folder, name);
  writeFileSync(file, text);
  const time = (NOW - ageDays * DAY) / 1000;
  utimesSync(file, time, time);
  if (session) utimesSync(folder, time, time);
  return file;
}

beforeEach(() => {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(projectRoot, { recursive: true });
  mkdirSync(tempDir, { recursive: true });
  writeFileSync(
    join(home, '.gemini', 'projects.json'),
    JSON.stringify({ projects: { [projectRoot]: 'app' } }),
  );
  writeOutput(
    'old1',
    'run_shell_command.run_shell_command-1-0.0123456789abcdef.txt',
    'Output: old log\n',
    45,
  );
  writeOutput('new2', 'read_file.call-7.fedcba9876543210.txt', 'export const a = 1;\n', 2);
  writeOutput('new2', 'grep_search.call-8.00112233aabbccdd.txt', 'Found 3 matches', 1);
  writeOutput('', 'list_directory_call-9_abc123.txt', 'Directory listing', 3);
  // Things gc must never touch: a folder outside, linked in as a session, and a file beside.
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'precious.txt'), 'keep me');
  const old = (NOW - 90 * DAY) / 1000;
  utimesSync(join(outside, 'precious.txt'), old, old);
  utimesSync(outside, old, old);
  symlinkSync(outside, join(outputs, 'session-linked'));
  writeFileSync(join(tempDir, 'logs.json'), '[]');
});

describe('toolmask outputs ls', () => {
  it("lists the current directory's project outputs with tool, call id, size and age", async () => {
    const run = await runCliCaptured(['outputs', 'ls'], { cwd: projectRoot, env, now: NOW });
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^FROM\s+SESSION\s+TOOL\s+CALL ID\s+SIZE \(BYTES\)\s+AGE\s+FILE$/);
    expect(run.stdout).toMatch(/project\s+new2\s+read_file\s+call-7\s+20\s+2d/);
    expect(run.stdout).toMatch(
      /project\s+old1\s+run_shell_command\s+run_shell_command-1-0\s+16\s+45d/,
    );
    // A name toolmask did not write (gemini-cli's own): counted, not listed as toolmask's.
    expect(run.stdout).not.toContain('list_directory_call-9_abc123.txt');
    expect(lines.at(-1)).toBe(
      `project: 3 outputs, 51 bytes in ${tempDir} (and 1 file toolmask did not write, gemini-cli's own; --all lists them)`,
    );
  });

  it('--all lists the files toolmask did not write too, with no tool or call id', async () => {
    const run = await runCliCaptured(['outputs', 'ls', '--all'], {
      cwd: projectRoot,
      env,
      now: NOW,
    });
    expect(run.stdout).toMatch(
      /\nproject\s+-\s+-\s+-\s+17\s+3d\s+list_directory_call-9_abc123\.txt\n/,
    );
    expect(run.stdout.trim().split('\n').at(-1)).toBe(`project: 4 files, 68 bytes in ${tempDir}`);
  });

  it("lists the gateway's outputs from any folder, first, marked as the gateway's", async () => {
    writeOutput(
      'gw1',
      'read_file.call-31.00aa00aa00aa00aa.txt',
      'from the gateway',
      1,
      join(stateDir, 'tool-outputs'),
    );
    const inProject = await runCliCaptured(['outputs', 'ls'], {
      cwd: projectRoot,
      env,
      now: NOW,
    });
    expect(inProject.code).toBe(0);
    const lines = inProject.stdout.trim().split('\n');
    expect(lines[1]).toMatch(/^gateway\s+gw1\s+read_file\s+call-31\s+16\s+1d\s+read_file\./);
    expect(lines).toContain(`gateway: 1 output, 16 bytes in ${stateDir}`);
    expect(lines.at(-1)).toMatch(/^project: 3 outputs, 51 bytes in /);

    // Elsewhere (no project): the gateway's alone, and no complaint about the missing project.
    const elsewhere = await runCliCaptured(['outputs', 'ls'], { cwd: root, env, now: NOW });
    expect(elsewhere.stderr).toBe('');
    expect(elsewhere.stdout.trim().split('\n').at(-1)).toBe(
      `gateway: 1 output, 16 bytes in ${stateDir}`,
    );
    // --project alone: that project only; --state-dir alone: that gateway folder only.
    const project = await runCliCaptured(['outputs', 'ls', '--project', projectRoot], { env });
    expect(project.stdout).not.toContain('gateway');
    const gateway = await runCliCaptured(['outputs', 'ls', '--state-dir', stateDir, '--json'], {
      cwd: projectRoot,
      env,
    });
    const listed = JSON.parse(gateway.stdout) as {
      gatewayStateDir: string;
      projectTempDir: null;
      outputs: { from: string; callId: string }[];
    };
    expect(listed).toMatchObject({ gatewayStateDir: stateDir, projectTempDir: null });
    expect(listed.outputs.map((output) => `${output.from}:${output.callId}`)).toEqual([
      'gateway:call-31',
    ]);
    // And `show` finds it by call id from the project folder.
    const shown = await runCliCaptured(['outputs', 'show', 'call-31'], { cwd: projectRoot, env });
    expect(shown).toEqual({ code: 0, stdout: 'from the gateway', stderr: '' });
  });

  it('a --state-dir that does not exist is bad usage (exit 2)', async () => {
    const run = await runCliCaptured(['outputs', 'ls', '--state-dir', join(root, 'nope')], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`toolmask: --state-dir ${join(root, 'nope')}: no such directory\n`);
  });

  it('filters by session and prints JSON', async () => {
    const run = await runCliCaptured(
      ['outputs', 'ls', '--project', tempDir, '--session', 'session-new2', '--json'],
      { env, now: NOW },
    );
    const listed = JSON.parse(run.stdout) as { outputs: { callId: string; tool: string }[] };
    expect(listed.outputs.map((output) => `${output.tool}:${output.callId}`)).toEqual([
      'read_file:call-7',
      'grep_search:call-8',
    ]);
  });

  it('a --project that does not exist is bad usage (exit 2) for ls, gc and show', async () => {
    for (const args of [
      ['outputs', 'ls'],
      ['outputs', 'ls', '--json'],
      ['outputs', 'gc'],
      ['outputs', 'show', 'call-7'],
    ]) {
      const run = await runCliCaptured([...args, '--project', join(root, 'nonexistent')], { env });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout, args.join(' ')).toBe('');
      expect(run.stderr, args.join(' ')).toBe(
        `toolmask: --project ${join(root, 'nonexistent')}: no such directory\n`,
      );
    }
    const file = await runCliCaptured(['outputs', 'ls', '--project', join(tempDir, 'logs.json')]);
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/: not a directory\n$/);
  });

  it('says so when a project has no temp dir and the gateway has no outputs', async () => {
    const run = await runCliCaptured(['outputs', 'ls'], { cwd: join(root, 'elsewhere'), env });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/no gemini-cli temp dir found/);
    expect(run.stderr).toContain(`no gateway outputs in ${stateDir} either`);
  });

  it("says the gateway's folder was looked in when its gateway has masked nothing yet (issue 35)", async () => {
    mkdirSync(stateDir, { recursive: true });
    const run = await runCliCaptured(['outputs', 'ls'], { cwd: projectRoot, env, now: NOW });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n').slice(-2)).toEqual([
      `gateway: no toolmask outputs in ${stateDir} (it has masked nothing yet)`,
      `project: 3 outputs, 51 bytes in ${tempDir} (and 1 file toolmask did not write, gemini-cli's own; --all lists them)`,
    ]);
  });
});

describe('toolmask outputs show', () => {
  it('prints an output by call id, by file name and by path, exactly', async () => {
    const byId = await runCliCaptured(['outputs', 'show', 'call-7'], { cwd: projectRoot, env });
    expect(byId).toEqual({ code: 0, stdout: 'export const a = 1;\n', stderr: '' });
    const byName = await runCliCaptured(
      ['outputs', 'show', 'grep_search.call-8.00112233aabbccdd.txt', '--project', tempDir],
      { env },
    );
    expect(byName.stdout).toBe('Found 3 matches');
    const byPath = await runCliCaptured([
      'outputs',
      'show',
      join(outputs, 'session-old1', 'run_shell_command.run_shell_command-1-0.0123456789abcdef.txt'),
    ]);
    expect(byPath.stdout).toBe('Output: old log\n');
  });

  it('accepts the call id as the agent wrote it, for toolmask and gemini-cli file names', async () => {
    writeOutput(
      'new2',
      'run_shell_command.astropy_astropy-14369_0.0123456789abcdef.txt',
      'from toolmask',
      1,
    );
    writeOutput(
      'gem',
      'run_shell_command_astropy__astropy-14369_7_k3j9x.txt',
      'from gemini-cli',
      1,
    );
    const toolmask = await runCliCaptured(
      ['outputs', 'show', 'astropy__astropy-14369#0', '--project', tempDir],
      { env },
    );
    expect(toolmask).toEqual({ code: 0, stdout: 'from toolmask', stderr: '' });
    const gemini = await runCliCaptured(
      ['outputs', 'show', 'astropy__astropy-14369#7', '--project', tempDir],
      { env },
    );
    expect(gemini).toEqual({ code: 0, stdout: 'from gemini-cli', stderr: '' });
    // `#1` must not match `#10` or the like.
    const none = await runCliCaptured(
      ['outputs', 'show', 'astropy__astropy-14369#1', '--project', tempDir],
      { env },
    );
    expect(none.code).toBe(1);
  });

  it('fails with exit 1 for an unknown id or a missing file', async () => {
    const unknown = await runCliCaptured(['outputs', 'show', 'call-404'], {
      cwd: projectRoot,
      env,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no offloaded output with id or file name call-404/);
    const missing = await runCliCaptured(['outputs', 'show', join(root, 'nope.txt')]);
    expect(missing.code).toBe(1);
  });
});

describe('toolmask outputs gc', () => {
  it('--dry-run prints what it would remove and removes nothing', async () => {
    const run = await runCliCaptured(['outputs', 'gc', '--dry-run'], {
      cwd: projectRoot,
      env,
      now: NOW,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `would remove ${join(outputs, 'session-old1')} (1 files, 16 bytes`,
    );
    expect(run.stdout).toContain('Would remove 1 session folder and free 16 bytes (dry run).');
    expect(existsSync(join(outputs, 'session-old1'))).toBe(true);
  });

  it('removes session folders older than the limit, only inside tool-outputs', async () => {
    const run = await runCliCaptured(['outputs', 'gc', '--older-than', '36h'], {
      cwd: projectRoot,
      env,
      now: NOW,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Removed 1 session folder, freed 16 bytes.');
    expect(existsSync(join(outputs, 'session-old1'))).toBe(false);
    expect(existsSync(join(outputs, 'session-new2'))).toBe(true); // newest file is 1 day old
    expect(existsSync(join(outputs, 'list_directory_call-9_abc123.txt'))).toBe(true);
    expect(existsSync(join(outside, 'precious.txt'))).toBe(true);
    expect(existsSync(join(outputs, 'session-linked'))).toBe(true);
    expect(existsSync(join(tempDir, 'logs.json'))).toBe(true);
  });

  it("never removes a running session's folder, and says when the others were last used", async () => {
    // What a running installation keeps beside its folder (refreshed every 5 minutes).
    const marker = join(outputs, 'session-old1.live');
    writeFileSync(marker, '');
    const running = (NOW - 60_000) / 1000;
    utimesSync(marker, running, running);
    const run = await runCliCaptured(['outputs', 'gc', '--older-than', '36h'], {
      cwd: projectRoot,
      env,
      now: NOW,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Removed 0 session folders, freed 0 bytes.');
    expect(existsSync(join(outputs, 'session-old1'))).toBe(true);
    const dry = await runCliCaptured(['outputs', 'gc', '--dry-run'], {
      cwd: projectRoot,
      env,
      now: NOW + 31 * 60_000,
    });
    expect(dry.stdout).toMatch(
      /would remove .*session-old1 \(1 files, 16 bytes, last used 45d ago\)/,
    );
  });

  it("never cleans the gateway's folder, running or not: the gateway prunes it with the decisions", async () => {
    writeOutput(
      'gw-old',
      'read_file.call-41.00bb00bb00bb00bb.txt',
      'x',
      45,
      join(stateDir, 'tool-outputs'),
    );
    const left = `toolmask: left ${stateDir} alone: a gateway's outputs are removed by the gateway itself, with the decisions that point at them (toolmask gateway --retention-days)\n`;
    // A launcher's private gateway is not announced in gateway.json: gc cannot know it runs.
    for (const args of [
      ['outputs', 'gc'],
      ['outputs', 'gc', '--state-dir', stateDir],
    ]) {
      const run = await runCliCaptured(args, { cwd: projectRoot, env, now: NOW });
      expect(run.code).toBe(0);
      expect(run.stderr).toBe(left);
      expect(existsSync(join(stateDir, 'tool-outputs', 'session-gw-old'))).toBe(true);
    }
  });

  it('rejects a bad duration with exit 2', async () => {
    const run = await runCliCaptured(['outputs', 'gc', '--older-than', 'soon'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/expected a duration/);
  });
});
