/** qwen's flags as its yargs parser reads them: both spellings, `=` or the next argument, `--`. */
import { describe, expect, it } from 'vitest';
import { flagValue, withFlagValue } from './args.js';

describe('qwen flags', () => {
  it('reads --openai-base-url in each spelling qwen accepts', () => {
    for (const args of [
      ['-p', 'hi', '--openai-base-url', 'https://a.example/v1'],
      ['--openai-base-url=https://a.example/v1', '-p', 'hi'],
      ['--openaiBaseUrl', 'https://a.example/v1'],
      ['--openaiBaseUrl=https://a.example/v1'],
    ]) {
      expect(flagValue(args, 'openai-base-url')).toBe('https://a.example/v1');
    }
    expect(flagValue(['--auth-type', 'openai'], 'auth-type')).toBe('openai');
    expect(flagValue(['--authType=openai'], 'auth-type')).toBe('openai');
  });

  it('a flag followed by another option, or after --, has no value', () => {
    expect(flagValue(['--openai-base-url', '--yolo'], 'openai-base-url')).toBeUndefined();
    expect(flagValue(['--', '--openai-base-url', 'x'], 'openai-base-url')).toBeUndefined();
    expect(flagValue(['--openai-base-url='], 'openai-base-url')).toBeUndefined();
  });

  it('replaces every value of the flag, in place, and nothing else', () => {
    const args = [
      '--openai-base-url',
      'https://a.example/v1',
      '-p',
      'hi',
      '--openaiBaseUrl=https://b.example/v1',
      '--',
      '--openai-base-url',
      'prompt text',
    ];
    expect(withFlagValue(args, 'openai-base-url', 'http://127.0.0.1:1/openai/v1')).toEqual([
      '--openai-base-url',
      'http://127.0.0.1:1/openai/v1',
      '-p',
      'hi',
      '--openaiBaseUrl=http://127.0.0.1:1/openai/v1',
      '--',
      '--openai-base-url',
      'prompt text',
    ]);
    expect(withFlagValue(['-p', 'hi'], 'openai-base-url', 'x')).toEqual(['-p', 'hi']);
  });
});
