import { describe, expect, it } from 'vitest';
import { splitShellSections } from './shellOutput.js';

const numbered = (count: number) =>
  Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n');

describe('splitShellSections', () => {
  it('splits every trailing section and keeps Output apart', () => {
    const text = `Output: ${numbered(3)}\nError: boom\nsecond error line\nExit Code: 2\nSignal: SIGTERM\nBackground PIDs: 11, 12\nProcess Group PGID: 99`;
    const sections = splitShellSections(text);
    expect(sections?.output).toBe(numbered(3));
    expect(sections?.trailing).toEqual([
      { name: 'Error', value: 'boom\nsecond error line' },
      { name: 'Exit Code', value: '2' },
      { name: 'Signal', value: 'SIGTERM' },
      { name: 'Background PIDs', value: '11, 12' },
      { name: 'Process Group PGID', value: '99' },
    ]);
  });

  it('does not take an "Exit Code:" line printed by the command inside Output for a section', () => {
    const text = `Output: Exit Code: 7\nstill output\nmore`;
    expect(splitShellSections(text)).toEqual({
      leading: [],
      output: text.slice('Output: '.length),
      trailing: [],
    });
  });

  it('returns undefined for text that is not a shell result', () => {
    expect(splitShellSections('hello')).toBeUndefined();
    expect(splitShellSections('<untrusted_context>\nhello\n</untrusted_context>')).toBeUndefined();
    expect(splitShellSections('Command: ls\nno directory line\nOutput: x')).toBeUndefined();
  });

  it("reads the gemini command's wrapper, and its truncation notice before it", () => {
    // As gemini 0.61.0 sends a shell result (measured: the wrapper, the PGID line last).
    const text =
      '<untrusted_context>\nOutput: hello\noops\nExit Code: 3\nProcess Group PGID: 11418\n</untrusted_context>';
    expect(splitShellSections(text)).toEqual({
      wrapper: 'untrusted_context',
      leading: [],
      output: 'hello\noops',
      trailing: [
        { name: 'Exit Code', value: '3' },
        { name: 'Process Group PGID', value: '11418' },
      ],
    });
    const notice =
      'Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /x.txt';
    expect(splitShellSections(`${notice}\n${text}\n`)).toMatchObject({
      preamble: notice,
      wrapper: 'untrusted_context',
      output: 'hello\noops',
    });
  });

  it("reads qwen-code's Command and Directory lines, a command over several lines included", () => {
    // As qwen-code 0.24.4 sends a shell result (measured).
    const text =
      'Command: echo small-output\nDirectory: (root)\nOutput: small-output\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)';
    expect(splitShellSections(text)).toEqual({
      leading: [
        { name: 'Command', value: 'echo small-output' },
        { name: 'Directory', value: '(root)' },
      ],
      output: 'small-output',
      trailing: [
        { name: 'Error', value: '(none)' },
        { name: 'Exit Code', value: '0' },
        { name: 'Signal', value: '(none)' },
        { name: 'Process Group PGID', value: '(none)' },
      ],
    });
    const heredoc = "Command: cat <<'EOF'\na\nEOF\nDirectory: src\nOutput: a\nExit Code: 0";
    expect(splitShellSections(heredoc)?.leading[0]).toEqual({
      name: 'Command',
      value: "cat <<'EOF'\na\nEOF",
    });
  });
});
