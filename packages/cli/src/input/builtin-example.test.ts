import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BUILTIN_EXAMPLE_PATH } from './builtin-example.js';
import { loadTaskFile } from './load-task-file.js';

const SCRIPT = join(import.meta.dirname, '..', '..', '..', '..', 'scripts', 'generate-example.mjs');

describe('the built-in example', () => {
  it('is what scripts/generate-example.mjs generates (deterministic)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT, '--check']);
    expect(stdout).toContain('is up to date');
  });

  it('has what the issue asks for: shell errors, large outputs, an exempt tool, an image', async () => {
    const task = await loadTaskFile(BUILTIN_EXAMPLE_PATH);
    const responses = task.contents.flatMap((content) =>
      (content.parts ?? []).flatMap((part) =>
        part.functionResponse ? [part.functionResponse] : [],
      ),
    );
    const outputs = responses.map((response) => (response.response as { output: string }).output);
    expect(outputs.some((output) => /\nExit Code: [1-9]/.test(output))).toBe(true);
    expect(outputs.filter((output) => output.length > 100_000).length).toBeGreaterThanOrEqual(3);
    expect(new Set(responses.map((response) => response.name))).toEqual(
      new Set([
        'run_shell_command',
        'read_file',
        'grep_search',
        'replace',
        'list_directory',
        'ask_user',
        'write_file',
      ]),
    );
    expect(
      responses.some((response) =>
        response.parts?.some((part) => part.inlineData?.mimeType === 'image/png'),
      ),
    ).toBe(true);
  });
});
