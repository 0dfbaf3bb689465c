/**
 * OpenCode's configuration as opencode 1.18.33 merges it (read from its shipped code), for the
 * launcher to find the providers it routes. The files, lowest precedence first, deep-merged:
 * the global folder (`$XDG_CONFIG_HOME/opencode` or `~/.config/opencode`: `config.json`,
 * `opencode.json`, `opencode.jsonc`), `$OPENCODE_CONFIG`, the project's `opencode.json(c)` from the
 * git root down to the working folder (unless `OPENCODE_DISABLE_PROJECT_CONFIG`), the
 * `.opencode/opencode.json(c)` of those folders and `$OPENCODE_CONFIG_DIR`, then
 * `$OPENCODE_CONFIG_CONTENT`. The managed folder (`/etc/opencode`) comes after all of them: what
 * it sets, nothing overrides. Remote (organisation) configs are not read.
 */
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isPlainObject } from '@toolmask/core/utils';
import type { Environment } from '../../environment.js';
import { parseSettings, readSettingsObject } from '../../files/jsonc-settings.js';

export type OpencodeConfig = Record<string, unknown>;

const MANAGED_FOLDER = '/etc/opencode';

/** `over` merged into `base` as OpenCode merges configs: objects key by key, anything else replaced. */
export function mergeConfig(base: OpencodeConfig, over: OpencodeConfig): OpencodeConfig {
  const result: OpencodeConfig = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const existing = result[key];
    result[key] =
      isPlainObject(existing) && isPlainObject(value) ? mergeConfig(existing, value) : value;
  }
  return result;
}

/** The folders from the git root (or the file system's root) down to `directory`. */
function projectFolders(directory: string): string[] {
  const folders: string[] = [];
  for (let folder = path.resolve(directory); ; folder = path.dirname(folder)) {
    folders.unshift(folder);
    if (existsSync(path.join(folder, '.git')) || path.dirname(folder) === folder) return folders;
  }
}

async function readAll(files: string[]): Promise<OpencodeConfig> {
  let merged: OpencodeConfig = {};
  for (const file of files) merged = mergeConfig(merged, await readSettingsObject(file));
  return merged;
}

/** OpenCode's working folder: it takes `PWD` over the process's own (measured). */
export function opencodeDirectory(env: Environment, cwd: string): string {
  return env['PWD'] && path.isAbsolute(env['PWD']) ? env['PWD'] : cwd;
}

/** The merged configuration below the managed folder, and the managed folder's own. */
export async function readOpencodeConfig(
  env: Environment,
  directory: string,
): Promise<{ merged: OpencodeConfig; managed: OpencodeConfig }> {
  const home = env['HOME'] || os.homedir();
  const global = path.join(env['XDG_CONFIG_HOME'] || path.join(home, '.config'), 'opencode');
  const files = ['config.json', 'opencode.json', 'opencode.jsonc'].map((name) =>
    path.join(global, name),
  );
  if (env['OPENCODE_CONFIG']) files.push(path.resolve(directory, env['OPENCODE_CONFIG']));
  const folders = env['OPENCODE_DISABLE_PROJECT_CONFIG'] ? [] : projectFolders(directory);
  for (const folder of folders) {
    files.push(path.join(folder, 'opencode.json'), path.join(folder, 'opencode.jsonc'));
  }
  for (const folder of folders) {
    const dot = path.join(folder, '.opencode');
    files.push(path.join(dot, 'opencode.json'), path.join(dot, 'opencode.jsonc'));
  }
  if (env['OPENCODE_CONFIG_DIR']) {
    const dir = env['OPENCODE_CONFIG_DIR'];
    files.push(path.join(dir, 'opencode.json'), path.join(dir, 'opencode.jsonc'));
  }
  let merged = await readAll(files);
  if (env['OPENCODE_CONFIG_CONTENT']) {
    merged = mergeConfig(
      merged,
      parseSettings(env['OPENCODE_CONFIG_CONTENT'], 'OPENCODE_CONFIG_CONTENT'),
    );
  }
  const managed = await readAll(
    ['opencode.json', 'opencode.jsonc'].map((name) => path.join(MANAGED_FOLDER, name)),
  );
  return { merged, managed };
}

/** `{env:NAME}` in a config value, as OpenCode substitutes it (an unset variable: empty). */
export function substituteEnv(value: string, env: Environment): string {
  return value.replace(/\{env:([^}]+)\}/g, (_, name: string) => env[name] ?? '');
}
