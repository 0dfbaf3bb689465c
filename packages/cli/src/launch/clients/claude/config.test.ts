import { describe, expect, it } from 'vitest';
import { envOf, isOn, OTHER_PROVIDERS } from './config.js';

describe('claude settings: one reading for the launcher and setup', () => {
  it("reads a boolean variable as Claude Code does, whatever its type in a settings file's env", () => {
    for (const value of ['1', 'true', 'YES', ' on ', true, 1]) expect(isOn(value)).toBe(true);
    for (const value of ['0', 'false', '', 'enabled', undefined, null, false]) {
      expect(isOn(value)).toBe(false);
    }
  });

  it("takes a layer's env only when it is an object", () => {
    expect(envOf({ env: { A: '1' } })).toEqual({ A: '1' });
    expect(envOf({ env: ['A=1'] })).toEqual({});
    expect(envOf({ env: null })).toEqual({});
    expect(envOf({})).toEqual({});
  });

  it('names the providers that are not the Anthropic API', () => {
    expect(OTHER_PROVIDERS).toEqual([
      'CLAUDE_CODE_USE_BEDROCK',
      'CLAUDE_CODE_USE_VERTEX',
      'CLAUDE_CODE_USE_FOUNDRY',
    ]);
  });
});
