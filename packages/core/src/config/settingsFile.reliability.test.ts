/**
 * How long parsing a settings file takes (issue 15, item 5): a wall-clock bound, so it runs in the
 * e2e lane's reliability tests, not in the unit lane, where a loaded machine would fail it.
 * Moved from settingsFile.test.ts unchanged.
 */
import { describe, expect, test } from 'vitest';
import { parseSettingsText } from './settingsFile.js';

describe('settings files that are not what they seem (issue 15, item 5)', () => {
  test('comments cost linear time: a settings file of one 1 MB comment parses at once', () => {
    const text = `/*${'/* * // '.repeat(130_000)}*/ { "experimental": { "toolOutputMasking": { "enabled": false } } }`;
    const started = performance.now();
    expect(parseSettingsText(text)).toEqual({
      experimental: { toolOutputMasking: { enabled: false } },
    });
    // strip-json-comments: ~0.4 s per MB of comment; linear scanning takes milliseconds.
    expect(performance.now() - started).toBeLessThan(400);
  });
});
