/**
 * What `toolmask opencode` sets up so that the person's own `opencode` (npm opencode-ai 1.18.33)
 * talks through the gateway's chat completions front, by one config layer in the environment
 * (their files are not edited):
 *
 * - **The layer** is `OPENCODE_CONFIG_CONTENT`, which opencode merges over every config file but
 *   the managed one (config.ts); a value the person already gives there is kept, merged
 *   under the launcher's additions. Nothing is written to disk, so nothing is left behind.
 * - **Routing.** Each OpenAI-compatible provider of the person's config (`npm:
 *   "@ai-sdk/openai-compatible"` with an `options.baseURL`) gets a gateway route of its own
 *   (`<gateway>/openai/~o<n>`, its base URL the upstream) and the session header in its
 *   `options.headers`. opencode's built-in `anthropic`, `openai`, `google` and `github-copilot`
 *   go to the front their SDK speaks (config.ts). A model of any other provider
 *   (Bedrock, Vertex AI, …) is refused, exit 2, rather than run unmasked.
 * - **Read-back.** `mcp.toolmask`: `type: "remote"` at `<gateway>/mcp`, its header naming the
 *   state folder's secret file (`{file:…}`, which opencode reads itself), not the secret: the
 *   layer is in opencode's environment, which the commands the model runs inherit, and what they
 *   print goes upstream. opencode names MCP tools `<server>_<tool>`: the model sees
 *   `toolmask_read_tool_output`.
 * - **Prune.** opencode 1.18.33 prunes old tool outputs (`[Old tool result content cleared]`, for
 *   good) only with `compaction.prune: true`; its default is off, so the launcher has nothing to
 *   turn off. When the person turned it on, it is left on, and said at launch.
 */
import * as path from 'node:path';
import { isPlainObject } from '@toolmask/core/utils';
import { ACCESS_SECRET_FILE, SESSION_HEADER, type UpstreamUrls } from '@toolmask/gateway/launch';
import { loopbackNoProxy, type Environment } from '../../environment.js';
import { parseSettings } from '../../files/jsonc-settings.js';
import { ACCESS_HEADER, shownUrl, type GatewayAccess } from '../../gateway-access.js';
import { LaunchError } from '../../launch-error.js';
import { launchBanner, type LaunchRequest, type PlannedLaunch } from '../../run/launch-plan.js';
import { opencodeModelFlag } from './args.js';
import {
  BUILTIN_PROVIDERS,
  builtinRoutes,
  mergeConfig,
  opencodeDirectory,
  readOpencodeAuth,
  readOpencodeConfig,
  substituteEnv,
  type OpencodeConfig,
  type OpencodeRoute,
} from './config.js';

export class OpencodeLaunchError extends LaunchError {}

/** The access header, its value opencode's `{file:…}` reference to the secret's file. */
function secretHeaders(secretFile: string): Record<string, string> {
  return { [ACCESS_HEADER]: `{file:${secretFile}}` };
}

/** The read-back tool as opencode names MCP tools (`<server>_<tool>`). */
export const OPENCODE_READ_BACK_TOOL = 'toolmask_read_tool_output';

const OPENAI_COMPATIBLE = '@ai-sdk/openai-compatible';

export interface OpencodePlan {
  upstreams: Partial<UpstreamUrls>;
  /** Provider id → the gateway front and path it is sent to, and its upstream. */
  routes: Map<string, OpencodeRoute>;
  /** The model opencode will use, when the arguments or the config name one. */
  model?: string;
  /** Whether opencode's prune is on (the person's `compaction.prune: true`). */
  pruneOn: boolean;
}

/** The base URL of an OpenAI-compatible provider entry, or undefined for any other. */
function compatibleBaseUrl(entry: unknown, env: Environment): string | undefined {
  if (!isPlainObject(entry) || entry['npm'] !== OPENAI_COMPATIBLE) return undefined;
  const options = entry['options'];
  const url = isPlainObject(options) ? options['baseURL'] : undefined;
  if (typeof url !== 'string') return undefined;
  return substituteEnv(url, env).trim() || undefined;
}

/** The gateway's upstreams for `routes`: one named OpenAI route each, Anthropic, Gemini API. */
function upstreamsOf(routes: Map<string, OpencodeRoute>): Partial<UpstreamUrls> {
  const upstreams: Partial<UpstreamUrls> = {};
  const named: Record<string, string> = {};
  for (const route of routes.values()) {
    if (route.front === 'anthropic') upstreams.anthropic = route.url;
    else if (route.front === 'gemini') upstreams.gemini = route.url;
    else named[route.gatewayPath.slice('/openai/~'.length)] = route.url;
  }
  return { ...upstreams, ...(Object.keys(named).length > 0 ? { openaiNamed: named } : {}) };
}

const ROUTED = `the OpenAI-compatible providers of your opencode config ("npm": "${OPENAI_COMPATIBLE}" with "options": { "baseURL": … }) and opencode's own ${Object.keys(BUILTIN_PROVIDERS).join(', ')}`;

/** Where the person's opencode sends its requests: the gateway's upstreams for this run. */
export async function planOpencodeLaunch(
  env: Environment,
  cwd: string,
  args: readonly string[],
): Promise<OpencodePlan> {
  const { merged, managed } = await readOpencodeConfig(env, opencodeDirectory(env, cwd));
  const providers = isPlainObject(merged['provider']) ? merged['provider'] : {};
  const managedProviders = isPlainObject(managed['provider']) ? managed['provider'] : {};
  const configured = merged['model'];
  const model =
    opencodeModelFlag(args) ?? (typeof configured === 'string' ? configured : undefined);
  const chosen = model?.split('/', 1)[0];
  const found: Array<[string, { url: string } | OpencodeRoute]> = [];
  for (const [id, entry] of Object.entries(providers)) {
    const url = compatibleBaseUrl(entry, env);
    if (url) found.push([id, { url }]);
  }
  const builtins = builtinRoutes(env, providers, await readOpencodeAuth(env), chosen);
  found.push(...builtins.routes);
  const routes = new Map<string, OpencodeRoute>();
  for (const [id, route] of found) {
    // A base URL the managed config sets cannot be overridden: that provider stays unrouted.
    if (valueAt(managedProviders, [id, 'options', 'baseURL']) !== undefined) continue;
    const named = !('front' in route) || route.front === 'openai';
    const gatewayPath = named ? `/openai/~o${routes.size}` : (route as OpencodeRoute).gatewayPath;
    routes.set(id, { front: 'openai', ...route, gatewayPath });
  }
  if (chosen !== undefined && !routes.has(chosen)) {
    const why = builtins.unroutable.get(chosen);
    throw new OpencodeLaunchError(
      why
        ? `opencode's model ${model} comes from the provider "${chosen}", which toolmask opencode cannot route: ${why}`
        : `opencode's model ${model} comes from the provider "${chosen}", which toolmask opencode cannot route: it routes ${ROUTED} through the gateway`,
    );
  }
  if (routes.size === 0) {
    throw new OpencodeLaunchError(
      `opencode has no provider toolmask can route: sign in to anthropic, openai, google or github-copilot (opencode auth login), or add an OpenAI-compatible one to opencode.json ("provider": { "<id>": { "npm": "${OPENAI_COMPATIBLE}", "options": { "baseURL": "https://…/v1" }, "models": { … } } }), and choose it with "model": "<id>/<model>" or -m`,
    );
  }
  const compaction = { ...(merged['compaction'] as object), ...(managed['compaction'] as object) };
  return {
    upstreams: upstreamsOf(routes),
    routes,
    ...(model ? { model } : {}),
    pruneOn: (compaction as { prune?: unknown }).prune === true && !env['OPENCODE_DISABLE_PRUNE'],
  };
}

function valueAt(value: unknown, keys: string[]): unknown {
  let current = value;
  for (const key of keys) current = isPlainObject(current) ? current[key] : undefined;
  return current;
}

/** One line at launch when opencode's own prune is on (said, not changed: the person chose it). */
export function pruneNote(plan: OpencodePlan): string | undefined {
  if (!plan.pruneOn) return undefined;
  return 'toolmask: note: opencode\'s prune is on in your config ("compaction": { "prune": true }): it replaces old tool outputs with "[Old tool result content cleared]" for good, at moments of its own, which breaks the prompt cache where toolmask keeps it and leaves nothing to read back; toolmask masks them with a preview and read-back instead. It is left as you set it; OPENCODE_DISABLE_PRUNE=1 turns it off for a run (docs/gateway.md)';
}

export interface OpencodeLaunch {
  env: Environment;
  summary: string;
  notes: string[];
  cleanup(): Promise<string[]>;
}

export function prepareOpencodeLaunch(options: {
  env: Environment;
  gateway: GatewayAccess;
  sessionId: string;
  plan: OpencodePlan;
  /** The gateway's state folder, whose `access-secret` file the MCP header reads. */
  stateDir: string;
}): OpencodeLaunch {
  const { env, gateway, plan } = options;
  const provider: OpencodeConfig = {};
  for (const [id, { gatewayPath }] of plan.routes) {
    provider[id] = {
      options: {
        baseURL: `${gateway.url}${gatewayPath}`,
        headers: { [SESSION_HEADER]: options.sessionId },
      },
    };
  }
  const additions: OpencodeConfig = {
    provider,
    mcp: {
      toolmask: {
        type: 'remote',
        url: `${gateway.url}/mcp`,
        headers: secretHeaders(path.resolve(options.stateDir, ACCESS_SECRET_FILE)),
        enabled: true,
      },
    },
  };
  const own = env['OPENCODE_CONFIG_CONTENT']
    ? parseSettings(env['OPENCODE_CONFIG_CONTENT'], 'OPENCODE_CONFIG_CONTENT')
    : {};
  const chosen = plan.model ? plan.routes.get(plan.model.split('/', 1)[0]!) : undefined;
  const target = chosen
    ? shownUrl(chosen.url)
    : plan.routes.size === 1
      ? shownUrl([...plan.routes.values()][0]!.url)
      : `${plan.routes.size} providers`;
  return {
    env: {
      ...env,
      OPENCODE_CONFIG_CONTENT: JSON.stringify(mergeConfig(own, additions)),
      ...loopbackNoProxy(env),
    },
    summary: launchBanner('opencode', gateway, target),
    notes: [pruneNote(plan)].filter((note): note is string => note !== undefined),
    cleanup: () => Promise.resolve([]),
  };
}

/** `toolmask opencode`: the plan, then opencode set up against the run's gateway. */
export async function launchOpencode(request: LaunchRequest): Promise<PlannedLaunch> {
  const plan = await planOpencodeLaunch(request.env, request.cwd, request.args);
  return {
    upstreams: plan.upstreams,
    prepare: ({ gateway, sessionId, stateDir }) =>
      Promise.resolve(
        prepareOpencodeLaunch({ env: request.env, gateway, sessionId, plan, stateDir }),
      ),
  };
}
