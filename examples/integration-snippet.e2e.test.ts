/**
 * The host snippet in docs/integration.md ("Install it") compiles as it stands: strict
 * TypeScript against the real @google/gemini-cli-core and @toolmask/core types, so it has no
 * undefined names and calls the APIs as they are.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..');

it('the docs/integration.md host snippet type-checks', async () => {
  const doc = readFileSync(join(REPO, 'docs', 'integration.md'), 'utf8');
  const section = doc.indexOf('## Install it');
  const start = doc.indexOf('```ts\n', section) + '```ts\n'.length;
  const snippet = doc.slice(start, doc.indexOf('```\n', start));
  expect(snippet).toContain('installToolOutputMasking(config');
  // Inside the repository, so that the packages resolve from its node_modules.
  mkdirSync(join(REPO, '.tmp'), { recursive: true });
  const folder = mkdtempSync(join(REPO, '.tmp', 'snippet-'));
  try {
    const file = join(folder, 'snippet.mts');
    writeFileSync(file, snippet);
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
    args.push('--target', 'es2022', '--skipLibCheck', '--types', 'node', file);
    const result = await promisify(execFile)(process.execPath, [tsc, ...args]).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout }),
    );
    expect(result.stdout).toBe('');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}, 120_000);
