/**
 * `withToolOutputMasking(config, options)`: adapts a gemini-cli `Config` to the `MaskingHost` the
 * masking pass reads. It does NOT touch the Config's own `getToolOutputMaskingConfig()` (that one
 * feeds core's built-in pass); it adds toolmask's resolved configuration beside it:
 *
 *   defaults  <  user settings.json  <  workspace settings.json  <  explicit host options
 *
 * Settings files are re-read when they change. A broken file or value is reported through
 * `onSettingsError` (default: a warning in core's feedback channel and debug log) and that file's
 * block is ignored; the pass goes on with the rest. An unknown key is reported through
 * `onSettingsWarning` (the same channel), with the closest known key. A turn never waits long
 * for a settings read (config/sharedSettingsLoader.ts). The workspace file is read only for a trusted
 * folder (`config.isTrustedFolder()`), as gemini-cli does.
 */
import type { Config } from '@google/gemini-cli-core';
import {
  resolveToolOutputMaskingConfigForModel,
  validateToolOutputMaskingSettings,
  type ToolOutputMaskingConfig,
  type ToolOutputMaskingSettings,
} from '../config/toolOutputMaskingSettings.js';
import {
  ToolOutputMaskingSettingsFiles,
  type SettingsFileError,
  type SettingsFileWarning,
} from '../config/settingsFile.js';
import { userSettingsPath } from '../config/paths.js';
import type { MaskingHost } from '../services/maskingTypes.js';
import { coreWarn } from './coreLogger.js';

export interface ToolOutputMaskingOptions {
  /** Explicit settings from the host; they win over settings files. Validated at once (throws). */
  settings?: ToolOutputMaskingSettings;
  /** Read `experimental.toolOutputMasking` from settings.json files. Default true. */
  readSettingsFiles?: boolean;
  /** Default: `$GEMINI_CLI_HOME/.gemini/settings.json` or `~/.gemini/settings.json`. `null`: skip. */
  userSettingsPath?: string | null;
  /** Default: `<targetDir>/.gemini/settings.json` for a trusted folder. `null`: skip. */
  workspaceSettingsPath?: string | null;
  /** Told about each unusable settings file or value (once per change of the file). */
  onSettingsError?: (error: SettingsFileError) => void;
  /** Told about each unknown key of the block (once per change of the file). */
  onSettingsWarning?: (warning: SettingsFileWarning) => void;
  /**
   * The context window of the model about to be called, read at every request; when no layer
   * sets `maxOutputTokens`, it defaults to a quarter of it. `installToolOutputMasking` passes
   * core's `tokenLimit(config.getActiveModel())`. Default: unknown (a quarter of 1,048,576).
   */
  contextWindowTokens?: () => number | undefined;
  /** Test seams. */
  _internal?: {
    /** How long a turn waits for the settings files. @default SETTINGS_READ_WAIT_MS */
    settingsWaitMs?: number;
  };
}

export type ToolOutputMaskingHostConfig = Pick<
  Config,
  'getSessionId' | 'storage' | 'isTrustedFolder'
>;

export interface ToolOutputMaskingHost extends MaskingHost {
  readonly config: ToolOutputMaskingHostConfig;
  /** The installation reads its settings files itself: every pass falls back to these. */
  getToolOutputMaskingConfig(): Promise<ToolOutputMaskingConfig>;
}

/** The default reporter: gemini-cli shows `UserFeedback` warnings to the user; plus a debug line. */
export function reportSettingsError(error: SettingsFileError): void {
  coreWarn(`toolmask: ${error.message}`, error);
}

/** The default reporter of unknown keys: the same channel, as a warning. */
export function reportSettingsWarning(warning: SettingsFileWarning): void {
  coreWarn(`toolmask: ${warning.message}`);
}

function workspacePathOf(
  config: ToolOutputMaskingHostConfig,
  explicit: string | null | undefined,
): () => string | null {
  if (explicit !== undefined) return () => explicit;
  return () => {
    try {
      return config.isTrustedFolder() ? config.storage.getWorkspaceSettingsPath() : null;
    } catch {
      return null;
    }
  };
}

function contextWindowOf(read: (() => number | undefined) | undefined): number | undefined {
  try {
    return read?.();
  } catch {
    return undefined;
  }
}

/** Adapts a host Config to the masking pass (see the module comment). */
export function withToolOutputMasking(
  config: ToolOutputMaskingHostConfig,
  options: ToolOutputMaskingOptions = {},
): ToolOutputMaskingHost {
  const explicit = validateToolOutputMaskingSettings(
    options.settings,
    'the options passed to withToolOutputMasking / installToolOutputMasking',
  );
  const files =
    options.readSettingsFiles === false
      ? undefined
      : new ToolOutputMaskingSettingsFiles({
          userSettingsPath:
            options.userSettingsPath === undefined ? userSettingsPath : options.userSettingsPath,
          workspaceSettingsPath: workspacePathOf(config, options.workspaceSettingsPath),
          onSettingsError: options.onSettingsError ?? reportSettingsError,
          onSettingsWarning: options.onSettingsWarning ?? reportSettingsWarning,
          ...(options._internal?.settingsWaitMs !== undefined
            ? { waitMs: options._internal.settingsWaitMs }
            : {}),
        });
  const loadLayers = files ? () => files.load() : () => Promise.resolve([]);

  return {
    config,
    async getToolOutputMaskingConfig(): Promise<ToolOutputMaskingConfig> {
      const layers = await loadLayers();
      return resolveToolOutputMaskingConfigForModel(
        contextWindowOf(options.contextWindowTokens),
        ...layers.map((layer) => layer.settings),
        explicit,
      );
    },
    getSessionId: () => config.getSessionId(),
    storage: {
      getProjectTempDir: () => config.storage.getProjectTempDir(),
    },
  };
}
