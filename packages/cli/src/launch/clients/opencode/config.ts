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
  /** Leave the global config out: what the rest sets over it (setup's check). @default true */
  withGlobal = true,
): Promise<{ merged: OpencodeConfig; managed: OpencodeConfig }> {
  const home = env['HOME'] || os.homedir();
  const global = path.join(env['XDG_CONFIG_HOME'] || path.join(home, '.config'), 'opencode');
  const files = withGlobal
    ? ['config.json', 'opencode.json', 'opencode.jsonc'].map((name) => path.join(global, name))
    : [];
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

/**
 * OpenCode's own providers and the gateway front each speaks (opencode 1.18.33, read from its
 * shipped code and measured against loopback fakes). opencode gives a provider's
 * `options.baseURL` precedence over the models' own URL, so one config layer moves each of them:
 *
 * - `anthropic` (`@ai-sdk/anthropic`): `POST {baseURL}/messages`, base URL
 *   `https://api.anthropic.com/v1` unless `options.baseURL` or `ANTHROPIC_BASE_URL`: the Anthropic
 *   Messages front, `<gateway>/anthropic/v1`, the upstream that base URL without its `/v1`.
 * - `openai` (`@ai-sdk/openai`, the Responses API): `POST {baseURL}/responses`, base URL
 *   `https://api.openai.com/v1` unless `options.baseURL` or `OPENAI_BASE_URL`: a named route of the
 *   OpenAI front. A ChatGPT sign-in (`opencode auth login`, kept in `auth.json` as `oauth`) sends
 *   paths holding `/v1/responses` to `https://chatgpt.com/backend-api/codex/responses` itself;
 *   the gateway's route path holds no `/v1`, so the request reaches the gateway, whose upstream is
 *   then that ChatGPT endpoint.
 * - `google` (`@ai-sdk/google`): `POST {baseURL}/models/<model>:streamGenerateContent`, base URL
 *   `https://generativelanguage.googleapis.com/v1beta`: the Gemini API front.
 * - `github-copilot` (opencode's own Copilot SDK): chat completions, and the Responses API for
 *   the models that need it, at `https://api.githubcopilot.com` (an enterprise sign-in:
 *   `https://copilot-api.<its domain>`): both are OpenAI front protocols, a named route.
 *
 * A built-in provider is routed when the run can use it: the chosen model's, one the person's
 * config names, or one with a key in the environment or a sign-in in opencode's `auth.json`.
 * Routing every one would make opencode list providers the person cannot use.
 */
/** Which gateway front a route goes to, and the path under the gateway opencode's base URL gets. */
export interface OpencodeRoute {
  front: 'openai' | 'anthropic' | 'gemini';
  /** The upstream: where the provider would have sent its requests. */
  url: string;
  /** The base URL's path on the gateway (`/openai/~o0`, `/anthropic/v1`, `/gemini/v1beta`). */
  gatewayPath: string;
}

interface Builtin {
  front: OpencodeRoute['front'];
  defaultUrl: string;
  baseEnv?: string;
  keyEnv: readonly string[];
}

const CHATGPT_API = 'https://chatgpt.com/backend-api/codex';

export const BUILTIN_PROVIDERS: Readonly<Record<string, Builtin>> = {
  anthropic: {
    front: 'anthropic',
    defaultUrl: 'https://api.anthropic.com/v1',
    baseEnv: 'ANTHROPIC_BASE_URL',
    keyEnv: ['ANTHROPIC_API_KEY'],
  },
  openai: {
    front: 'openai',
    defaultUrl: 'https://api.openai.com/v1',
    baseEnv: 'OPENAI_BASE_URL',
    keyEnv: ['OPENAI_API_KEY'],
  },
  google: {
    front: 'gemini',
    defaultUrl: 'https://generativelanguage.googleapis.com/v1beta',
    keyEnv: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
  },
  'github-copilot': {
    front: 'openai',
    defaultUrl: 'https://api.githubcopilot.com',
    keyEnv: ['GITHUB_TOKEN'],
  },
};

/** opencode's sign-ins: `$XDG_DATA_HOME/opencode/auth.json` (`~/.local/share/opencode`). */
export async function readOpencodeAuth(env: Environment): Promise<OpencodeConfig> {
  const home = env['HOME'] || os.homedir();
  const data = env['XDG_DATA_HOME'] || path.join(home, '.local', 'share');
  try {
    return await readSettingsObject(path.join(data, 'opencode', 'auth.json'));
  } catch {
    // An unreadable sign-in file: opencode has no sign-in from it either.
    return {};
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The gateway route of one built-in provider at `base`, or why it has none. */
function routeAt(front: OpencodeRoute['front'], base: string): OpencodeRoute | string {
  const url = trimSlash(base);
  if (front === 'anthropic') {
    if (!url.endsWith('/v1')) {
      return `its base URL ${url} does not end in /v1 (the gateway's Anthropic front serves /v1/messages)`;
    }
    return { front, url: url.slice(0, -3), gatewayPath: '/anthropic/v1' };
  }
  if (front === 'gemini') {
    const version = /\/(v1[a-z0-9]*)$/.exec(url);
    if (!version) {
      return `its base URL ${url} does not end in an API version (/v1beta)`;
    }
    return {
      front,
      url: url.slice(0, -version[0].length),
      gatewayPath: `/gemini/${version[1]}`,
    };
  }
  return { front, url, gatewayPath: '' };
}

/** Whether the person can use a built-in provider in this run (see the module comment). */
function inUse(
  id: string,
  builtin: Builtin,
  env: Environment,
  config: OpencodeConfig,
  auth: OpencodeConfig,
  chosen?: string,
): boolean {
  return (
    id === chosen ||
    config[id] !== undefined ||
    auth[id] !== undefined ||
    builtin.keyEnv.some((name) => Boolean(env[name]))
  );
}

/**
 * The routes of the built-in providers the run can use, by provider id, and why a provider that
 * is in use cannot be routed. `providers` is the merged config's `provider` object.
 */
export function builtinRoutes(
  env: Environment,
  providers: OpencodeConfig,
  auth: OpencodeConfig,
  chosen: string | undefined,
): { routes: Map<string, OpencodeRoute>; unroutable: Map<string, string> } {
  const routes = new Map<string, OpencodeRoute>();
  const unroutable = new Map<string, string>();
  for (const [id, builtin] of Object.entries(BUILTIN_PROVIDERS)) {
    if (!inUse(id, builtin, env, providers, auth, chosen)) continue;
    const entry = providers[id];
    // A provider the config re-declares with another SDK is not the built-in one.
    if (isPlainObject(entry) && typeof entry['npm'] === 'string') continue;
    const options = isPlainObject(entry) ? entry['options'] : undefined;
    const own = isPlainObject(options) ? options['baseURL'] : undefined;
    const signIn = auth[id];
    const base =
      (typeof own === 'string' ? substituteEnv(own, env).trim() : '') ||
      (builtin.baseEnv ? env[builtin.baseEnv]?.trim() : '') ||
      defaultBase(id, builtin, signIn);
    const route = routeAt(builtin.front, base);
    if (typeof route === 'string') unroutable.set(id, route);
    else routes.set(id, route);
  }
  return { routes, unroutable };
}

/** A provider's base URL when nothing sets one: a sign-in may choose it. */
function defaultBase(id: string, builtin: Builtin, signIn: unknown): string {
  if (!isPlainObject(signIn) || signIn['type'] !== 'oauth') return builtin.defaultUrl;
  if (id === 'openai') return CHATGPT_API;
  const enterprise = signIn['enterpriseUrl'];
  if (id === 'github-copilot' && typeof enterprise === 'string' && enterprise) {
    return `https://copilot-api.${enterprise.replace(/^https?:\/\//, '').replace(/\/$/, '')}`;
  }
  return builtin.defaultUrl;
}
