/**
 * Codex's configuration as codex 0.169.0 layers it, read (never written) for the launcher to find
 * the model provider the person uses and where it sends requests. Lowest precedence first:
 * `/etc/codex/config.toml`, `$CODEX_HOME/config.toml` (`~/.codex`; skipped with
 * `--ignore-user-config`), `$CODEX_HOME/<name>.config.toml` of `--profile NAME`, the
 * `.codex/config.toml` of the project's folders (from the git root down to the working folder)
 * when the project is trusted (`[projects."<path>"] trust_level = "trusted"` in the user file),
 * then the `-c` overrides of the command line. `/etc/codex/managed_config.toml` comes above all of
 * them: what it sets, nothing overrides.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_SETTINGS_BYTES } from '@toolmask/core/settings';
import type { Environment } from '../../environment.js';
import {
  mergeTables,
  parseToml,
  setAtPath,
  tableAt,
  TomlError,
  type TomlTable,
} from '../../files/toml-values.js';
import { LaunchError } from '../../launch-error.js';
import type { CodexArgs } from './args.js';

export class CodexLaunchError extends LaunchError {}

const SYSTEM_CONFIG = '/etc/codex/config.toml';
const MANAGED_CONFIG = '/etc/codex/managed_config.toml';

/** Codex's folder: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: Environment): string {
  return env['CODEX_HOME'] || path.join(env['HOME'] || os.homedir(), '.codex');
}

/** A config file as data; `{}` when it does not exist. A file codex would refuse: a LaunchError. */
export async function readTomlFile(file: string): Promise<TomlTable> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CodexLaunchError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return parseToml(text);
  } catch (error) {
    if (error instanceof TomlError) {
      throw new CodexLaunchError(
        `${file} is not valid TOML (${error.message}); codex would refuse it too`,
      );
    }
    throw error;
  }
}

/** The folders from the git root (or the file system's root) down to `directory`. */
function projectFolders(directory: string): string[] {
  const folders: string[] = [];
  for (let folder = path.resolve(directory); ; folder = path.dirname(folder)) {
    folders.unshift(folder);
    if (existsSync(path.join(folder, '.git')) || path.dirname(folder) === folder) return folders;
  }
}

function trusted(user: TomlTable, folders: readonly string[]): boolean {
  const projects = tableAt(user, ['projects']) ?? {};
  return folders.some((folder) => tableAt(projects, [folder])?.['trust_level'] === 'trusted');
}

export interface CodexConfig {
  /** Everything below the managed file, the command line's overrides included. */
  merged: TomlTable;
  managed: TomlTable;
}

export async function readCodexConfig(
  env: Environment,
  cwd: string,
  args: CodexArgs,
): Promise<CodexConfig> {
  const home = codexHome(env);
  const user = await readTomlFile(path.join(home, 'config.toml'));
  let merged = await readTomlFile(SYSTEM_CONFIG);
  if (!args.ignoreUserConfig) merged = mergeTables(merged, user);
  if (args.profile) {
    merged = mergeTables(
      merged,
      await readTomlFile(path.join(home, `${args.profile}.config.toml`)),
    );
  }
  const folders = projectFolders(path.resolve(cwd, args.cd ?? '.'));
  if (trusted(user, folders)) {
    for (const folder of folders) {
      const file = path.join(folder, '.codex', 'config.toml');
      // The user file, when the project is the home folder: read once, above.
      if (file !== path.join(home, 'config.toml'))
        merged = mergeTables(merged, await readTomlFile(file));
    }
  }
  for (const override of args.overrides) merged = setAtPath(merged, override.keys, override.value);
  return { merged, managed: await readTomlFile(MANAGED_CONFIG) };
}

/** How the person's codex signs in to OpenAI (its built-in provider), as far as can be read. */
export type OpenaiAuth = 'api-key' | 'chatgpt' | 'unknown';

/**
 * The environment's `CODEX_API_KEY` (which codex takes first), else `$CODEX_HOME/auth.json`
 * (0.169.0: `OPENAI_API_KEY` for a key, `tokens` for a ChatGPT login). A login kept in the OS
 * keyring cannot be read: unknown.
 */
export async function openaiAuth(env: Environment): Promise<OpenaiAuth> {
  if (env['CODEX_API_KEY']?.trim()) return 'api-key';
  let auth: { auth_mode?: unknown; OPENAI_API_KEY?: unknown; tokens?: unknown };
  try {
    auth = JSON.parse(
      await fs.readFile(path.join(codexHome(env), 'auth.json'), 'utf8'),
    ) as typeof auth;
  } catch {
    return 'unknown';
  }
  const mode = typeof auth.auth_mode === 'string' ? auth.auth_mode.toLowerCase() : undefined;
  if (mode === 'apikey' || mode === 'api_key') return 'api-key';
  if (mode?.startsWith('chatgpt')) return 'chatgpt';
  if (auth.tokens && typeof auth.tokens === 'object') return 'chatgpt';
  if (typeof auth.OPENAI_API_KEY === 'string' && auth.OPENAI_API_KEY) return 'api-key';
  return 'unknown';
}

/** What a profile file may set that takes `codex --profile` around the gateway. */
const PROFILE_ROUTING_KEYS = ['model_provider', 'model_providers', 'openai_base_url'];

/**
 * A warning for each profile file (`<home>/<name>.config.toml`) that sets one of
 * `PROFILE_ROUTING_KEYS`, or that cannot be read to tell. Only regular files of at most 1 MB are
 * read (a FIFO there never blocks setup); config.ts reads them as the launcher does.
 */
export async function profileWarnings(home: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await fs.readdir(home)).filter((name) => name.endsWith('.config.toml')).sort();
  } catch {
    return [];
  }
  const warnings: string[] = [];
  for (const name of names) {
    const file = path.join(home, name);
    const profile = name.slice(0, -'.config.toml'.length);
    const stats = await fs.stat(file).catch(() => undefined);
    if (!stats?.isFile() || stats.size > MAX_SETTINGS_BYTES) continue;
    try {
      const table = await readTomlFile(file);
      const set = PROFILE_ROUTING_KEYS.filter((key) => table[key] !== undefined);
      if (set.length > 0) {
        warnings.push(
          `Warning: ${file} sets ${set.join(' and ')}: \`codex --profile ${profile}\` may not go through the gateway (that file is read over config.toml). Point it at the gateway yourself (docs/gateway.md), or keep that profile for runs you want unmasked.`,
        );
      }
    } catch (error) {
      if (!(error instanceof LaunchError)) throw error;
      warnings.push(
        `Warning: ${error.message}; setup could not tell whether \`codex --profile ${profile}\` goes through the gateway.`,
      );
    }
  }
  return warnings;
}

/**
 * A warning for each trusted project's `.codex/config.toml` on the way from the git root to
 * `directory` (the folder setup runs in) that sets one of `PROFILE_ROUTING_KEYS`: codex reads it
 * over config.toml there (readCodexConfig), so codex in that project may go around the gateway.
 */
export async function projectWarnings(home: string, directory: string): Promise<string[]> {
  const folders = projectFolders(directory);
  if (!trusted(await readTomlFile(path.join(home, 'config.toml')), folders)) return [];
  const warnings: string[] = [];
  for (const folder of folders) {
    const file = path.join(folder, '.codex', 'config.toml');
    if (file === path.join(home, 'config.toml')) continue;
    // Only a regular file of at most 1 MB is read (a FIFO there never blocks setup).
    const stats = await fs.stat(file).catch(() => undefined);
    if (!stats?.isFile() || stats.size > MAX_SETTINGS_BYTES) continue;
    // One that cannot be read or parsed: codex refuses it there itself.
    const table = await readTomlFile(file).catch((error: unknown): TomlTable => {
      if (error instanceof LaunchError) return {};
      throw error;
    });
    const set = PROFILE_ROUTING_KEYS.filter((key) => table[key] !== undefined);
    if (set.length > 0) {
      warnings.push(
        `Warning: ${file} sets ${set.join(' and ')}: codex in ${folder} may not go through the gateway (a trusted project's config is read over config.toml). Point it at the gateway yourself (docs/gateway.md), or keep that project for runs you want unmasked.`,
      );
    }
  }
  return warnings;
}
