/**
 * The paths `toolmask replay` writes to: `--report FILE` is checked before the run and its failure
 * never costs the summary; a `--keep` folder that holds files needs `--force`; `--verbose` says
 * where the files named in its notices really are.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../render/replay-report.js';
import { runCliCaptured } from '../../test-data/run-cli.js';

const SMALL = join(import.meta.dirname, '..', '..', 'test-data', 'small-session.json');
const work = mkdtempSync(join(tmpdir(), 'toolmask-paths-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('--report', () => {
  it('a folder that does not exist: said before the run, exit 2, nothing replayed', async () => {
    const file = join(work, 'nodir', 'x.html');
    const run = await runCliCaptured(['replay', '--report', file, SMALL]);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: `toolmask: cannot write the report ${file}: the folder ${join(work, 'nodir')} does not exist\n`,
    });
  });

  it('a directory: said before the run, exit 2', async () => {
    const run = await runCliCaptured(['replay', '--report', work, SMALL]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`toolmask: cannot write the report ${work}: it is a directory\n`);
  });

  it('a write that fails after the run: the summary is printed first, then one line, exit 1', async () => {
    const text = await runCliCaptured(['replay', '--report', '/dev/full', SMALL]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^Replayed 1 recorded task/);
    expect(text.stdout).toContain('billed tokens');
    expect(text.stderr).toMatch(/^toolmask: cannot write the report \/dev\/full: ENOSPC[^\n]*\n$/);
    const json = await runCliCaptured(['replay', '--json', '--report', '/dev/full', SMALL]);
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as ReplayReport).strategies).toHaveLength(2);
  });
});

describe('--keep', () => {
  // Masks at once (the small fixture is too short to pay a warm break back).
  const shrink = ['--protection-threshold', '0', '--min-prunable', '0', '--warm-rule', 'floor'];

  it('a folder that holds files is refused before the run unless --force', async () => {
    const keep = join(work, 'used');
    mkdirSync(keep);
    writeFileSync(join(keep, 'notes.txt'), 'mine');
    const refused = await runCliCaptured(['replay', '--keep', keep, SMALL]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `toolmask: --keep ${keep}: the folder is not empty (1 entry); this run's outputs would mix ` +
        'with what is there. Pick an empty or new folder, or add --force\n',
    );
    const forced = await runCliCaptured(['replay', '--keep', keep, '--force', ...shrink, SMALL]);
    expect(forced.code).toBe(0);
    expect(readdirSync(keep).sort()).toEqual(['notes.txt', 'toolmask']);
  });

  it('an empty or new folder needs no --force; a file is refused', async () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    expect((await runCliCaptured(['replay', '--keep', empty, SMALL])).code).toBe(0);
    expect((await runCliCaptured(['replay', '--keep', join(work, 'new', 'dir'), SMALL])).code).toBe(
      0,
    );
    const file = join(work, 'a-file');
    writeFileSync(file, '');
    const run = await runCliCaptured(['replay', '--keep', file, SMALL]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`toolmask: --keep ${file}: not a directory\n`);
  });

  it('--verbose says the notices name a stand-in folder, and where the files are', async () => {
    const temporary = await runCliCaptured(['replay', '--verbose', ...shrink, SMALL]);
    expect(temporary.stdout).toContain('full outputs in /toolmask-replay/toolmask/tool-outputs/');
    expect(temporary.stdout).toContain(
      'the files were in a temporary folder, deleted at exit: add --keep DIR to keep them.',
    );
    const keep = join(work, 'verbose');
    const kept = await runCliCaptured(['replay', '--verbose', '--keep', keep, ...shrink, SMALL]);
    expect(kept.stdout).toContain(`the files are in ${join(keep, '<strategy>')}.`);
  });
});
