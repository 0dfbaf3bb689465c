import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputHeader } from './maskedForm.js';

const output = (text: string) => ({
  toolName: 'run_shell_command',
  callId: 'call-1',
  functionResponse: { name: 'run_shell_command', id: 'call-1', response: { output: text } },
  response: { output: text },
  text,
});

describe('outputHeader', () => {
  it('names the file under the directory as path.resolve does, whatever the directory', async () => {
    for (const directory of ['/', '/tmp', '/tmp/', '/a/./b//c/..', 'relative/dir', '.']) {
      const header = await outputHeader(output('a\nb\u00e9'), directory);
      expect(header.filePath).toBe(path.resolve(directory, header.fileName));
      expect(header).toMatchObject({ bytes: 5, lines: 2 });
    }
  });
});
