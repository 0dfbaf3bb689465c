/**
 * The sample of `npm start` in docs/cli.md is its real output (issue 35, item 17): the replay of
 * the built-in example, piped (no colors, no terminal width), line for line, but for the pass
 * times, which are wall-clock measurements, and trailing blanks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../program.js';

const DOCS = join(import.meta.dirname, '..', '..', '..', '..', '..', 'docs', 'cli.md');
const INTRO = '`npm start` on it (real output, piped';

function documentedSample(): string {
  const docs = readFileSync(DOCS, 'utf8');
  const at = docs.indexOf(INTRO);
  expect(at).toBeGreaterThan(0);
  const open = docs.indexOf('```\n', at) + 4;
  return docs.slice(open, docs.indexOf('```\n', open));
}

/** Pass times left out; trailing blanks too (the chart pads its lines, the docs' formatter does not). */
const withoutPassTimes = (text: string) =>
  text.replace(/^(total pass time) .*$/m, '$1 (measured)').replace(/[ \t]+$/gm, '');

describe('the npm start sample of docs/cli.md', () => {
  it('is what `toolmask replay --compare` prints through a pipe', async () => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['replay', '--compare'], {
      stdout: { write: (text: string) => (stdout += text), isTTY: false },
      stderr: { write: (text: string) => (stderr += text), isTTY: false },
      env: {},
      cwd: process.cwd(),
    });
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(withoutPassTimes(documentedSample())).toBe(withoutPassTimes(stdout));
  });
});
