import { describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_CHARS, callArguments } from './call-arguments.js';

describe('callArguments', () => {
  it('takes an object as it is and parses a JSON string of one', () => {
    const input = { file_path: '/w/a.py' };
    expect(callArguments(input)).toBe(input);
    expect(callArguments('{"command":"cat a.py","workdir":"/w"}')).toEqual({
      command: 'cat a.py',
      workdir: '/w',
    });
  });

  it('is {} for anything else: not JSON, not an object, too long', () => {
    expect(callArguments('{"command":')).toEqual({});
    expect(callArguments('["cat", "a.py"]')).toEqual({});
    expect(callArguments(42)).toEqual({});
    expect(callArguments(undefined)).toEqual({});
    const long = JSON.stringify({ content: 'x'.repeat(MAX_ARGUMENT_CHARS) });
    expect(callArguments(long)).toEqual({});
  });
});
