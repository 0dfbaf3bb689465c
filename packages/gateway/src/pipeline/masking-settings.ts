/**
 * The masking settings the gateway's pass reads: `experimental.toolOutputMasking` of the person's
 * gemini-cli user `settings.json` (the same block the in-process installation reads), or of the
 * file given with `--settings`. Read again when the file changes; a broken file or value, or an
 * unknown key, is reported once per change (the defaults apply to what is broken), so the gateway
 * keeps serving. Reads are shared and bounded in time by core's reader.
 */
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import {
  ToolOutputMaskingSettingsFiles,
  resolveToolOutputMaskingConfigForModel,
  userSettingsPath,
  type SettingsFileError,
  type SettingsFileWarning,
} from '@toolmask/core/settings';

export interface MaskingSettingsSource {
  /** The resolved configuration for a model with this context window (unknown: the default). */
  config(contextWindowTokens?: number): Promise<ToolOutputMaskingConfig>;
  /** The file read, for /api and the dashboard. */
  readonly file: string;
}

export function createMaskingSettingsSource(
  settingsFile: string | undefined,
  onError: (error: SettingsFileError) => void,
  onWarning: (warning: SettingsFileWarning) => void,
): MaskingSettingsSource {
  const file = settingsFile ?? userSettingsPath();
  const files = new ToolOutputMaskingSettingsFiles({
    userSettingsPath: file,
    workspaceSettingsPath: null,
    onSettingsError: onError,
    onSettingsWarning: onWarning,
  });
  return {
    file,
    async config(contextWindowTokens) {
      const layers = await files.load();
      return resolveToolOutputMaskingConfigForModel(
        contextWindowTokens,
        ...layers.map((layer) => layer.settings),
      );
    },
  };
}
