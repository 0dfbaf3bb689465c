/**
 * Reads the `experimental.toolOutputMasking` block from gemini-cli `settings.json` files: the user
 * file (`~/.gemini/settings.json`, or `$GEMINI_CLI_HOME/.gemini/settings.json`) and the workspace
 * file (`<project>/.gemini/settings.json`, which wins). Comments are allowed, as gemini-cli allows
 * them.
 *
 * A file that cannot be read or parsed, or a block with a bad value, never throws: it is reported
 * as a `SettingsFileError` naming the file and the key. A bad value drops its key only (the rest
 * of the block, the other file and the defaults still apply); a file that cannot be read or
 * parsed, or a block that is no object, is ignored whole (an explicit `"enabled": false` in a
 * block of another type is honoured: "off" is always safe). An unknown key in the block is a `SettingsFileWarning` (with the closest
 * known key), never an error. Files are read safely (settingsText.ts: regular files of at most
 * 1 MB, linear-time JSONC).
 */
import * as nodeFs from 'node:fs';
import * as path from 'node:path';
import {
  SETTINGS_PATH,
  validSettingKeys,
  type ToolOutputMaskingSettings,
} from './toolOutputMaskingSettings.js';
import { userSettingsPath } from './paths.js';
import {
  SettingsReadError,
  parseSettingsText,
  readSettingsText,
  type SettingsFileSystem,
} from './settingsText.js';
import { describeUnknownSettingKey, unknownSettingKeys } from './unknownSettingKeys.js';
import { describeError, isPlainObject, safeCall } from '../utils/safeCall.js';
import { sharedSettingsLoader } from './sharedSettingsLoader.js';
import { ToolmaskError } from '../utils/toolmaskError.js';

export { parseSettingsText, type SettingsFileSystem };

export type SettingsScope = 'user' | 'workspace';

/**
 * Why a settings file's block is ignored: `READ_FAILED` (the file exists but cannot be read: not
 * a regular file, too large, an I/O error), `INVALID_JSON` (it does not parse), `INVALID_SETTING`
 * (it parses, but the top level, `experimental` or a value of the block has the wrong type).
 */
export type SettingsFileErrorCode = 'READ_FAILED' | 'INVALID_JSON' | 'INVALID_SETTING';

/** Where a settings problem is: the file, the key and (when known) the file's scope. */
export interface SettingsFilePlace {
  /** Absolute path of the settings file. */
  file: string;
  /** Dotted key the problem concerns, e.g. `experimental.toolOutputMasking.toolProtectionThreshold`. */
  key: string;
  scope?: SettingsScope | undefined;
}

/** A settings file that could not be used, with the file and the key it concerns. */
export class SettingsFileError extends ToolmaskError<SettingsFileErrorCode> {
  /** Absolute path of the settings file. */
  readonly file: string;
  /** Dotted key the problem concerns, e.g. `experimental.toolOutputMasking.toolProtectionThreshold`. */
  readonly key: string;
  readonly scope?: SettingsScope;

  constructor(
    code: SettingsFileErrorCode,
    message: string,
    { file, key, scope }: SettingsFilePlace,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.file = file;
    this.key = key;
    this.scope = scope;
  }
}

/** A key toolmask does not know under `experimental.toolOutputMasking`: ignored, and said. */
export interface SettingsFileWarning {
  message: string;
  /** Absolute path of the settings file. */
  file: string;
  /** Dotted key, e.g. `experimental.toolOutputMasking.toolProtectionThresold`. */
  key: string;
  /** The known key it most likely meant. */
  suggestion?: string;
  scope?: SettingsScope;
}

export interface ParsedSettingsBlock {
  /** What to apply from this file: the block, `{}`, or `{ enabled: false }` (see the module comment). */
  settings: ToolOutputMaskingSettings;
  error?: SettingsFileError;
  /** Unknown keys of the block (present only when there are some). */
  warnings?: SettingsFileWarning[];
}

/** Whatever the block says about `enabled`, if it says `false` in so many words. */
function explicitOff(block: unknown): ToolOutputMaskingSettings {
  return isPlainObject(block) && block['enabled'] === false ? { enabled: false } : {};
}

/**
 * Parses the text of one settings file (JSONC) and extracts the masking block.
 * Missing `experimental` or missing block: `{}` without error.
 */
export function parseToolOutputMaskingSettings(
  text: string,
  file: string,
  scope?: SettingsScope,
): ParsedSettingsBlock {
  let root: unknown;
  try {
    root = parseSettingsText(text);
  } catch (error) {
    return {
      settings: {},
      error: new SettingsFileError(
        'INVALID_JSON',
        `Could not parse ${file}: ${(error as Error).message}. Its ${SETTINGS_PATH} settings are ignored.`,
        { file, key: SETTINGS_PATH, scope },
        { cause: error },
      ),
    };
  }
  if (root === undefined) return { settings: {} };
  if (!isPlainObject(root)) {
    return {
      settings: {},
      error: new SettingsFileError(
        'INVALID_SETTING',
        `Invalid settings file ${file}: expected a JSON object at the top level. Its ${SETTINGS_PATH} settings are ignored.`,
        { file, key: SETTINGS_PATH, scope },
      ),
    };
  }
  const experimental = root['experimental'];
  if (experimental === undefined) return { settings: {} };
  if (!isPlainObject(experimental)) {
    return {
      settings: {},
      error: new SettingsFileError(
        'INVALID_SETTING',
        `Invalid setting experimental in ${file}: expected an object. Its ${SETTINGS_PATH} settings are ignored.`,
        { file, key: 'experimental', scope },
      ),
    };
  }
  const block = experimental['toolOutputMasking'];
  const unknown = unknownSettingKeys(block).map((key): SettingsFileWarning => ({
    message: describeUnknownSettingKey(key, file),
    file,
    key: `${SETTINGS_PATH}.${key.key}`,
    ...(key.suggestion ? { suggestion: key.suggestion } : {}),
    ...(scope ? { scope } : {}),
  }));
  const warnings = unknown.length > 0 ? { warnings: unknown } : {};
  return { ...blockSettings(block, file, scope), ...warnings };
}

/** The block's settings, a bad value dropping its key only, and the error naming each bad key. */
function blockSettings(block: unknown, file: string, scope?: SettingsScope): ParsedSettingsBlock {
  const { settings, bad } = validSettingKeys(block, file);
  const first = bad[0];
  if (!first) return { settings };
  if (!first.key) {
    // The block itself is no object: nothing of it applies.
    return {
      settings: explicitOff(block),
      error: new SettingsFileError(
        'INVALID_SETTING',
        `${describeError(first)} This file's masking settings are ignored.`,
        { file, key: SETTINGS_PATH, scope },
        { cause: first },
      ),
    };
  }
  const fallback =
    bad.length === 1
      ? 'That key is ignored; the rest of the block applies.'
      : 'Those keys are ignored; the rest of the block applies.';
  return {
    settings,
    error: new SettingsFileError(
      'INVALID_SETTING',
      `${bad.map((error) => describeError(error)).join(' ')} ${fallback}`,
      { file, key: `${SETTINGS_PATH}.${first.key}`, scope },
      { cause: first },
    ),
  };
}

export interface ReadSettingsFileResult extends ParsedSettingsBlock {
  /** False when there is no such file. */
  exists: boolean;
}

/** Reads and parses one settings file. A missing file is not an error. */
export async function readToolOutputMaskingSettingsFile(
  file: string,
  scope?: SettingsScope,
  fs: SettingsFileSystem = nodeFs,
): Promise<ReadSettingsFileResult> {
  let text: string;
  try {
    text = await readSettingsText(file, fs);
  } catch (error) {
    if (error instanceof SettingsReadError && error.code === 'ENOENT') {
      return { exists: false, settings: {} };
    }
    return {
      exists: true,
      settings: {},
      error: new SettingsFileError(
        'READ_FAILED',
        `Could not read ${file}: ${describeError(error)}. Its ${SETTINGS_PATH} settings are ignored.`,
        { file, key: SETTINGS_PATH, scope },
        { cause: error },
      ),
    };
  }
  return { exists: true, ...parseToolOutputMaskingSettings(text, file, scope) };
}

export interface SettingsFilesOptions {
  /** Default: `userSettingsPath()` at each load. `null` skips the user file. */
  userSettingsPath?: string | null | (() => string | null);
  /** Default: none. `null` skips the workspace file. */
  workspaceSettingsPath?: string | null | (() => string | null);
  /** Told about each problem once (again only after the file changes). */
  onSettingsError?: (error: SettingsFileError) => void;
  /** Told about each unknown key once (again only after the file changes). */
  onSettingsWarning?: (warning: SettingsFileWarning) => void;
  /** Default: `node:fs` (tests pass memfs). */
  fs?: SettingsFileSystem;
  /** How long a load waits for a read that hangs (sharedSettingsLoader.ts). @default 2 s */
  waitMs?: number;
}

export interface SettingsLayer {
  scope: SettingsScope;
  file: string;
  settings: ToolOutputMaskingSettings;
}

interface CachedFile {
  stamp: string;
  result: ReadSettingsFileResult;
}

function resolvePath(value: SettingsFilesOptions['userSettingsPath']): string | null {
  const resolved = typeof value === 'function' ? value() : value;
  return resolved ? path.resolve(resolved) : null;
}

/**
 * The user and workspace settings files, re-read when they change (size, mtime or inode), so a
 * host picks up an edit at the next model request without paying for a parse every time. Loads
 * are shared by overlapping callers and bounded in time (sharedSettingsLoader.ts), for every host.
 */
export class ToolOutputMaskingSettingsFiles {
  private readonly cache = new Map<string, CachedFile>();
  private readonly fs: SettingsFileSystem;
  /** The layers to merge, user first, workspace last (so it wins). Never throws. */
  readonly load: () => Promise<SettingsLayer[]>;

  constructor(private readonly options: SettingsFilesOptions = {}) {
    this.fs = options.fs ?? nodeFs;
    this.load = sharedSettingsLoader(() => this.loadNow(), options.waitMs);
  }

  private async loadNow(): Promise<SettingsLayer[]> {
    const user = resolvePath(
      this.options.userSettingsPath === undefined
        ? userSettingsPath
        : this.options.userSettingsPath,
    );
    const workspace = resolvePath(this.options.workspaceSettingsPath ?? null);
    const layers: SettingsLayer[] = [];
    if (user) layers.push({ scope: 'user', file: user, settings: await this.read(user, 'user') });
    // The same file twice (a project in the home folder) is read once, as the user file.
    if (workspace && workspace !== user) {
      layers.push({
        scope: 'workspace',
        file: workspace,
        settings: await this.read(workspace, 'workspace'),
      });
    }
    return layers;
  }

  private async stamp(file: string): Promise<string> {
    try {
      const stats = await this.fs.promises.stat(file);
      return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    } catch (error) {
      return `missing:${(error as { code?: unknown }).code ?? ''}`;
    }
  }

  private async read(file: string, scope: SettingsScope): Promise<ToolOutputMaskingSettings> {
    const stamp = await this.stamp(file);
    const cached = this.cache.get(file);
    if (cached && cached.stamp === stamp) return cached.result.settings;
    const result = await readToolOutputMaskingSettingsFile(file, scope, this.fs);
    this.cache.set(file, { stamp, result });
    // A failing reporter must not break the turn either.
    if (result.error) safeCall(this.options.onSettingsError, result.error);
    for (const warning of result.warnings ?? []) safeCall(this.options.onSettingsWarning, warning);
    return result.settings;
  }
}
