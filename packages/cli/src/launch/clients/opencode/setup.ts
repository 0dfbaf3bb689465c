/**
 * `toolmask setup opencode`: opencode 1.18.33 merges its global config from
 * `$XDG_CONFIG_HOME/opencode` (default `~/.config/opencode`): `config.json`, `opencode.json`,
 * `opencode.jsonc`, the later winning (config.ts; verified with the binary,
 * `setup.e2e.test.ts`). Setup edits the last of them that exists (`opencode.json` when
 * none does), so that its values win, as minimal text edits:
 *
 * - **Routing.** `provider.<id>.options.baseURL` = the gateway's OpenAI route, for each
 *   OpenAI-compatible provider of the global config (`"npm": "@ai-sdk/openai-compatible"` with an
 *   `options.baseURL`) whose base URL is the gateway's `--openai-upstream` (a standalone gateway
 *   has one OpenAI upstream). Other providers are left as they are.
 * - **Read-back.** `mcp.toolmask` = `{type: "remote", url: "<gateway>/mcp", headers, enabled}`;
 *   its headers hold the access secret, so the file is left 0600.
 *
 * Refused: a global config with no such provider, the person's `model` on a provider setup does
 * not route, and providers with different base URLs when the gateway's upstream is not known
 * (`toolmask opencode`, which gives each provider a route of its own, serves those). opencode
 * adds a `$schema` line to a config file that has none when it starts: after that, `--undo` puts
 * back setup's values rather than the file's old bytes.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { isPlainObject } from '@toolmask/core/utils';
import type { Environment } from '../../environment.js';
import { parseSettings } from '../../files/jsonc-settings.js';
import { accessHeaders, shownUrl } from '../../gateway-access.js';
import { jsonSet } from '../../setup/json-changes.js';
import { checkOpenaiUpstream, openaiRoute, type SetupContext } from '../../setup/setup-context.js';
import { readSetupFile, SetupError, type SetupFile } from '../../setup/setup-files.js';
import type { ClientPlan } from '../../setup/setup-plan.js';
import {
  mergeConfig,
  opencodeDirectory,
  readOpencodeConfig,
  substituteEnv,
  type OpencodeConfig,
} from './config.js';

const OPENAI_COMPATIBLE = '@ai-sdk/openai-compatible';
const CONFIG_NAMES = ['config.json', 'opencode.json', 'opencode.jsonc'];

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The global config files there are, merged, and the one setup edits (the last there is). */
async function readGlobalConfig(folder: string) {
  const found: Array<{ file: string; original: SetupFile; config: OpencodeConfig }> = [];
  for (const name of CONFIG_NAMES) {
    const file = path.join(folder, name);
    const original = await readSetupFile(file);
    if (original) {
      found.push({ file, original, config: parseSettings(original.bytes.toString('utf8'), file) });
    }
  }
  const merged = found.reduce<OpencodeConfig>((all, { config }) => mergeConfig(all, config), {});
  const target = found.at(-1);
  return {
    merged,
    file: target?.file ?? path.join(folder, 'opencode.json'),
    original: target?.original,
    config: target?.config ?? {},
  };
}

/** Provider id → base URL, of the OpenAI-compatible providers of `merged`. */
function compatibleProviders(merged: OpencodeConfig, env: Readonly<Environment>) {
  const providers = isPlainObject(merged['provider']) ? merged['provider'] : {};
  const compatible = new Map<string, string>();
  for (const [id, entry] of Object.entries(providers)) {
    if (!isPlainObject(entry) || entry['npm'] !== OPENAI_COMPATIBLE) continue;
    const options = entry['options'];
    const url = isPlainObject(options) ? options['baseURL'] : undefined;
    const value = typeof url === 'string' ? substituteEnv(url, env).trim() : '';
    if (value) compatible.set(id, trimSlash(value));
  }
  return compatible;
}

/**
 * The gateway's OpenAI upstream (the running gateway's, else the model's provider's, else the one
 * base URL of them all), and the providers whose base URL it is: refused when none can be routed.
 */
function routedProviders(
  context: SetupContext,
  compatible: Map<string, string>,
  model: string | undefined,
  file: string,
): { upstream: string; routed: string[] } {
  const modelProvider = model?.split('/', 1)[0];
  const known = context.gatewayUpstreams?.openai;
  const distinct = [...new Set(compatible.values())];
  const upstream = known
    ? trimSlash(known)
    : modelProvider && compatible.has(modelProvider)
      ? compatible.get(modelProvider)!
      : distinct.length === 1
        ? distinct[0]!
        : undefined;
  if (upstream === undefined) {
    throw new SetupError(
      `opencode's providers have different base URLs (${distinct.map((url) => shownUrl(url)).join(', ')}), and a gateway has one OpenAI upstream; choose one with "model": "<provider>/<model>" in ${file}, or use \`toolmask opencode\`, which routes each provider for a run`,
    );
  }
  const routed = [...compatible].filter(([, url]) => url === upstream).map(([id]) => id);
  if (modelProvider !== undefined && !routed.includes(modelProvider)) {
    const first = [...compatible.entries()][0]!;
    const why = compatible.has(modelProvider)
      ? checkOpenaiUpstream(
          context,
          'opencode',
          shownUrl(compatible.get(modelProvider)!),
          `provider "${modelProvider}"`,
        ).refusal
      : undefined;
    throw new SetupError(
      why ??
        `opencode's model ${model} comes from the provider "${modelProvider}", which setup cannot point at the gateway: it routes OpenAI-compatible providers ("npm": "${OPENAI_COMPATIBLE}"), such as "${first[0]}"`,
    );
  }
  if (routed.length === 0) {
    const [id, url] = [...compatible.entries()][0]!;
    throw new SetupError(
      checkOpenaiUpstream(context, 'opencode', shownUrl(url), `provider "${id}"`).refusal ??
        'no provider to route',
    );
  }
  return { upstream, routed };
}

/**
 * The routed providers whose base URL a project's config in the folder setup runs in sets again
 * (opencode.json up to the git root, .opencode/, OPENCODE_CONFIG...): it wins over the global
 * config, so opencode there would bypass the gateway without a word.
 */
async function projectOverrides(context: SetupContext, routed: readonly string[]) {
  if (context.cwd === undefined) return [];
  const directory = opencodeDirectory(context.env, context.cwd);
  const { merged } = await readOpencodeConfig(context.env, directory, false);
  const providers = isPlainObject(merged['provider']) ? merged['provider'] : {};
  return routed.flatMap((id) => {
    const options = isPlainObject(providers[id]) ? providers[id]['options'] : undefined;
    const url = isPlainObject(options) ? options['baseURL'] : undefined;
    return typeof url === 'string'
      ? [
          `In ${directory}, a project config sets provider "${id}"'s baseURL (${url}) over the global one: opencode there goes straight to it, not through the gateway. Run \`toolmask opencode\` there, or drop that baseURL from the project's config.`,
        ]
      : [];
  });
}

export async function planOpencodeSetup(context: SetupContext): Promise<ClientPlan> {
  const { env } = context;
  const gateway = await context.gateway();
  const home = env['HOME'] || os.homedir();
  const folder = path.join(env['XDG_CONFIG_HOME'] || path.join(home, '.config'), 'opencode');
  const { merged, file, original, config } = await readGlobalConfig(folder);
  const compatible = compatibleProviders(merged, env);
  if (compatible.size === 0) {
    throw new SetupError(
      `opencode's global config (${folder}) has no OpenAI-compatible provider to point at the gateway: add one ("provider": { "<id>": { "npm": "${OPENAI_COMPATIBLE}", "options": { "baseURL": "https://…/v1" }, "models": { … } } }) and run setup again, or use \`toolmask opencode\` for a project's own providers`,
    );
  }
  for (const url of compatible.values()) {
    if (url.startsWith(gateway.url)) {
      throw new SetupError(
        `opencode's config already points a provider at the gateway (${url}); nothing to set up`,
      );
    }
  }
  const model = typeof merged['model'] === 'string' ? merged['model'] : undefined;
  const { upstream, routed } = routedProviders(context, compatible, model, file);
  const checked = checkOpenaiUpstream(
    context,
    'opencode',
    shownUrl(upstream),
    `provider${routed.length > 1 ? 's' : ''} ${routed.map((id) => `"${id}"`).join(', ')}`,
  );
  if (checked.refusal) throw new SetupError(checked.refusal);
  const route = openaiRoute(gateway.url, upstream);
  const notes = checked.note ? [checked.note] : [];
  const left = [...compatible.keys()].filter((id) => !routed.includes(id));
  if (left.length > 0) {
    notes.push(
      `Left as they are (another base URL than the gateway's OpenAI upstream): ${left.map((id) => `"${id}"`).join(', ')}.`,
    );
  }
  notes.push(...(await projectOverrides(context, routed)));
  if (config['$schema'] === undefined) {
    notes.push(
      `opencode adds a "$schema" line to ${file} when it has none: after that, \`toolmask setup opencode --undo\` puts back setup's values rather than the file's old bytes.`,
    );
  }
  const changes = [
    ...routed.map((id) => jsonSet(config, ['provider', id, 'options', 'baseURL'], route)),
    jsonSet(config, ['mcp', 'toolmask'], {
      type: 'remote',
      url: `${gateway.url}/mcp`,
      headers: accessHeaders(gateway),
      enabled: true,
    }),
  ];
  return {
    // mcp.toolmask carries the access secret: the file is left 0600.
    files: [{ file, format: 'json', original, changes, holdsAccessSecret: true }],
    notes,
  };
}
