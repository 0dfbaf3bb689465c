/**
 * Reads the `experimental.toolOutputMasking` block from gemini-cli `settings.json` files: the user
 * file (`~/.gemini/settings.json`, or `$GEMINI_CLI_HOME/.gemini/settings.json`) and the workspace
 * file (`<project>/.gemini/settings.json`, which wins). Comments are allowed, as gemini-cli allows
 * them. A client's own `toolmask.json` (settingsPlace.ts) holds the same keys at its top level,
 * and is read with the same checks.
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
import { userSettingsPath } from './paths.js';
import {
  SettingsReadError,
  parseSettingsText,
  readSettingsText,
  type SettingsFileSystem,
} from './settingsText.js';
import {
  SettingsFileError,
  keysPlaceOf,
  parseToolOutputMaskingSettings,
  type ParsedSettingsBlock,
  type SettingsFileWarning,
  type SettingsScope,
} from './settingsBlock.js';
import { describeError, safeCall } from '../utils/safeCall.js';
import { sharedSettingsLoader } from './sharedSettingsLoader.js';
import type { ToolOutputMaskingSettings } from './toolOutputMaskingSettings.js';

export { parseSettingsText, type SettingsFileSystem };
export {
  SettingsFileError,
  parseToolOutputMaskingSettings,
  type ParsedSettingsBlock,
  type SettingsFileErrorCode,
  type SettingsFilePlace,
  type SettingsFileWarning,
  type SettingsScope,
} from './settingsBlock.js';

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
      return { exists: false, present: false, settings: {} };
    }
    const place = keysPlaceOf(file);
    return {
      exists: true,
      present: true,
      settings: {},
      error: new SettingsFileError(
        'READ_FAILED',
        `Could not read ${file}: ${describeError(error)}. Its ${place.name} settings are ignored.`,
        { file, key: place.keysAt, scope },
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
  /** Whether the file holds masking settings (`ParsedSettingsBlock.present`). */
  present: boolean;
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
    if (user) layers.push({ scope: 'user', file: user, ...(await this.read(user, 'user')) });
    // The same file twice (a project in the home folder) is read once, as the user file.
    if (workspace && workspace !== user) {
      layers.push({
        scope: 'workspace',
        file: workspace,
        ...(await this.read(workspace, 'workspace')),
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

  private async read(
    file: string,
    scope: SettingsScope,
  ): Promise<Pick<SettingsLayer, 'settings' | 'present'>> {
    const stamp = await this.stamp(file);
    const cached = this.cache.get(file);
    if (cached && cached.stamp === stamp) {
      return { settings: cached.result.settings, present: cached.result.present };
    }
    const result = await readToolOutputMaskingSettingsFile(file, scope, this.fs);
    this.cache.set(file, { stamp, result });
    // A failing reporter must not break the turn either.
    if (result.error) safeCall(this.options.onSettingsError, result.error);
    for (const warning of result.warnings ?? []) safeCall(this.options.onSettingsWarning, warning);
    return { settings: result.settings, present: result.present };
  }
}
