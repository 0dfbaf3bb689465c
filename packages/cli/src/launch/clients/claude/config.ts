/**
 * Where Claude Code 2.1.328 keeps its settings, and what `toolmask claude` (launch.ts) and
 * `toolmask setup claude` (setup.ts) read there the same way: its folder (`~/.claude`, or
 * `$CLAUDE_CONFIG_DIR`) and its global state file (`.claude.json`), where managed policy lives,
 * which variables choose a provider other than the Anthropic API, a layer's `env` block and a
 * boolean variable's value, whether the person trusted a folder, and a variable as claude sees it
 * through its settings layers.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { Environment } from '../../environment.js';
import { parseSettings } from '../../files/jsonc-settings.js';
import { readSetupFile } from '../../setup/setup-files.js';

/**
 * The bound of reads of claude's `.claude.json` (setup's and the launcher's trust check; 1 MB for every other settings file): claude keeps
 * each project's history in it, so a heavy user's passes 1 MB and keeps growing. It is parsed
 * whole (jsonc-parser; held as a string about twice its size), so it keeps a bound: 64 MB leaves
 * room for years of history and still stops a runaway or planted file from filling memory.
 */
export const CLAUDE_STATE_MAX_BYTES = 64 * 1024 * 1024;

/** Claude Code's managed policy file unless `CLAUDE_CODE_MANAGED_SETTINGS_PATH` names another. */
export const DEFAULT_MANAGED_SETTINGS = '/etc/claude-code/managed-settings.json';

/** Variables that switch claude to a provider the gateway's Anthropic front does not serve. */
export const OTHER_PROVIDERS: readonly string[] = [
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
];

/** A settings layer's `env` block; `{}` when it has none or it is not an object. */
export function envOf(layer: Record<string, unknown>): Record<string, unknown> {
  const value = layer['env'];
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** Claude Code's reading of a boolean variable (a settings `env` value may be any JSON). */
export function isOn(value: unknown): boolean {
  return /^(1|true|yes|on)$/i.test(String(value ?? '').trim());
}

type Settings = Record<string, unknown>;

/** Claude Code's settings layers that can hold `env`, highest precedence first. */
export interface ClaudeLayers {
  managed: Settings;
  /** The person's own `--settings` (a file or JSON text), when given. */
  flag: Settings;
  local: Settings;
  project: Settings;
  user: Settings;
}

/** Claude Code's folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeFolder(env: Environment): string {
  return env['CLAUDE_CONFIG_DIR'] || path.join(env['HOME'] || os.homedir(), '.claude');
}

/**
 * Where Claude Code keeps each project's transcripts and the Bash outputs too large to send
 * (`<project>/<session>/tool-results/<id>.txt`, named by its `<persisted-output>` preview).
 */
export function claudeProjectsFolder(env: Environment): string {
  return path.join(claudeFolder(env), 'projects');
}

/**
 * Where claude keeps its global state (`.claude.json`): in `$CLAUDE_CONFIG_DIR`, else the home
 * folder.
 */
export function globalStateFile(env: Environment): string {
  return env['CLAUDE_CONFIG_DIR']
    ? path.join(env['CLAUDE_CONFIG_DIR'], '.claude.json')
    : path.join(env['HOME'] || os.homedir(), '.claude.json');
}

/** Whether the person trusted `cwd` (or a folder above it) in claude's trust dialog. */
export async function trustedFolder(env: Environment, cwd: string): Promise<boolean> {
  let state: Settings;
  try {
    // Read with the bound of `.claude.json` (a heavy user's passes 1 MB): refused, it would leave
    // the person's project settings out without a word.
    const file = globalStateFile(env);
    const read = await readSetupFile(file, CLAUDE_STATE_MAX_BYTES);
    state = read ? parseSettings(read.bytes.toString('utf8'), file) : {};
  } catch {
    return false;
  }
  const projects = (state['projects'] ?? {}) as Record<
    string,
    { hasTrustDialogAccepted?: unknown }
  >;
  for (let folder = path.resolve(cwd); ; folder = path.dirname(folder)) {
    if (projects[folder]?.hasTrustDialogAccepted === true) return true;
    if (path.dirname(folder) === folder) return false;
  }
}

/** A variable as claude sees it: the highest settings layer's `env`, else the environment. */
export function effectiveVariable(
  layers: ClaudeLayers,
  env: Environment,
  name: string,
): string | undefined {
  for (const layer of [layers.managed, layers.flag, layers.local, layers.project, layers.user]) {
    const value = envOf(layer)[name];
    if (value !== undefined && value !== null) return String(value);
  }
  return env[name];
}
