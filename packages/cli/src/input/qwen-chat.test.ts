/**
 * qwen-code's chat recordings, on a fixture made from what the real `qwen` (0.24.4) wrote under
 * `~/.qwen/projects/<project>/chats/` in a `toolmask qwen -p` run against a scripted fake (tool
 * outputs trimmed, telemetry records left out): `toolmask replay` read none before (issue 35, the
 * first hour: "skipped, not a session").
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadSessionFile } from './load-session-file.js';

const QWEN = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'test-data/qwen-code/qwen-chat.jsonl',
);

describe('qwen-code chat recordings', () => {
  it('reads the prompt, each answer with its usage, and the results of its calls', async () => {
    const tasks = await loadSessionFile(QWEN);
    expect(tasks).toHaveLength(1);
    const [task] = tasks;
    expect(task!.format).toBe('qwen-code');
    expect(task!.provider).toBe('openai');
    const roles = task!.contents.map((content) => content.role);
    // Six answers (four commands, the read-back, the final one), each call's result after it.
    expect(roles).toEqual([
      'user',
      ...Array.from({ length: 5 }, () => ['model', 'user']).flat(),
      'model',
    ]);
    expect(task!.contents[0]!.parts).toEqual([{ text: 'print numbers' }]);
    expect(task!.contents[1]!.parts![0]!.functionCall).toMatchObject({
      id: 'call_0',
      name: 'run_shell_command',
      args: { command: 'seq 100000 101400' },
    });
    const result = task!.contents[2]!.parts![0]!.functionResponse!;
    expect(result).toMatchObject({ id: 'call_0', name: 'run_shell_command' });
    expect(String(result.response!['output'])).toMatch(/^Command: seq 100000 101400\nDirectory: /);
    expect(task!.recordedUsage?.filter(Boolean)[1]).toEqual({
      promptTokens: 23_000,
      cachedTokens: 17_000,
    });
    expect(task!.startedAt).toBeLessThan(task!.updatedAt!);
  });
});
