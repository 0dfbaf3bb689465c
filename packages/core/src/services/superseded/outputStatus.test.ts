import { describe, expect, it } from 'vitest';
import { outputStatus } from './outputStatus.js';

describe('outputStatus', () => {
  it('reads the status of an output from its head and its exit code only', () => {
    expect(outputStatus({ output: 'Output: fine\nExit Code: 0' })).toEqual({
      failed: false,
      truncated: false,
    });
    expect(outputStatus({ output: `Output: ${'x'.repeat(5_000)}\nExit Code: 2` }).failed).toBe(
      true,
    );
    expect(
      outputStatus({ output: 'IMPORTANT: The file content has been truncated.' }).truncated,
    ).toBe(true);
    expect(outputStatus({ error: 'boom' }).failed).toBe(true);
    expect(outputStatus({ llmContent: [] })).toEqual({ failed: false, truncated: false });
  });
});
