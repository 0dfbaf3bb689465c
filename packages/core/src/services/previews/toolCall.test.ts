import { describe, expect, it } from 'vitest';
import type { Content } from '@google/gemini-cli-core';
import { findToolCall } from './toolCall.js';

const model = (...parts: NonNullable<Content['parts']>): Content => ({ role: 'model', parts });
const user = (...parts: NonNullable<Content['parts']>): Content => ({ role: 'user', parts });
const response = (id: string | undefined, name: string) => ({
  functionResponse: { ...(id !== undefined ? { id } : {}), name, response: { output: 'x' } },
});

describe('findToolCall', () => {
  it("finds the call of the response's id and the model's text in that turn", () => {
    const history = [
      model(
        { text: 'Let me look at `add`.' },
        { functionCall: { id: 'c1', name: 'run_shell_command', args: { command: 'cat a.py' } } },
        { functionCall: { id: 'c2', name: 'run_shell_command', args: { command: 'cat b.py' } } },
      ),
      user(response('c1', 'run_shell_command'), response('c2', 'run_shell_command')),
    ];
    expect(findToolCall(history, 1, { id: 'c2', name: 'run_shell_command' })).toEqual({
      args: { command: 'cat b.py' },
      turnText: 'Let me look at `add`.',
    });
  });

  it('matches by name when the response has no id, the nearest call first', () => {
    const history = [
      model({ functionCall: { name: 'read_file', args: { file_path: 'old.py' } } }),
      user(response(undefined, 'read_file')),
      model({ functionCall: { name: 'read_file', args: { file_path: 'new.py' } } }),
      user(response(undefined, 'read_file')),
    ];
    expect(findToolCall(history, 3, { name: 'read_file' })).toEqual({
      args: { file_path: 'new.py' },
    });
  });

  it('is undefined when no earlier model turn made the call, and never throws on odd entries', () => {
    const odd = [{} as Content, { role: 'model' } as Content, user(response('c1', 'x'))];
    expect(findToolCall(odd, 2, { id: 'c1', name: 'x' })).toBeUndefined();
    expect(findToolCall([], 0, { id: 'c1' })).toBeUndefined();
    const far = [
      model({ functionCall: { id: 'c1', name: 'x', args: {} } }),
      ...Array.from({ length: 10 }, () => user({ text: 'more' })),
      user(response('c1', 'x')),
    ];
    expect(findToolCall(far, far.length - 1, { id: 'c1', name: 'x' })).toBeUndefined();
  });
});
