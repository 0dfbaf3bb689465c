/**
 * The built binary in a real pipeline whose reader stops early (`| head`): every command ends its
 * output quietly (no stack trace, nothing on stderr) with the command's own exit code (0 here);
 * a full disk behind a redirection is one line on stderr and exit 1. Each output here is far
 * larger than a pipe's buffer, so the reader is gone before the writer is done. Runs the built
 * binary (`npm test` builds first).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BINARY = join(import.meta.dirname, '..', 'dist', 'index.js');
const work = mkdtempSync(join(tmpdir(), 'toolmask-pipe-'));
const project = join(work, 'project');
const bigOutput = join(work, 'big-output.txt');

beforeAll(() => {
  // 800 old sessions of 3 outputs each: `outputs ls` and `gc --dry-run` print well over 64 KB.
  for (let session = 0; session < 800; session++) {
    const folder = join(project, 'tool-outputs', `session-s${session}`);
    mkdirSync(folder, { recursive: true });
    for (let call = 0; call < 3; call++) {
      writeFileSync(join(folder, `run_shell_command.call-${call}.0123456789abcdef.txt`), 'x');
    }
  }
  writeFileSync(bigOutput, Array.from({ length: 50_000 }, (_, i) => `line ${i}`).join('\n'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface PipelineRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** `node BINARY args | reader`, with the binary's own exit status. */
async function pipeline(args: string[], reader: string): Promise<PipelineRun> {
  const quoted = args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  const script = `"${process.execPath}" "${BINARY}" ${quoted} | ${reader}; exit "\${PIPESTATUS[0]}"`;
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], {
      env: { ...process.env, NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('a closed stdout ends the output quietly', () => {
  const cases: Array<[string, string[], string]> = [
    ['replay --json', ['replay', '--compare', '--json'], 'head -c 50'],
    ['outputs ls', ['outputs', 'ls', '--project', project], 'head -2'],
    ['outputs ls --json', ['outputs', 'ls', '--project', project, '--json'], 'head -c 50'],
    ['outputs show', ['outputs', 'show', bigOutput], 'head -2'],
    [
      'outputs gc --dry-run',
      ['outputs', 'gc', '--dry-run', '--older-than', '0s', '--project', project],
      'head -2',
    ],
  ];
  for (const [name, args, reader] of cases) {
    it(`${name} | ${reader}`, async () => {
      const run = await pipeline(args, reader);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      if (reader === 'head -2') expect(run.stdout.split('\n')).toHaveLength(3);
      else expect(run.stdout).toHaveLength(50);
    }, 60_000);
  }

  it('outputs that fit in the pipe (help, the text summary): quiet too', async () => {
    const help = await pipeline(['--help'], 'head -1');
    expect(help.stderr).toBe('');
    expect(help.stdout).toBe('Usage: toolmask [options] [command]\n');
    expect(help.status).toBe(0);
    const text = await pipeline(['replay', '--verbose'], 'head -1');
    expect(text.stderr).toBe('');
    expect(text.stdout).toMatch(/^Replayed the built-in example session/);
    expect(text.status).toBe(0);
  }, 60_000);

  it('a full disk behind a redirection: one line on stderr, exit 1', async () => {
    const direct = await promisify(execFile)('bash', [
      '-c',
      `"${process.execPath}" "${BINARY}" outputs show "${bigOutput}" > /dev/full; echo "status $?"`,
    ]);
    expect(direct.stdout).toBe('status 1\n');
    expect(direct.stderr).toMatch(/^toolmask: cannot write the output: ENOSPC[^\n]*\n$/);
  });
});
