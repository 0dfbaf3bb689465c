/**
 * The masking settings the gateway's pass reads, by core's one precedence rule
 * (config/settingsPlace.ts): the file given with `--settings` (or a launcher's choice) for every
 * request; else, for a request whose client is known (its user agent) and has a file of its own
 * (`clientSettingsFiles`: `~/.claude/toolmask.json`, ...), that file when it holds masking
 * settings; else `experimental.toolOutputMasking` of the person's gemini-cli user `settings.json`
 * (the same block the in-process installation reads). Read again when a file changes; a broken
 * file or value, or an unknown key, is reported once per change (the defaults apply to what is
 * broken), so the gateway keeps serving. Reads are shared and bounded in time by core's reader.
 *
 * Per request, each file is only looked at (core's reader reads it again only when it changed),
 * both files at once; the configuration is resolved once per file change (a file read again gives
 * new settings, hence a new configuration) and handed out frozen, the same object to every
 * request until then.
 */
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import {
  ToolOutputMaskingSettingsFiles,
  resolveToolOutputMaskingConfigForModel,
  userSettingsPath,
  winningSettingsFile,
  type SettingsFileError,
  type SettingsFileWarning,
  type SettingsLayer,
} from '@toolmask/core/settings';
import type { ClientKind } from '../usage/usage-record.js';

export interface MaskingSettingsSource {
  /**
   * The resolved configuration for a request of this client (unknown: gemini's file) and a model
   * with this context window (unknown: the default).
   */
  config(contextWindowTokens?: number, client?: ClientKind): Promise<ToolOutputMaskingConfig>;
  /** The file read for every request (`--settings`), else for a client without a file of its own. */
  readonly file: string;
  /** The file whose settings apply to this client's requests now, for the dashboard. */
  fileFor(client: ClientKind): Promise<string>;
}

export interface MaskingSettingsFiles {
  /** Read for every request; default: gemini's user file, after each client's own. */
  settingsFile?: string | undefined;
  /** Each client's own file (ignored when `settingsFile` is given). */
  clientSettingsFiles?: Partial<Record<ClientKind, string>> | undefined;
}

export function createMaskingSettingsSource(
  files: MaskingSettingsFiles,
  onError: (error: SettingsFileError) => void,
  onWarning: (warning: SettingsFileWarning) => void,
): MaskingSettingsSource {
  const reader = (file: string) =>
    new ToolOutputMaskingSettingsFiles({
      userSettingsPath: file,
      workspaceSettingsPath: null,
      onSettingsError: onError,
      onSettingsWarning: onWarning,
    });
  const file = files.settingsFile ?? userSettingsPath();
  const main = reader(file);
  const own = new Map(
    files.settingsFile === undefined
      ? Object.entries(files.clientSettingsFiles ?? {}).map(([client, ownFile]) => [
          client,
          reader(ownFile),
        ])
      : [],
  );
  /** The layer that applies to this client's requests (none: the defaults). */
  async function layerFor(client: ClientKind | undefined): Promise<SettingsLayer | undefined> {
    const ownReader = client === undefined ? undefined : own.get(client);
    if (!ownReader) return (await main.load())[0];
    const [[mainLayer], [ownLayer]] = await Promise.all([main.load(), ownReader.load()]);
    if (!ownLayer || !mainLayer) return ownLayer ?? mainLayer;
    const winner = winningSettingsFile({ own: ownLayer, gemini: mainLayer });
    return winner === ownLayer.file ? ownLayer : mainLayer;
  }
  // The configuration without a model's window (what requests ask for), by the settings it was
  // resolved from: core's reader hands out the same settings object while its file is unchanged.
  const resolved = new WeakMap<object, ToolOutputMaskingConfig>();
  const defaults = {};
  return {
    file,
    async config(contextWindowTokens, client) {
      const layer = await layerFor(client);
      const resolve = () =>
        frozen(
          resolveToolOutputMaskingConfigForModel(
            contextWindowTokens,
            ...(layer ? [layer.settings] : []),
          ),
        );
      if (contextWindowTokens !== undefined) return resolve();
      const key = layer?.settings ?? defaults;
      const config = resolved.get(key) ?? resolve();
      resolved.set(key, config);
      return config;
    },
    async fileFor(client) {
      return (await layerFor(client))?.file ?? file;
    },
  };
}

/** `config` and its lists frozen: one object is handed to every request. */
function frozen(config: ToolOutputMaskingConfig): ToolOutputMaskingConfig {
  for (const value of Object.values(config)) if (Array.isArray(value)) Object.freeze(value);
  return Object.freeze(config);
}
