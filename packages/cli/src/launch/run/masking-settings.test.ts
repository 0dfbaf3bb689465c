/**
 * The masking settings file of a launch (issue 24, item 15): `--masking-settings`, else gemini's
 * user file, and for a client with a file of its own (qwen) that file, unless only gemini's has
 * the block. Claude, Codex and OpenCode keep a toolmask.json of their own (issue 35, item 10).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { clientNamed } from '../clients/index.js';
import { checkMaskingSettings, maskingSettingsFile } from './masking-settings.js';

const cleanups = cleanUpAfterEach();
const BLOCK = JSON.stringify({ experimental: { toolOutputMasking: { enabled: true } } });

async function homes(files: { gemini?: string; qwen?: string }) {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-masking-settings-'));
  cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
  const gemini = path.join(home, '.gemini', 'settings.json');
  const qwen = path.join(home, '.qwen', 'settings.json');
  for (const [file, text] of [
    [gemini, files.gemini],
    [qwen, files.qwen],
  ] as const) {
    await fs.mkdir(path.dirname(file), { recursive: true });
    if (text !== undefined) await fs.writeFile(file, text);
  }
  return { env: { HOME: home, GEMINI_CLI_HOME: home }, gemini, qwen };
}

describe('maskingSettingsFile', () => {
  it("gemini: gemini's user file; qwen: qwen's, also when neither has the block", async () => {
    const paths = await homes({});
    expect(await maskingSettingsFile(paths.env, {})).toBe(paths.gemini);
    expect(await maskingSettingsFile(paths.env, { ownFile: paths.qwen })).toBe(paths.qwen);
  });

  it("qwen: gemini's file when only that one has the block (where it was read before)", async () => {
    const paths = await homes({ gemini: BLOCK, qwen: '{}' });
    expect(await maskingSettingsFile(paths.env, { ownFile: paths.qwen })).toBe(paths.gemini);
    const both = await homes({ gemini: BLOCK, qwen: BLOCK });
    expect(await maskingSettingsFile(both.env, { ownFile: both.qwen })).toBe(both.qwen);
  });

  it('the file given wins', async () => {
    const paths = await homes({ gemini: BLOCK, qwen: BLOCK });
    expect(
      await maskingSettingsFile(paths.env, { given: '/x/settings.json', ownFile: paths.qwen }),
    ).toBe('/x/settings.json');
  });
});

describe('checkMaskingSettings', () => {
  it('a missing file or a good block: nothing to say', async () => {
    const paths = await homes({ gemini: BLOCK });
    expect(await checkMaskingSettings(paths.gemini)).toEqual([]);
    expect(await checkMaskingSettings(paths.qwen)).toEqual([]);
  });

  it('a broken file stops the launch too, naming it', async () => {
    const paths = await homes({ gemini: '{ "experimental": ' });
    await expect(checkMaskingSettings(paths.gemini)).rejects.toThrow(paths.gemini);
  });
});

describe('claude, codex and opencode: a toolmask.json of their own (issue 35, item 10)', () => {
  async function claudeHome(files: { gemini?: string; own?: string }) {
    const paths = await homes({ gemini: files.gemini });
    const env = { ...paths.env, CLAUDE_CONFIG_DIR: path.join(paths.env.HOME, 'claude-config') };
    const own = await clientNamed('claude')?.maskingSettings?.ownFile(env);
    if (own === undefined) throw new Error('claude names no file of its own');
    if (files.own !== undefined) {
      await fs.mkdir(path.dirname(own), { recursive: true });
      await fs.writeFile(own, files.own);
    }
    return { env, own, gemini: paths.gemini };
  }

  it('each names its file beside its own config', async () => {
    const env = { HOME: '/home/me', CODEX_HOME: '/c', XDG_CONFIG_HOME: '/xdg' };
    expect(await clientNamed('claude')?.maskingSettings?.ownFile(env)).toBe(
      '/home/me/.claude/toolmask.json',
    );
    expect(await clientNamed('codex')?.maskingSettings?.ownFile(env)).toBe('/c/toolmask.json');
    expect(await clientNamed('opencode')?.maskingSettings?.ownFile(env)).toBe(
      '/xdg/opencode/toolmask.json',
    );
    expect(clientNamed('gemini')?.maskingSettings).toBeUndefined();
  });

  it("the client's own file wins over gemini's block; without it, gemini's applies", async () => {
    const both = await claudeHome({ gemini: BLOCK, own: '{ "enabled": false }' });
    expect(await maskingSettingsFile(both.env, { ownFile: both.own })).toBe(both.own);
    const geminiOnly = await claudeHome({ gemini: BLOCK });
    expect(await maskingSettingsFile(geminiOnly.env, { ownFile: geminiOnly.own })).toBe(
      geminiOnly.gemini,
    );
    // An empty toolmask.json is still the person's choice: the defaults, not gemini's block.
    const empty = await claudeHome({ gemini: BLOCK, own: '' });
    expect(await maskingSettingsFile(empty.env, { ownFile: empty.own })).toBe(empty.own);
  });

  it('a bad key there stops the launch, naming the file, the key and the type', async () => {
    const paths = await claudeHome({ own: '{ "toolProtectionThreshold": "50k" }' });
    const file = await maskingSettingsFile(paths.env, { ownFile: paths.own });
    expect(file).toBe(paths.own);
    await expect(checkMaskingSettings(file)).rejects.toThrow(
      `Invalid setting toolProtectionThreshold in ${paths.own}: expected non-negative integer, got the string "50k".\n`,
    );
  });
});
