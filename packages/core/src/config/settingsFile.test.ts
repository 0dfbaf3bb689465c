import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  SettingsFileError,
  ToolOutputMaskingSettingsFiles,
  parseToolOutputMaskingSettings,
  readToolOutputMaskingSettingsFile,
} from './settingsFile.js';
import { resolveToolOutputMaskingConfig } from './toolOutputMaskingSettings.js';

const FILE = '/project/.gemini/settings.json';

describe('parseToolOutputMaskingSettings', () => {
  test('reads the block, with comments allowed', () => {
    const text = `{
      // user comment
      "model": { "name": "gemini-2.5-pro" },
      /* block comment */
      "experimental": {
        "toolOutputMasking": { "enabled": true, "toolProtectionThreshold": 1000, "exemptTools": ["grep_search"] }
      }
    }`;
    expect(parseToolOutputMaskingSettings(text, FILE)).toEqual({
      settings: { enabled: true, toolProtectionThreshold: 1000, exemptTools: ['grep_search'] },
    });
  });

  test('no experimental block, no masking block, empty file, BOM: no settings and no error', () => {
    expect(parseToolOutputMaskingSettings('{ "ui": {} }', FILE)).toEqual({ settings: {} });
    expect(parseToolOutputMaskingSettings('{ "experimental": {} }', FILE)).toEqual({
      settings: {},
    });
    expect(parseToolOutputMaskingSettings('', FILE)).toEqual({ settings: {} });
    expect(parseToolOutputMaskingSettings('// only a comment\n', FILE)).toEqual({ settings: {} });
    expect(
      parseToolOutputMaskingSettings(
        '\uFEFF{ "experimental": { "toolOutputMasking": { "enabled": false } } }',
        FILE,
      ),
    ).toEqual({ settings: { enabled: false } });
  });

  test('malformed JSON: an error naming the file, the block key and the place', () => {
    const text = '{\n  "experimental": {\n    "toolOutputMasking": { "enabled": true, }\n  }\n}';
    const { settings, error } = parseToolOutputMaskingSettings(text, FILE, 'workspace');
    expect(settings).toEqual({});
    expect(error).toBeInstanceOf(SettingsFileError);
    expect(error?.file).toBe(FILE);
    expect(error?.key).toBe('experimental.toolOutputMasking');
    expect(error?.scope).toBe('workspace');
    expect(error?.message).toContain(FILE);
    expect(error?.message).toContain('ignored');
  });

  test('a parse position is reported as line and column of the original text', () => {
    // Comments are replaced by whitespace, so positions still match the file.
    const text = '{\n  // a comment\n  "a": 1,\n  "b": ]\n}';
    const { error } = parseToolOutputMaskingSettings(text, FILE);
    if (/position/.test(error?.message ?? '')) expect(error?.message).toContain('line 4');
    expect(error?.message).toContain(FILE);
  });

  test('a bad value: an error naming the file and the full key; the block is ignored', () => {
    const text =
      '{ "experimental": { "toolOutputMasking": { "toolProtectionThreshold": "lots", "protectLatestTurn": false } } }';
    const { settings, error } = parseToolOutputMaskingSettings(text, FILE);
    expect(settings).toEqual({});
    expect(error?.key).toBe('experimental.toolOutputMasking.toolProtectionThreshold');
    expect(error?.message).toContain(FILE);
    expect(error?.message).toContain('toolProtectionThreshold');
  });

  test('a bad value next to an explicit "enabled": false keeps masking off', () => {
    const text =
      '{ "experimental": { "toolOutputMasking": { "enabled": false, "minPrunableTokensThreshold": -1 } } }';
    const { settings, error } = parseToolOutputMaskingSettings(text, FILE);
    expect(settings).toEqual({ enabled: false });
    expect(error?.key).toBe('experimental.toolOutputMasking.minPrunableTokensThreshold');
    expect(error?.message).toContain('"enabled": false is kept');
  });

  test('wrong shapes above the block are reported with their key', () => {
    expect(parseToolOutputMaskingSettings('[1, 2]', FILE).error?.key).toBe(
      'experimental.toolOutputMasking',
    );
    expect(parseToolOutputMaskingSettings('{ "experimental": 3 }', FILE).error?.key).toBe(
      'experimental',
    );
    expect(
      parseToolOutputMaskingSettings('{ "experimental": { "toolOutputMasking": true } }', FILE)
        .error?.key,
    ).toBe('experimental.toolOutputMasking');
  });
});

describe('settings files on disk', () => {
  let dir: string;
  let savedHome: string | undefined;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-settings-'));
    savedHome = process.env['GEMINI_CLI_HOME'];
  });

  afterEach(() => {
    if (savedHome === undefined) delete process.env['GEMINI_CLI_HOME'];
    else process.env['GEMINI_CLI_HOME'] = savedHome;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function write(file: string, text: string): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }

  test('a missing file is not an error; an unreadable one is', async () => {
    expect(await readToolOutputMaskingSettingsFile(path.join(dir, 'nope.json'))).toEqual({
      exists: false,
      settings: {},
    });
    const result = await readToolOutputMaskingSettingsFile(dir); // a directory
    expect(result.error?.file).toBe(dir);
  });

  test('workspace wins over user; defaults fill the rest', async () => {
    const user = path.join(dir, 'home', '.gemini', 'settings.json');
    const workspace = path.join(dir, 'project', '.gemini', 'settings.json');
    write(
      user,
      '{ "experimental": { "toolOutputMasking": { "toolProtectionThreshold": 10, "minPrunableTokensThreshold": 20 } } }',
    );
    write(
      workspace,
      '{ "experimental": { "toolOutputMasking": { "toolProtectionThreshold": 99 } } }',
    );
    const files = new ToolOutputMaskingSettingsFiles({
      userSettingsPath: user,
      workspaceSettingsPath: workspace,
    });
    const layers = await files.load();
    expect(layers.map((l) => l.scope)).toEqual(['user', 'workspace']);
    const config = resolveToolOutputMaskingConfig(...layers.map((l) => l.settings));
    expect(config.toolProtectionThreshold).toBe(99);
    expect(config.minPrunableTokensThreshold).toBe(20);
    expect(config.enabled).toBe(true);
  });

  test('errors are reported once per change of the file, and edits are picked up', async () => {
    const workspace = path.join(dir, 'project', '.gemini', 'settings.json');
    write(workspace, '{ "experimental": { "toolOutputMasking": { "enabled": "no" } } }');
    const errors: SettingsFileError[] = [];
    const files = new ToolOutputMaskingSettingsFiles({
      userSettingsPath: null,
      workspaceSettingsPath: workspace,
      onSettingsError: (error) => errors.push(error),
    });
    await files.load();
    await files.load();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.key).toBe('experimental.toolOutputMasking.enabled');

    write(workspace, '{ "experimental": { "toolOutputMasking": { "enabled": false } } }');
    // Make sure the stamp changes even on coarse-mtime file systems.
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(workspace, later, later);
    const layers = await files.load();
    expect(layers[0]?.settings).toEqual({ enabled: false });
    expect(errors).toHaveLength(1);
  });

  test('the same file as user and workspace (a project in the home folder) is read once', async () => {
    const file = path.join(dir, '.gemini', 'settings.json');
    write(file, '{ "experimental": { "toolOutputMasking": { "enabled": false } } }');
    const files = new ToolOutputMaskingSettingsFiles({
      userSettingsPath: file,
      workspaceSettingsPath: file,
    });
    expect((await files.load()).map((l) => l.scope)).toEqual(['user']);
  });

  test('a throwing error reporter does not break loading', async () => {
    const workspace = path.join(dir, 'settings.json');
    write(workspace, '{ broken');
    const files = new ToolOutputMaskingSettingsFiles({
      userSettingsPath: null,
      workspaceSettingsPath: workspace,
      onSettingsError: () => {
        throw new Error('reporter down');
      },
    });
    await expect(files.load()).resolves.toEqual([
      { scope: 'workspace', file: workspace, settings: {} },
    ]);
  });
});
