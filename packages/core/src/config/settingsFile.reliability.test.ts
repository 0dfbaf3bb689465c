/**
 * Settings files read in bounded time, on the wall clock (the e2e lane: a loaded machine must not
 * fail the unit lane). settingsFile.test.ts runs the same reads untimed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  ToolOutputMaskingSettingsFiles,
  parseSettingsText,
  type SettingsFileSystem,
} from './settingsFile.js';

describe('settings files read in bounded time (issue 15, item 5)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-settings-odd-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  // Every host's reads are shared and bounded (the gateway's too, not only the installation's).
  test('a read that hangs: load() answers within its wait, and overlapping loads read once', async () => {
    let stats = 0;
    const hanging = {
      ...fs,
      promises: {
        ...fs.promises,
        stat: () => {
          stats++;
          return new Promise<never>(() => undefined);
        },
      },
    } as unknown as SettingsFileSystem;
    const files = new ToolOutputMaskingSettingsFiles({
      userSettingsPath: path.join(dir, 'settings.json'),
      fs: hanging,
      waitMs: 50,
    });
    const started = performance.now();
    expect(await Promise.all([files.load(), files.load()])).toEqual([[], []]);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(stats).toBe(1);
  });

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
