/** Edits of a person's settings text keep their comments, also when a key is removed again. */
import { describe, expect, it } from 'vitest';
import { parseSettings, setInText } from './jsonc-settings.js';

const TEXT = `{
  // my theme, keep it
  "ui": {
    "theme": "GitHub"
  },
  "mcpServers": {
    // another server of mine
    "other": { "command": "other-server" }
  }
}
`;

describe('setInText', () => {
  it('a key added first and removed again leaves the text exactly as it was', () => {
    let text = setInText(TEXT, ['security', 'auth', 'selectedType'], 'gemini-api-key');
    text = setInText(text, ['mcpServers', 'toolmask'], { httpUrl: 'http://127.0.0.1:1/mcp' });
    expect(parseSettings(text, 'settings.json')).toMatchObject({
      security: { auth: { selectedType: 'gemini-api-key' } },
      mcpServers: { toolmask: { httpUrl: 'http://127.0.0.1:1/mcp' } },
    });
    text = setInText(text, ['mcpServers', 'toolmask'], undefined);
    text = setInText(text, ['security'], undefined);
    expect(text).toBe(TEXT);
  });

  it('removes a first key that shares its line with the next one', () => {
    expect(setInText('{ "a": 1, /* b */ "b": 2 }', ['a'], undefined)).toBe('{ /* b */ "b": 2 }');
  });

  it('removes a last or only key as before', () => {
    expect(JSON.parse(setInText('{"a": 1, "b": 2}', ['b'], undefined))).toEqual({ a: 1 });
    expect(JSON.parse(setInText('{"a": {"x": 1}}', ['a', 'x'], undefined))).toEqual({ a: {} });
  });
});
