/**
 * What `toolmask claude` (claude-launch.ts) and `toolmask setup claude` (setup-claude.ts) read
 * the same way in Claude Code's settings: where managed policy lives, which variables choose a
 * provider other than the Anthropic API, a layer's `env` block and a boolean variable's value.
 */

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
