/**
 * Reads the `experimental.toolOutputMasking` block from gemini-cli `settings.json` files: the user
 * file (`~/.gemini/settings.json`, or `$GEMINI_CLI_HOME/.gemini/settings.json`) and the workspace
 * file (`<project>/.gemini/settings.json`, which wins). Comments are allowed, as gemini-cli allows
 * them.
 *
 * A file that cannot be read or parsed, or a block with a bad value, never throws: it is reported
 * as a `SettingsFileError` naming the file and the key, and that file's block is ignored (the
 * other file and the defaults still apply). One exception: an explicit `"enabled": false` in a
 * block that is otherwise invalid is still honoured, because "off" is always safe and is clearly
 * what the author meant.
 */
import * as nodeFs from 'node:fs';
import * as path from 'node:path';
import stripJsonComments from 'strip-json-comments';
import {
  SETTINGS_PATH,
  ToolOutputMaskingSettingsError,
  validateToolOutputMaskingSettings,
  type ToolOutputMaskingSettings,
} from './toolOutputMaskingSettings.js';
import { userSettingsPath } from './paths.js';
import { describeError, isPlainObject } from '../utils/safeCall.js';

export type SettingsScope = 'user' | 'workspace';

/** A settings file that could not be used, with the file and the key it concerns. */
export class SettingsFileError extends Error {
  constructor(
    message: string,
    /** Absolute path of the settings file. */
    readonly file: string,
    /** Dotted key the problem concerns, e.g. `experimental.toolOutputMasking.toolProtectionThreshold`. */
    readonly key: string,
    readonly scope?: SettingsScope,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SettingsFileError';
  }
}

export interface ParsedSettingsBlock {
  /** What to apply from this file: the block, `{}`, or `{ enabled: false }` (see the module comment). */
  settings: ToolOutputMaskingSettings;
  error?: SettingsFileError;
}

/** Line and column (1-based) of a character offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

function parseErrorMessage(error: unknown, text: string): string {
  const message = describeError(error);
  const position = /at position (\d+)/.exec(message);
  if (!position) return message;
  const { line, column } = lineAndColumn(text, Number(position[1]));
  return `${message} (line ${line}, column ${column})`;
}

/** Whatever the block says about `enabled`, if it says `false` in so many words. */
function explicitOff(block: unknown): ToolOutputMaskingSettings {
  return isPlainObject(block) && block['enabled'] === false ? { enabled: false } : {};
}

/**
 * A settings.json text as gemini-cli reads it: `//` and block comments allowed (trailing commas
 * are not), a leading BOM ignored, an empty file is `undefined`. Throws a `SyntaxError` whose
 * message carries the line and column in the original text.
 */
export function parseSettingsText(text: string): unknown {
  // Comments become whitespace, so JSON.parse positions still point into the original text.
  const json = stripJsonComments(text.replace(/^\uFEFF/, ''));
  if (json.trim() === '') return undefined;
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new SyntaxError(parseErrorMessage(error, json), { cause: error });
  }
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
        `Could not parse ${file}: ${(error as Error).message}. Its ${SETTINGS_PATH} settings are ignored.`,
        file,
        SETTINGS_PATH,
        scope,
        { cause: error },
      ),
    };
  }
  if (root === undefined) return { settings: {} };
  if (!isPlainObject(root)) {
    return {
      settings: {},
      error: new SettingsFileError(
        `Invalid settings file ${file}: expected a JSON object at the top level. Its ${SETTINGS_PATH} settings are ignored.`,
        file,
        SETTINGS_PATH,
        scope,
      ),
    };
  }
  const experimental = root['experimental'];
  if (experimental === undefined) return { settings: {} };
  if (!isPlainObject(experimental)) {
    return {
      settings: {},
      error: new SettingsFileError(
        `Invalid setting experimental in ${file}: expected an object. Its ${SETTINGS_PATH} settings are ignored.`,
        file,
        'experimental',
        scope,
      ),
    };
  }
  const block = experimental['toolOutputMasking'];
  try {
    return { settings: validateToolOutputMaskingSettings(block, file) };
  } catch (error) {
    const key =
      error instanceof ToolOutputMaskingSettingsError && error.key
        ? `${SETTINGS_PATH}.${error.key}`
        : SETTINGS_PATH;
    const settings = explicitOff(block);
    const fallback =
      settings.enabled === false
        ? 'The rest of the block is ignored; "enabled": false is kept.'
        : "This file's masking settings are ignored.";
    return {
      settings,
      error: new SettingsFileError(`${describeError(error)} ${fallback}`, file, key, scope, {
        cause: error,
      }),
    };
  }
}

export type SettingsFileSystem = Pick<typeof nodeFs, 'promises'>;

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
    text = await fs.promises.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { exists: false, settings: {} };
    return {
      exists: true,
      settings: {},
      error: new SettingsFileError(
        `Could not read ${file}: ${describeError(error)}. Its ${SETTINGS_PATH} settings are ignored.`,
        file,
        SETTINGS_PATH,
        scope,
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
  /** Default: `node:fs` (tests pass memfs). */
  fs?: SettingsFileSystem;
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
 * host picks up an edit at the next model request without paying for a parse every time.
 */
export class ToolOutputMaskingSettingsFiles {
  private readonly cache = new Map<string, CachedFile>();
  private readonly fs: SettingsFileSystem;

  constructor(private readonly options: SettingsFilesOptions = {}) {
    this.fs = options.fs ?? nodeFs;
  }

  /** The layers to merge, user first, workspace last (so it wins). Never throws. */
  async load(): Promise<SettingsLayer[]> {
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
    if (result.error) {
      try {
        this.options.onSettingsError?.(result.error);
      } catch {
        // A failing reporter must not break the turn either.
      }
    }
    return result.settings;
  }
}
