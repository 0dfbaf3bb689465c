/**
 * `npm install` says nothing that is ours to silence: every dependency install script has a
 * recorded decision (`allowScripts` in package.json), so npm does not list skipped scripts; and
 * the README explains the one warning that is not ours (EBADENGINE from gemini-cli-core's GCP
 * dependencies).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..', '..');

test('no dependency install script is left unreviewed', async () => {
  const { stdout } = await promisify(execFile)('npm', ['install-scripts', 'ls'], { cwd: REPO });
  expect(stdout.trim()).toBe('No packages with unreviewed install scripts.');
});

test('the README says what the remaining install warnings mean', () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  expect(readme).toMatch(/EBADENGINE/);
  expect(readme).toMatch(/allowScripts/);
});
