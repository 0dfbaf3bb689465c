/**
 * Every error core throws on purpose is a `ToolmaskError` with its own name and a stable code
 * (docs/architecture.md, "Errors"): the codes below are public and never change.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolmaskError } from '../entries/errors.js';
import {
  parseToolOutputMaskingSettings,
  readSettingsText,
  readToolOutputMaskingSettingsFile,
  SettingsFileError,
  SettingsReadError,
  ToolOutputMaskingSettingsError,
  validateToolOutputMaskingSettings,
} from '../entries/settings.js';
import {
  createFileToolOutputStore,
  readToolOutput,
  ToolOutputReadError,
} from '../entries/storage.js';
import { checkReadPattern, PatternError } from '../storage/patternSyntax.js';
import { errorCode } from './safeCall.js';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

let root: string | undefined;
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = undefined;
});
function tempDir(): string {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-errors-'));
  return root;
}

describe('ToolmaskError', () => {
  it('carries the code, the subclass name, the message and the cause', () => {
    class ExampleError extends ToolmaskError<'EXAMPLE_CODE'> {
      constructor(message: string, cause?: unknown) {
        super('EXAMPLE_CODE', message, { cause });
      }
    }
    const cause = new Error('below');
    const error = new ExampleError('it failed', cause);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(ToolmaskError);
    expect(error.name).toBe('ExampleError');
    expect(error.code).toBe('EXAMPLE_CODE');
    expect(error.message).toBe('it failed');
    expect(error.cause).toBe(cause);
    expect(errorCode(error, 'FALLBACK')).toBe('EXAMPLE_CODE');
  });

  it('ToolOutputMaskingSettingsError: INVALID_SETTING', () => {
    const error = thrown(() => validateToolOutputMaskingSettings({ enabled: 'yes' }, 'f.json'));
    expect(error).toBeInstanceOf(ToolOutputMaskingSettingsError);
    expect(error).toBeInstanceOf(ToolmaskError);
    expect(error).toMatchObject({
      name: 'ToolOutputMaskingSettingsError',
      code: 'INVALID_SETTING',
    });
  });

  it('SettingsReadError: ENOENT, NOT_A_FILE', async () => {
    const dir = tempDir();
    const missing = await readSettingsText(path.join(dir, 'none.json')).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SettingsReadError);
    expect(missing).toBeInstanceOf(ToolmaskError);
    expect(missing).toMatchObject({ name: 'SettingsReadError', code: 'ENOENT' });
    const folder = await readSettingsText(dir).catch((e: unknown) => e);
    expect(folder).toMatchObject({ name: 'SettingsReadError', code: 'NOT_A_FILE' });
  });

  it('SettingsFileError: INVALID_JSON, INVALID_SETTING, READ_FAILED', async () => {
    const parsed = (text: string) => parseToolOutputMaskingSettings(text, '/p/settings.json').error;
    expect(parsed('{')).toMatchObject({
      code: 'INVALID_JSON',
      key: 'experimental.toolOutputMasking',
    });
    expect(parsed('[]')).toMatchObject({ code: 'INVALID_SETTING' });
    expect(parsed('{"experimental": 1}')).toMatchObject({
      code: 'INVALID_SETTING',
      key: 'experimental',
    });
    const badValue = parsed('{"experimental": {"toolOutputMasking": {"enabled": 1}}}');
    expect(badValue).toBeInstanceOf(SettingsFileError);
    expect(badValue).toBeInstanceOf(ToolmaskError);
    expect(badValue).toMatchObject({
      name: 'SettingsFileError',
      code: 'INVALID_SETTING',
      file: '/p/settings.json',
      key: 'experimental.toolOutputMasking.enabled',
    });
    const unreadable = await readToolOutputMaskingSettingsFile(tempDir(), 'user');
    expect(unreadable.error).toMatchObject({ code: 'READ_FAILED', scope: 'user' });
  });

  it('PatternError: INVALID_PATTERN', () => {
    const error = thrown(() => checkReadPattern('(?=lookahead)'));
    expect(error).toBeInstanceOf(PatternError);
    expect(error).toBeInstanceOf(ToolmaskError);
    expect(error).toMatchObject({ name: 'PatternError', code: 'INVALID_PATTERN' });
  });

  it('ToolOutputReadError: its codes', async () => {
    const access = { projectTempDir: tempDir(), sessionId: 's1', allowOtherSessions: false };
    const error = await readToolOutput({ file: '' }, access).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolOutputReadError);
    expect(error).toBeInstanceOf(ToolmaskError);
    expect(error).toMatchObject({ name: 'ToolOutputReadError', code: 'INVALID_PARAMS' });
  });

  it("the store's refusals: EINVAL, ENOTDIR (as the file system's own codes)", async () => {
    const dir = tempDir();
    const store = createFileToolOutputStore();
    const badName = await store.save(dir, '../x.txt', 'text').catch((e: unknown) => e);
    expect(badName).toBeInstanceOf(ToolmaskError);
    expect(badName).toMatchObject({ name: 'StoreError', code: 'EINVAL' });
    fs.symlinkSync(dir, path.join(dir, 'link'));
    const symlinked = await store
      .save(path.join(dir, 'link'), 'a.txt', 'text')
      .catch((e: unknown) => e);
    expect(symlinked).toMatchObject({ name: 'StoreError', code: 'ENOTDIR' });
  });
});
