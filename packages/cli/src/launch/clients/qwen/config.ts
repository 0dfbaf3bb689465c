/**
 * Where qwen-code 0.24.4 keeps its settings, and how toolmask reads them for `toolmask qwen`
 * (launch.ts) and `toolmask setup qwen` (setup.ts): its folder (`~/.qwen`, or `$QWEN_HOME`), its
 * settings layers in qwen's precedence (the system file over the workspace's over the user's; the
 * workspace file is skipped in the home folder, as qwen does), and the read-back tool's MCP server
 * as its settings name it.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { Environment } from '../../environment.js';
import { readSettingsObject, valueAt } from '../../files/jsonc-settings.js';
import { accessHeaders, type GatewayAccess } from '../../gateway-access.js';

export const DEFAULT_SYSTEM_SETTINGS = '/etc/qwen-code/settings.json';
export const DEFAULT_SYSTEM_DEFAULTS = '/etc/qwen-code/system-defaults.json';

export interface ProviderEntry {
  id?: string;
  baseUrl?: string;
  generationConfig?: Record<string, unknown>;
  [key: string]: unknown;
}

export type ModelProviders = Record<string, ProviderEntry[]>;

export interface QwenLayers {
  user: Record<string, unknown>;
  workspace: Record<string, unknown>;
  system: Record<string, unknown>;
  systemFile: string;
}

/** qwen's folder: `$QWEN_HOME`, else `~/.qwen`. */
export function qwenDir(env: Environment): string {
  return env['QWEN_HOME'] || path.join(env['HOME'] || os.homedir(), '.qwen');
}

/** qwen's user settings file: `$QWEN_HOME/settings.json`, else `~/.qwen/settings.json`. */
export function qwenUserSettingsPath(env: Environment): string {
  return path.join(qwenDir(env), 'settings.json');
}

/**
 * The read-back tool's MCP server as qwen's settings name it (`mcpServers.toolmask`): Streamable
 * HTTP at `<gateway>/mcp` with the secret in its headers, its tools loaded up front, trusted (it
 * only reads the gateway's own output files).
 */
export function qwenMcpServer(gateway: GatewayAccess): Record<string, unknown> {
  return {
    httpUrl: `${gateway.url}/mcp`,
    headers: accessHeaders(gateway),
    alwaysLoadTools: true,
    trust: true,
  };
}

/** qwen's settings layers as it would read them in `cwd`. */
export async function readLayers(env: Environment, cwd: string): Promise<QwenLayers> {
  const home = env['HOME'] || os.homedir();
  const userFile = qwenUserSettingsPath(env);
  const systemFile = env['QWEN_CODE_SYSTEM_SETTINGS_PATH'] || DEFAULT_SYSTEM_SETTINGS;
  // qwen skips the workspace file when the working folder is the home folder.
  const workspaceFile =
    path.resolve(cwd) === path.resolve(home) ? undefined : path.join(cwd, '.qwen', 'settings.json');
  return {
    user: await readSettingsObject(userFile),
    workspace: workspaceFile ? await readSettingsObject(workspaceFile) : {},
    system: await readSettingsObject(systemFile),
    systemFile,
  };
}

/** The effective value of a key: system over workspace over user (qwen's precedence). */
export function effective(layers: QwenLayers, jsonPath: string[]): unknown {
  for (const layer of [layers.system, layers.workspace, layers.user]) {
    const value = valueAt(layer, jsonPath);
    if (value !== undefined) return value;
  }
  return undefined;
}
