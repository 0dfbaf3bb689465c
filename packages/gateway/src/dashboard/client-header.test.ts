/**
 * The header Codex puts before a command's output (0.169 to 0.171) is told from the output, so the
 * dashboard's cards preview the command's own lines; an output that merely starts alike is kept.
 */
import { describe, expect, it } from 'vitest';
import { clientHeaderEnd, withoutClientHeader } from './output-text.js';

describe("Codex's output header", () => {
  it('is skipped up to its Output: line, in either version', () => {
    const unified =
      'Chunk ID: 5e1a9c\nWall time: 0.0512 seconds\nProcess exited with code 0\nOriginal token count: 4210\nOutput:\nfirst\nsecond';
    expect(withoutClientHeader(unified)).toBe('first\nsecond');
    expect(withoutClientHeader('Exit code: 1\nWall time: 2 seconds\nOutput:\nerror: x')).toBe(
      'error: x',
    );
  });

  it('leaves an output without one as it is', () => {
    expect(clientHeaderEnd(['Output: done', 'Exit Code: 0'])).toBe(0);
    expect(withoutClientHeader('Chunk ID is a name\nmore')).toBe('Chunk ID is a name\nmore');
  });
});
