/**
 * Each client's own masking settings file, and the one precedence rule (issue 35, item 10):
 * Claude, Codex and OpenCode users keep their settings beside their client's config, in a
 * `toolmask.json` read at its top level with the same checks as gemini's block.
 */
import { describe, expect, it } from 'vitest';
import { parseToolOutputMaskingSettings } from './settingsFile.js';
import { clientSettingsPath, maskingKeysAt, winningSettingsFile } from './settingsPlace.js';

const HOME = '/home/me';

describe('clientSettingsPath', () => {
  it('claude: $CLAUDE_CONFIG_DIR, else ~/.claude', () => {
    expect(clientSettingsPath('claude', {}, HOME)).toBe('/home/me/.claude/toolmask.json');
    expect(clientSettingsPath('claude', { CLAUDE_CONFIG_DIR: '/c' }, HOME)).toBe(
      '/c/toolmask.json',
    );
    expect(clientSettingsPath('claude', { CLAUDE_CONFIG_DIR: '' }, HOME)).toBe(
      '/home/me/.claude/toolmask.json',
    );
  });

  it('codex: $CODEX_HOME, else ~/.codex', () => {
    expect(clientSettingsPath('codex', {}, HOME)).toBe('/home/me/.codex/toolmask.json');
    expect(clientSettingsPath('codex', { CODEX_HOME: '/x/codex' }, HOME)).toBe(
      '/x/codex/toolmask.json',
    );
  });

  it('opencode: $OPENCODE_CONFIG_DIR, else $XDG_CONFIG_HOME/opencode, else ~/.config/opencode', () => {
    expect(clientSettingsPath('opencode', {}, HOME)).toBe(
      '/home/me/.config/opencode/toolmask.json',
    );
    expect(clientSettingsPath('opencode', { XDG_CONFIG_HOME: '/xdg' }, HOME)).toBe(
      '/xdg/opencode/toolmask.json',
    );
    expect(
      clientSettingsPath('opencode', { XDG_CONFIG_HOME: '/xdg', OPENCODE_CONFIG_DIR: '/oc' }, HOME),
    ).toBe('/oc/toolmask.json');
  });

  it('a toolmask.json keeps the keys at its top level; any other file under the block', () => {
    expect(maskingKeysAt('/home/me/.claude/toolmask.json')).toBe('top level');
    expect(maskingKeysAt('/home/me/.gemini/settings.json')).toBe('experimental.toolOutputMasking');
    expect(maskingKeysAt('/home/me/toolmask.json.bak')).toBe('experimental.toolOutputMasking');
  });
});

describe('winningSettingsFile', () => {
  const own = '/home/me/.claude/toolmask.json';
  const gemini = '/home/me/.gemini/settings.json';

  it('the file given > the client’s own > gemini’s', () => {
    const all = {
      given: '/x/s.json',
      own: { file: own, present: true },
      gemini: { file: gemini, present: true },
    };
    expect(winningSettingsFile(all)).toBe('/x/s.json');
    expect(winningSettingsFile({ ...all, given: undefined })).toBe(own);
    expect(
      winningSettingsFile({ ...all, given: undefined, own: { file: own, present: false } }),
    ).toBe(gemini);
    expect(winningSettingsFile({ gemini: { file: gemini, present: false } })).toBe(gemini);
  });

  it("neither holds settings: the client's own file (the defaults apply; the one to create)", () => {
    expect(
      winningSettingsFile({
        own: { file: own, present: false },
        gemini: { file: gemini, present: false },
      }),
    ).toBe(own);
  });
});

describe('a toolmask.json, read at its top level', () => {
  const FILE = '/home/me/.codex/toolmask.json';

  it('reads the keys, and is present even when empty', () => {
    expect(parseToolOutputMaskingSettings('{ "toolProtectionThreshold": 10 }', FILE)).toEqual({
      settings: { toolProtectionThreshold: 10 },
      present: true,
    });
    expect(parseToolOutputMaskingSettings('{}', FILE)).toEqual({ settings: {}, present: true });
  });

  it('a bad value names the file, the key and the type, and drops only that key', () => {
    const parsed = parseToolOutputMaskingSettings(
      '{ "toolProtectionThreshold": "50k", "enabled": false }',
      FILE,
    );
    expect(parsed.settings).toEqual({ enabled: false });
    expect(parsed.error?.key).toBe('toolProtectionThreshold');
    expect(parsed.error?.message).toBe(
      `Invalid setting toolProtectionThreshold in ${FILE}: expected non-negative integer, got the string "50k". That key is ignored; the rest of the file applies.`,
    );
  });

  it('an unknown key is named at the top level, with the closest known key', () => {
    const parsed = parseToolOutputMaskingSettings('{ "toolProtectionThresold": 1 }', FILE);
    expect(parsed.warnings?.[0]?.key).toBe('toolProtectionThresold');
    expect(parsed.warnings?.[0]?.message).toBe(
      `Unknown setting toolProtectionThresold in ${FILE} (ignored); did you mean toolProtectionThreshold?`,
    );
  });

  it('the gemini block inside a toolmask.json is no setting of it', () => {
    const parsed = parseToolOutputMaskingSettings(
      '{ "experimental": { "toolOutputMasking": { "enabled": false } } }',
      FILE,
    );
    expect(parsed.settings).toEqual({});
    expect(parsed.warnings?.[0]?.key).toBe('experimental');
  });
});
