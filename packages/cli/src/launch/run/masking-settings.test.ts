/**
 * The masking settings file of a launch (issue 24, item 15): `--masking-settings`, else gemini's
 * user file, and for a client with a file of its own (qwen) that file, unless only gemini's has
 * the block.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
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
