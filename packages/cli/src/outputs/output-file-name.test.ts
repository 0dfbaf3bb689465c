import { describe, expect, it } from 'vitest';
import { parseOutputFileName } from './output-file-name.js';

describe('parseOutputFileName', () => {
  it('splits known tool names that contain underscores', () => {
    expect(parseOutputFileName('run_shell_command_call_1_0123456789abcdef.txt')).toEqual({
      tool: 'run_shell_command',
      callId: 'call_1',
    });
    expect(parseOutputFileName('read_file_read_file-17-abc_k3j2h.txt')).toEqual({
      tool: 'read_file',
      callId: 'read_file-17-abc',
    });
  });

  it('takes the first segment of an unknown tool, and refuses other names', () => {
    expect(parseOutputFileName('mcp-tool_call-1_ab12.txt')).toEqual({
      tool: 'mcp-tool',
      callId: 'call-1',
    });
    expect(parseOutputFileName('notes.md')).toBeUndefined();
  });
});
