/**
 * Where a person keeps toolmask's masking settings, and which file wins. Pure: the environment
 * and the home folder are passed in, nothing is read here.
 *
 * - **Beside each client's own config**, a `toolmask.json` holding the masking keys at its top
 *   level (the same keys and checks as gemini's block): Claude Code's `$CLAUDE_CONFIG_DIR`
 *   (`~/.claude`), Codex's `$CODEX_HOME` (`~/.codex`), OpenCode's `$OPENCODE_CONFIG_DIR`, else
 *   `$XDG_CONFIG_HOME/opencode` (`~/.config/opencode`). A file of that name is read at its top
 *   level wherever it is (`--masking-settings ~/.claude/toolmask.json` works); any other file is
 *   a gemini-cli `settings.json` and its `experimental.toolOutputMasking` block is read.
 * - **One precedence rule** (`MASKING_SETTINGS_PRECEDENCE`): the file named on the command line,
 *   else the client's own file when it holds masking settings, else gemini's user
 *   `settings.json`, else the defaults. A whole file wins: keys are not merged across files.
 */
import * as path from 'node:path';
import type { Environment } from './paths.js';
import { SETTINGS_PATH } from './toolOutputMaskingSettings.js';

/** The name of a client's own masking settings file. */
export const CLIENT_SETTINGS_FILE_NAME = 'toolmask.json';

/** The clients that keep a `toolmask.json` beside their own config. */
export type SettingsPlaceClient = 'claude' | 'codex' | 'opencode';

/** The precedence rule, as `toolmask status` and the docs say it. */
export const MASKING_SETTINGS_PRECEDENCE =
  "--masking-settings FILE (toolmask gateway: --settings FILE) > the client's own file (a toolmask.json beside its config; qwen: ~/.qwen/settings.json) > ~/.gemini/settings.json (its experimental.toolOutputMasking block) > the defaults";

/** A client's own `toolmask.json` (see the module comment). */
export function clientSettingsPath(
  client: SettingsPlaceClient,
  env: Environment,
  home: string,
): string {
  switch (client) {
    case 'claude':
      return path.join(
        env['CLAUDE_CONFIG_DIR'] || path.join(home, '.claude'),
        CLIENT_SETTINGS_FILE_NAME,
      );
    case 'codex':
      return path.join(env['CODEX_HOME'] || path.join(home, '.codex'), CLIENT_SETTINGS_FILE_NAME);
    case 'opencode': {
      const dir =
        env['OPENCODE_CONFIG_DIR'] ||
        path.join(env['XDG_CONFIG_HOME'] || path.join(home, '.config'), 'opencode');
      return path.join(dir, CLIENT_SETTINGS_FILE_NAME);
    }
  }
}

/**
 * Where a file keeps the masking keys: at the top level of a `toolmask.json`, under
 * `experimental.toolOutputMasking` of any other (a gemini-cli or qwen `settings.json`).
 */
export function maskingKeysAt(file: string): 'top level' | typeof SETTINGS_PATH {
  return path.basename(file) === CLIENT_SETTINGS_FILE_NAME ? 'top level' : SETTINGS_PATH;
}

/** A settings file that may apply, and whether it holds masking settings (the caller read it). */
export interface SettingsCandidate {
  file: string;
  /**
   * A `toolmask.json`: it exists. A `settings.json`: it has the masking block (or cannot be
   * read or parsed, so that its mistake is said rather than passed over).
   */
  present: boolean;
}

export interface SettingsCandidates {
  /** `--masking-settings FILE` / `--settings FILE`: wins whatever it holds. */
  given?: string | undefined;
  /** The client's own file, when it has one. */
  own?: SettingsCandidate | undefined;
  /** gemini's user `settings.json`. */
  gemini: SettingsCandidate;
}

/**
 * The file whose masking settings apply (see the module comment). When neither the client's
 * own file nor gemini's holds any, the client's own (or gemini's): the defaults apply, and that
 * is the file a person would create.
 */
export function winningSettingsFile(candidates: SettingsCandidates): string {
  const { given, own, gemini } = candidates;
  if (given !== undefined) return given;
  if (own && (own.present || !gemini.present)) return own.file;
  return gemini.file;
}
