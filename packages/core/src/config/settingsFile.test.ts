import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  SettingsFileError,
  ToolOutputMaskingSettingsFiles,
  parseSettingsText,
  parseToolOutputMaskingSettings,
  readToolOutputMaskingSettingsFile,
  type SettingsFileSystem,
} from './settingsFile.js';
import { closestSettingKey } from './unknownSettingKeys.js';
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
      present: true,
    });
  });

  test('no experimental block, no masking block, empty file, BOM: no settings and no error', () => {
    const none = { settings: {}, present: false };
    expect(parseToolOutputMaskingSettings('{ "ui": {} }', FILE)).toEqual(none);
    expect(parseToolOutputMaskingSettings('{ "experimental": {} }', FILE)).toEqual(none);
    expect(parseToolOutputMaskingSettings('', FILE)).toEqual(none);
    expect(parseToolOutputMaskingSettings('// only a comment\n', FILE)).toEqual(none);
    expect(
      parseToolOutputMaskingSettings(
        '\uFEFF{ "experimental": { "toolOutputMasking": { "enabled": false } } }',
        FILE,
      ),
    ).toEqual({ settings: { enabled: false }, present: true });
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

  test('a bad value: an error naming the file and the full key; only that key is dropped', () => {
    const text =
      '{ "experimental": { "toolOutputMasking": { "toolProtectionThreshold": "lots", "protectLatestTurn": false } } }';
    const { settings, error } = parseToolOutputMaskingSettings(text, FILE);
    expect(settings).toEqual({ protectLatestTurn: false });
    expect(error?.key).toBe('experimental.toolOutputMasking.toolProtectionThreshold');
    expect(error?.message).toContain(FILE);
    expect(error?.message).toContain('toolProtectionThreshold');
    expect(error?.message).toContain('That key is ignored; the rest of the block applies.');
  });

  test('each bad value is named and dropped; "enabled": false and the good keys stay', () => {
    const text =
      '{ "experimental": { "toolOutputMasking": { "enabled": false, "minPrunableTokensThreshold": -1, "toolProtectionThreshold": "50k", "coldCacheProtectionThreshold": 9000 } } }';
    const { settings, error } = parseToolOutputMaskingSettings(text, FILE);
    expect(settings).toEqual({ enabled: false, coldCacheProtectionThreshold: 9000 });
    expect(error?.key).toBe('experimental.toolOutputMasking.toolProtectionThreshold');
    expect(error?.message).toContain('minPrunableTokensThreshold');
    expect(error?.message).toContain('"50k"');
    expect(error?.message).toContain('Those keys are ignored');
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
      present: false,
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
      { scope: 'workspace', file: workspace, settings: {}, present: true },
    ]);
  });
});

describe('settings files that are not what they seem (issue 15, item 5)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-settings-odd-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a FIFO is reported at once (it used to hang every turn), and a fixed file is picked up', async () => {
    const file = path.join(dir, 'settings.json');
    execFileSync('mkfifo', [file]);
    const errors: SettingsFileError[] = [];
    const files = new ToolOutputMaskingSettingsFiles({
      userSettingsPath: null,
      workspaceSettingsPath: file,
      onSettingsError: (error) => errors.push(error),
    });
    expect(await files.load()).toEqual([{ scope: 'workspace', file, settings: {}, present: true }]);
    expect(errors[0]?.message).toMatch(/it is not a regular file \(a FIFO, socket or device\)/);
    fs.rmSync(file);
    fs.writeFileSync(file, '{ "experimental": { "toolOutputMasking": { "enabled": false } } }');
    expect((await files.load())[0]?.settings).toEqual({ enabled: false });
  }, 15_000);

  // Every host's reads are shared and bounded (the gateway's too, not only the installation's).
  test('a read that hangs: load() answers (within its wait: the reliability test), and overlapping loads read once', async () => {
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
    expect(await Promise.all([files.load(), files.load()])).toEqual([[], []]);
    expect(stats).toBe(1);
  });

  test('a file over 1 MB is refused with a clear error, before it is parsed', async () => {
    const file = path.join(dir, 'settings.json');
    // A 50 MB comment took 26.6 s and 2 GB to strip; 2 MB is enough to be refused.
    fs.writeFileSync(
      file,
      `/*${'x'.repeat(2 * 1024 * 1024)}*/ { "experimental": { "toolOutputMasking": { "enabled": false } } }`,
    );
    const result = await readToolOutputMaskingSettingsFile(file);
    expect(result.settings).toEqual({});
    expect(result.error?.message).toMatch(
      /^Could not read .*settings\.json: it is 2,097,\d+ bytes, larger than the 1 MB a settings file may be\./,
    );
  });

  test('a settings file of one 1 MB comment parses (in linear time: the reliability test)', () => {
    const text = `/*${'/* * // '.repeat(130_000)}*/ { "experimental": { "toolOutputMasking": { "enabled": false } } }`;
    expect(parseSettingsText(text)).toEqual({
      experimental: { toolOutputMasking: { enabled: false } },
    });
  });

  test('trailing commas are an error, with the line and column, as gemini-cli reads them', () => {
    expect(() => parseSettingsText('{\n  "a": 1,\n}')).toThrow(
      /^PropertyNameExpected at line 3, column 1$/,
    );
    expect(() => parseSettingsText('{\n  "a": 1\n  "b": 2\n}')).toThrow(
      /^CommaExpected at line 3, column 3$/,
    );
    expect(() => parseSettingsText('['.repeat(200_000))).toThrow(/nested too deeply/);
    // JSON semantics: `__proto__` is an ordinary key, the last duplicate wins.
    const value = parseSettingsText('{ "__proto__": { "x": 1 }, "a": 1, "a": 2 }') as object;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'a']);
  });
});

describe('unknown keys are warnings with the closest known key (issue 16, item 5)', () => {
  test('a misspelled key: a warning naming the file and the key it meant; the rest applies', () => {
    const text =
      '{ "experimental": { "toolOutputMasking": { "toolProtectionThresold": 1000, "enabled": true, "fooBar": 1 } } }';
    const { settings, error, warnings } = parseToolOutputMaskingSettings(text, FILE, 'user');
    expect(settings).toEqual({ enabled: true });
    expect(error).toBeUndefined();
    expect(warnings).toEqual([
      {
        message: `Unknown setting experimental.toolOutputMasking.toolProtectionThresold in ${FILE} (ignored); did you mean toolProtectionThreshold?`,
        file: FILE,
        key: 'experimental.toolOutputMasking.toolProtectionThresold',
        suggestion: 'toolProtectionThreshold',
        scope: 'user',
      },
      {
        message: expect.stringMatching(
          /^Unknown setting experimental\.toolOutputMasking\.fooBar in .* \(ignored\); known keys: enabled, toolProtectionThreshold, /,
        ),
        file: FILE,
        key: 'experimental.toolOutputMasking.fooBar',
        scope: 'user',
      },
    ]);
  });

  test('suggests across case and transposed letters, not for unrelated words', () => {
    expect(closestSettingKey('retentiondays')).toBe('retentionDays');
    expect(closestSettingKey('maxOuptutTokens')).toBe('maxOutputTokens');
    expect(closestSettingKey('exemptTool')).toBe('exemptTools');
    expect(closestSettingKey('colour')).toBeUndefined();
  });

  test('the installation is told once per change of the file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-settings-warn-'));
    try {
      const file = path.join(dir, 'settings.json');
      fs.writeFileSync(file, '{ "experimental": { "toolOutputMasking": { "enabeld": false } } }');
      const warnings: string[] = [];
      const files = new ToolOutputMaskingSettingsFiles({
        userSettingsPath: file,
        workspaceSettingsPath: null,
        onSettingsWarning: (warning) => warnings.push(warning.message),
      });
      await files.load();
      await files.load();
      expect(warnings).toEqual([
        `Unknown setting experimental.toolOutputMasking.enabeld in ${file} (ignored); did you mean enabled?`,
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
