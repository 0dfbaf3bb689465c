/**
 * A client's header before a shell command's output is not saved with it (issue 35): line N of
 * the saved file, and a snippet's line numbers, are line N of what the command printed, for
 * Codex's and qwen-code's shell results as they send them.
 */
import { describe, expect, it } from 'vitest';
import { splitClientShellHeader } from './clientShellHeader.js';
import { fullOutputText } from './maskingPass/savedText.js';
import { buildPreview } from './toolOutputPreview.js';

const printed = Array.from({ length: 300 }, (_, index) =>
  index === 150 ? 'ERROR: step 151 broke' : `INFO step ${index + 1} ok`,
);
// As codex 0.169.0 and 0.171.0 send an exec_command result (measured).
const codexHeader =
  'Chunk ID: f45363\nWall time: 0.0762 seconds\nProcess exited with code 2\nOriginal token count: 2452\nOutput:';
const codex = `${codexHeader}\n${printed.join('\n')}`;
// As qwen-code 0.24.4 sends a run_shell_command result (measured).
const qwen = `Command: node build.js\nDirectory: (root)\nOutput: ${printed.join('\n')}\nError: (none)\nExit Code: 2\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 123`;

describe('a shell output saved without its client header', () => {
  it("codex: the file is what the command printed, the snippet's numbers are its lines, the header stays in the snippet", () => {
    const saved = fullOutputText({ output: codex }, 'exec_command');
    expect(saved).toBe(printed.join('\n'));
    expect(saved.split('\n')[150]).toBe('ERROR: step 151 broke');
    const preview = buildPreview('exec_command', { output: codex }, saved, undefined, {
      call: { args: { cmd: 'node build.js' } },
    });
    expect(preview.startsWith(`${codexHeader}\n`)).toBe(true);
    expect(preview).toContain('\n151: ERROR: step 151 broke\n');
  });

  it("qwen: the file starts at its Output line, so the snippet's numbers are the command's lines", () => {
    const saved = fullOutputText({ output: qwen }, 'run_shell_command');
    expect(saved.startsWith('Output: INFO step 1 ok\n')).toBe(true);
    expect(saved.split('\n')[150]).toBe('ERROR: step 151 broke');
    const preview = buildPreview('run_shell_command', { output: qwen }, saved, undefined, {
      call: { args: { command: 'node build.js' } },
    });
    expect(preview).toContain('Command: node build.js\nExit Code: 2\nOutput:\n');
    expect(preview).toContain('\n151: ERROR: step 151 broke\n');
  });

  it("gemini: the file is without the command's wrapper (and its notice), so its lines are the command's", () => {
    // As gemini 0.61.0 sends a shell result (measured: the wrapper, the PGID line last).
    const notice =
      'Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /x.txt';
    const body = `Output: ${printed.join('\n')}\nExit Code: 2\nProcess Group PGID: 11418`;
    const text = `${notice}\n<untrusted_context>\n${body}\n</untrusted_context>\n`;
    const saved = fullOutputText({ output: text }, 'run_shell_command');
    expect(saved).toBe(body);
    expect(saved.split('\n')[150]).toBe('ERROR: step 151 broke');
    const preview = buildPreview('run_shell_command', { output: text }, saved, undefined, {
      call: { args: { command: 'node build.js' } },
    });
    expect(preview.startsWith(`${notice}\n<untrusted_context>\nExit Code: 2\nOutput:\n`)).toBe(
      true,
    );
    expect(preview).toContain('\n151: ERROR: step 151 broke\n');
    expect(preview.endsWith('</untrusted_context>')).toBe(true);
  });

  it('leaves every other output whole: another tool, a header of other lines, no header, JSON', () => {
    expect(fullOutputText({ output: codex }, 'read_file')).toBe(codex);
    expect(fullOutputText({ output: codex })).toBe(codex);
    const odd = 'Chunk ID: 1\nSomething else: 2\nOutput:\nx';
    expect(fullOutputText({ output: odd }, 'exec_command')).toBe(odd);
    expect(fullOutputText({ output: 'Output:\nx' }, 'exec_command')).toBe('Output:\nx');
    const gemini = 'Output: hello\nExit Code: 0';
    expect(fullOutputText({ output: gemini }, 'run_shell_command')).toBe(gemini);
    expect(fullOutputText({ output: codex, error: 'x' }, 'exec_command')).toContain('"error"');
  });

  it('splits an empty output, and a running process', () => {
    expect(splitClientShellHeader('exec_command', 'Chunk ID: a\nOutput:')).toEqual({
      header: 'Chunk ID: a\nOutput:',
      commandOutput: '',
    });
    expect(
      splitClientShellHeader(
        'exec_command',
        'Wall time: 5.0 seconds\nProcess running with session ID 3\nOutput:\nstill going\n',
      )?.commandOutput,
    ).toBe('still going\n');
  });
});
