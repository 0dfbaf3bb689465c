/**
 * examples/host.mjs, run as a person runs it: `node examples/host.mjs --fake` goes through a whole
 * agent loop offline (real client, real tools, toolmask installed, the scripted fake server) and
 * toolmask shrinks what is sent; the usage errors are one line and exit 2.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const HOST = join(import.meta.dirname, 'host.mjs');

async function runHost(args: string[], env: Record<string, string | undefined> = {}) {
  const environment = { ...process.env, ...env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete environment[key];
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [HOST, ...args], {
      env: environment,
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('examples/host.mjs', () => {
  it('--fake: a whole agent loop offline; toolmask masks old outputs and the requests shrink', async () => {
    const run = await runHost(['--fake'], { GEMINI_API_KEY: undefined });
    expect(run.stderr).not.toMatch(/error|Error/);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      'Reading the whole build log.',
      'Checking how many steps ran.',
      'Reading it again.',
      'Counting slow modules.',
      'Most of the time goes to modules that take 300-399 ms to compile.',
    ]);
    // Real tools ran and returned real output.
    expect(run.stderr).toMatch(/^host: run_shell_command success \(\d{5,} characters\)$/m);
    expect(run.stderr).toMatch(/^host: read_file success \(\d{6,} characters\)$/m);
    expect(run.stderr).toMatch(
      /^toolmask: masked \d+ older tool outputs?, freed ~[\d,]+ tokens; /m,
    );
    const sizes = /received 5 model requests of ([\d, ]+) bytes/
      .exec(run.stderr)![1]!
      .split(', ')
      .map((size) => Number(size.replace(/,/g, '')));
    expect(sizes).toHaveLength(5);
    expect(sizes.at(-1)!).toBeLessThan(Math.max(...sizes) / 2);
  }, 120_000);

  it('usage: --help exits 0; no key without --fake, or an unknown flag, is one line and exit 2', async () => {
    const help = await runHost(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: node examples\/host\.mjs/);
    const noKey = await runHost(['hello'], { GEMINI_API_KEY: undefined });
    expect(noKey).toEqual({
      code: 2,
      stdout: '',
      stderr: 'host: GEMINI_API_KEY is not set (or run with --fake to try it offline)\n',
    });
    const unknown = await runHost(['--nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^host: Unknown option '--nope'/);
  });
});
