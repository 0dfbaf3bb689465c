import { describe, expect, it } from 'vitest';
import { PREVIEW_LIMITS } from './previewLimits.js';
import { GIANT_TEXT_UNITS } from './previews/headAndTail.js';
import { buildPreview } from './toolOutputPreview.js';
import { KIND_PREVIEW_MAX_UNITS } from './previews/index.js';

const numbered = (count: number, prefix = 'line') =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index + 1}`).join('\n');

describe('buildPreview', () => {
  it('keeps every shell section but Output whole, Output as head and tail with the omitted count', () => {
    const output = numbered(500);
    const error = 'Traceback (most recent call last):\n  File "x.py"\nValueError: bad';
    const response = {
      output: `Output: ${output}\nError: ${error}\nExit Code: 1\nProcess Group PGID: 42`,
    };
    const headAndTail = { ...PREVIEW_LIMITS, lineBudgetChars: 0 };
    const preview = buildPreview('run_shell_command', response, response.output, headAndTail);
    expect(preview).toContain(`Error: ${error}`);
    expect(preview).toContain('Exit Code: 1');
    expect(preview).toContain('Process Group PGID: 42');
    expect(preview).toContain('line 1\n');
    expect(preview).toContain('line 500');
    const omitted = 500 - PREVIEW_LIMITS.shellHeadLines - PREVIEW_LIMITS.shellTailLines;
    expect(preview).toContain(`[... ${omitted} of 500 lines omitted ...]`);
    expect(preview).not.toContain(`line ${PREVIEW_LIMITS.shellHeadLines + 1}\n`);
    // Status first: the model sees the exit code before any output line.
    expect(preview.indexOf('Exit Code: 1')).toBeLessThan(preview.indexOf('line 1'));
  });

  it('keeps a non-zero exit code and an error found at the root of the response', () => {
    const response = { output: numbered(100), exitCode: 3, error: 'permission denied' };
    const preview = buildPreview('some_tool', response, JSON.stringify(response, null, 2));
    expect(preview).toContain('exitCode: 3');
    expect(preview).toContain('error: permission denied');
  });

  it('previews other tools as head and tail lines, cutting very long lines', () => {
    const text = `${'x'.repeat(5000)}\n${numbered(50)}`;
    const preview = buildPreview('read_file', { output: text }, text);
    expect(preview).toMatch(/\[\.\.\. \d+ chars \.\.\.\]/);
    expect(preview).toContain('line 50');
    expect(preview.length).toBeLessThan(2500);
  });
});

describe('buildPreview by kind (issue 25)', () => {
  const log = Array.from({ length: 200 }, (_, index) => `processing record number ${index}`);
  log.splice(120, 0, 'ValueError: record 120 is malformed');

  it("previews a shell output by the call's kind, keeping every section but Output whole", () => {
    const response = { output: `Output: ${log.join('\n')}\nExit Code: 1` };
    const call = { args: { command: 'python3 reproduce.py' } };
    const preview = buildPreview('run_shell_command', response, response.output, PREVIEW_LIMITS, {
      call,
    });
    expect(preview.startsWith('Exit Code: 1\nOutput:\n[... ')).toBe(true);
    expect(preview).toContain('121: ValueError: record 120 is malformed');
    // Within the kinds' budget: numbered lines of at most kindBudgetChars.
    const body = preview.split('\n').slice(3);
    expect(body.join('\n').length + 1).toBeLessThanOrEqual(PREVIEW_LIMITS.kindBudgetChars);
    // The same output as head and tail lines when asked for the previous family.
    const before = buildPreview('run_shell_command', response, response.output, PREVIEW_LIMITS, {
      call,
      family: 'head-and-tail',
    });
    expect(before).toContain('lines omitted ...]');
    expect(before).not.toContain('ValueError');
  });

  it("numbers a shell output's lines as the saved file does, after qwen's leading sections", () => {
    const text = `Command: python3 run.py\nDirectory: /w\nOutput: ${log.join('\n')}`;
    const preview = buildPreview('run_shell_command', { output: text }, text, PREVIEW_LIMITS, {
      call: { args: { command: 'python3 run.py' } },
    });
    // The Output section starts on the saved file's third line.
    expect(preview).toContain('123: ValueError: record 120 is malformed');
  });

  it('gives head and tail lines to outputs of no kind and to giant ones', () => {
    const listing = Array.from({ length: 300 }, (_, index) => `file_${index}.py`).join('\n');
    const other = buildPreview('list_directory', { output: listing }, listing);
    expect(other).toContain('lines omitted ...]');
    const giant = `${'x'.repeat(80)}\n`.repeat(Math.ceil(KIND_PREVIEW_MAX_UNITS / 81) + 10);
    const preview = buildPreview('read_file', { output: giant }, giant);
    expect(preview).toContain('lines omitted ...]');
    expect(preview).not.toContain('kept lines numbered');
  });
});

describe('cuts never split a surrogate pair (issue 15, item 4)', () => {
  const isWellFormed = (text: string) =>
    (text as unknown as { isWellFormed(): boolean }).isWellFormed();

  it('line cuts and section caps are well-formed wherever the cut falls', () => {
    // Shifting an emoji-only line by 0..3 characters puts a pair across every cut position.
    for (let shift = 0; shift < 4; shift++) {
      const line = `${'x'.repeat(shift)}${'😀'.repeat(200)}`;
      const text = `${line}\n${numbered(20)}\n${line}`;
      const preview = buildPreview('read_file', { output: text }, text);
      expect(isWellFormed(preview), `shift ${shift}: ${preview}`).toBe(true);
      const error = `${'y'.repeat(shift)}${'🔥'.repeat(3_000)}`;
      const shell = { output: `Output: ${text}\nError: ${error}\nExit Code: 1` };
      const shellPreview = buildPreview('run_shell_command', shell, shell.output);
      expect(isWellFormed(shellPreview), `shell, shift ${shift}`).toBe(true);
      expect(shellPreview).toMatch(/\[\.\.\. \d+ chars omitted \.\.\.\]/);
    }
  });
});

describe('giant outputs (issue 14, item 4)', () => {
  it('keeps the shell sections of a giant log', () => {
    const output = `Output: ${numbered(GIANT_TEXT_UNITS / 8)}\nError: boom\nExit Code: 2`;
    const preview = buildPreview('run_shell_command', { output }, output);
    expect(preview.split('\n').slice(0, 3)).toEqual(['Error: boom', 'Exit Code: 2', 'Output:']);
    expect(preview).toMatch(
      /^Output:\nline 1\nline 2\n(line \d+\n)*\[\.\.\. [\d,]+ of [\d,]+ lines omitted \.\.\.\]\n/m,
    );
  });
});

describe('buildPreview with a line budget', () => {
  it('fills previews when the limits give a budget', () => {
    const response = { output: `Output: ${numbered(200)}\nExit Code: 1` };
    const plain = buildPreview('run_shell_command', response, response.output, {
      ...PREVIEW_LIMITS,
      lineBudgetChars: 0,
    });
    const filled = buildPreview('run_shell_command', response, response.output, {
      ...PREVIEW_LIMITS,
      lineBudgetChars: 300,
    });
    expect(filled.length).toBeGreaterThan(plain.length);
    expect(filled).toContain('Exit Code: 1');
    expect(filled).toContain('line 200');
  });
});

describe('shell results as the gemini and qwen commands write them', () => {
  const log = numbered(300);

  it('gemini: the untrusted_context wrapper is kept around the preview, the status found inside', () => {
    const output = `<untrusted_context>\nOutput: ${log}\nExit Code: 3\nProcess Group PGID: 11418\n</untrusted_context>`;
    const preview = buildPreview('run_shell_command', { output }, output);
    expect(preview.split('\n')[0]).toBe('<untrusted_context>');
    expect(preview.split('\n')[1]).toBe('Exit Code: 3');
    expect(preview).toContain('line 300\nProcess Group PGID: 11418\n</untrusted_context>');
    expect(preview).toMatch(/\[\.\.\. \d+ of 300 lines omitted \.\.\.\]/);
  });

  it('gemini: its own truncation notice (where the full text is) stays first', () => {
    const notice =
      'Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /home/u/.gemini/tmp/p/tool-outputs/session-s/run_shell_command__c1.txt';
    const output = `${notice}\n<untrusted_context>\nOutput: ${log}\nProcess Group PGID: 10863\n</untrusted_context>`;
    const preview = buildPreview('run_shell_command', { output }, output);
    expect(preview.split('\n').slice(0, 3)).toEqual([notice, '<untrusted_context>', 'Output:']);
  });

  it('qwen: the command first, the (none) sections left out, the directory with the bookkeeping', () => {
    const output = `Command: make test\nDirectory: (root)\nOutput: ${log}\nError: (none)\nExit Code: 2\nSignal: (none)\nProcess Group PGID: (none)`;
    const preview = buildPreview('run_shell_command', { output }, output);
    const lines = preview.split('\n');
    expect(lines.slice(0, 3)).toEqual(['Command: make test', 'Exit Code: 2', 'Output:']);
    expect(lines.at(-1)).toBe('Directory: (root)');
    expect(preview).not.toContain('(none)');
  });
});
