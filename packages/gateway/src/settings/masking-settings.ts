/**
 * The masking settings the gateway's pass reads: `experimental.toolOutputMasking` of the person's
 * gemini-cli user `settings.json` (the same block the in-process installation reads), or of the
 * file given with `--settings`. Read again when the file changes; a broken file or value is
 * reported once per change and the defaults apply, so the gateway keeps serving.
 */
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import {
  ToolOutputMaskingSettingsFiles,
  resolveToolOutputMaskingConfigForModel,
  userSettingsPath,
  type SettingsFileError,
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
): MaskingSettingsSource {
  const file = settingsFile ?? userSettingsPath();
  const files = new ToolOutputMaskingSettingsFiles({
    userSettingsPath: file,
    workspaceSettingsPath: null,
    onSettingsError: onError,
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
