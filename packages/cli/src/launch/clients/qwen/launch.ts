/**
 * What `toolmask qwen` sets up so that the person's own `qwen` (npm @qwen-code/qwen-code 0.24.4)
 * talks through the gateway's OpenAI-compatible front, by environment and one extra settings layer
 * (their files are not edited):
 *
 * - **Routing.** `OPENAI_BASE_URL=<gateway>/openai/v1`; the person's own base URL (the
 *   `--openai-base-url` flag, the environment or `.env`, or `security.auth.baseUrl` in the
 *   settings, in qwen's order) is the gateway's upstream, and a flag's value is replaced by the
 *   gateway route in the arguments qwen gets (the flag wins over the variable in qwen). A
 *   `modelProviders` entry's `baseUrl` wins over both in qwen, so each provider gets a route of its
 *   own (`<gateway>/openai/~p<n>`) in the extra layer, which replaces the list (qwen merges
 *   `modelProviders` by replacing it). A DashScope upstream keeps qwen's DashScope behaviour
 *   (`DASHSCOPE_PROXY_BASE_URL` names the gateway route).
 * - **The extra layer** is qwen's system settings file (`QWEN_CODE_SYSTEM_SETTINGS_PATH`, highest
 *   precedence; a system file the machine already has is folded in): the MCP server
 *   (Streamable HTTP, loaded up front, trusted: it is read-only and confined), a session header,
 *   and qwen's microcompaction off (it clears old tool results for good at moments of its own,
 *   which would fight the gateway's masking; docs/gateway.md).
 * - Qwen OAuth sends its requests to an endpoint taken from the stored credentials, which nothing
 *   redirects: `toolmask qwen` says so instead of running unmasked.
 */
import { existsSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CLIENT_SESSION_HEADER, SESSION_HEADER, type UpstreamUrls } from '@toolmask/gateway/launch';
import { ensurePrivateDirectory } from '@toolmask/core/files';
import { loopbackNoProxy, type Environment } from '../../environment.js';
import { readDotEnv } from '../../files/dotenv.js';
import { shownUrl, type GatewayAccess } from '../../gateway-access.js';
import { LaunchError } from '../../launch-error.js';
import { launchEntryName, sweepAbandoned } from '../../run/launch-leftovers.js';
import { launchBanner, type LaunchRequest, type PlannedLaunch } from '../../run/launch-plan.js';
import { flagValue, keepsMicrocompaction, withFlagValue } from './args.js';
import {
  DEFAULT_SYSTEM_DEFAULTS,
  effective,
  qwenMcpServer,
  qwenUserSettingsPath,
  readLayers,
  type ModelProviders,
  type QwenLayers,
} from './config.js';

export class QwenLaunchError extends LaunchError {}

/** A provider route name for each distinct base URL of `modelProviders`. */
function providerRoutes(providers: ModelProviders | undefined): Map<string, string> {
  const routes = new Map<string, string>();
  for (const entries of Object.values(providers ?? {})) {
    for (const entry of Array.isArray(entries) ? entries : []) {
      if (typeof entry?.baseUrl === 'string' && !routes.has(entry.baseUrl)) {
        routes.set(entry.baseUrl, `p${routes.size}`);
      }
    }
  }
  return routes;
}

export interface QwenPlan {
  upstreams: Partial<UpstreamUrls>;
  layers: QwenLayers;
  /** Base URL → route name, for `modelProviders` entries. */
  routes: Map<string, string>;
  /** qwen's arguments as the person gave them. */
  args: readonly string[];
}

/** Where the person's qwen sends its requests: the gateway's upstreams for this run. */
export async function planQwenLaunch(
  env: Environment,
  cwd: string,
  args: readonly string[],
): Promise<QwenPlan> {
  const layers = await readLayers(env, cwd);
  const authType =
    flagValue(args, 'auth-type') ??
    (effective(layers, ['security', 'auth', 'selectedType']) as string | undefined);
  if (authType === 'qwen-oauth') {
    throw new QwenLaunchError(
      'qwen is set to Qwen OAuth, whose endpoint comes from its stored credentials and cannot be routed through the gateway; use an OpenAI-compatible provider (--auth-type openai with OPENAI_BASE_URL and OPENAI_API_KEY)',
    );
  }
  if (authType !== undefined && authType !== 'openai') {
    throw new QwenLaunchError(
      `toolmask qwen routes the openai auth type only; qwen is set to ${JSON.stringify(authType)}`,
    );
  }
  const dotEnv = readDotEnv(cwd, '.qwen');
  // qwen's own precedence (after modelProviders, handled below): the flag, the environment (its
  // .env included), then the settings' security.auth.baseUrl.
  const settingsBaseUrl = effective(layers, ['security', 'auth', 'baseUrl']);
  const baseUrl =
    flagValue(args, 'openai-base-url') ??
    env['OPENAI_BASE_URL'] ??
    dotEnv['OPENAI_BASE_URL'] ??
    (typeof settingsBaseUrl === 'string' && settingsBaseUrl !== '' ? settingsBaseUrl : undefined);
  const providers = effective(layers, ['modelProviders']) as ModelProviders | undefined;
  const routes = providerRoutes(providers);
  if (!baseUrl && routes.size === 0) {
    throw new QwenLaunchError(
      "qwen has no OpenAI-compatible base URL: set OPENAI_BASE_URL (your provider's …/v1 URL), or security.auth.baseUrl or modelProviders in ~/.qwen/settings.json",
    );
  }
  const upstreams: Partial<UpstreamUrls> = {};
  if (baseUrl) upstreams.openai = baseUrl;
  if (routes.size > 0) {
    upstreams.openaiNamed = Object.fromEntries([...routes].map(([url, name]) => [name, url]));
  }
  return { upstreams, layers, routes, args: [...args] };
}

function isDashScope(url: string | undefined): boolean {
  try {
    return url !== undefined && /(^|\.)dashscope[^.]*\.aliyuncs\.com$/.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

export interface QwenLaunch {
  env: Environment;
  /** qwen's arguments, with a base URL given there replaced by the gateway route. */
  args: string[];
  summary: string;
  /** Lines for the person about their qwen settings (truncationNote). */
  notes: string[];
  cleanup(): Promise<string[]>;
}

/**
 * One line when qwen's own truncation at ingest is on (its default): qwen cuts every long output
 * to a preview before it is sent (`tools.truncateToolOutputThreshold`, or
 * `tools.truncateToolOutputLines`; either at 0 or below turns it off), so toolmask only ever sees
 * previews and saves little. Said, not changed: the person may want it (docs/gateway.md).
 */
export function truncationNote(plan: QwenPlan, env: Environment): string | undefined {
  const threshold = effective(plan.layers, ['tools', 'truncateToolOutputThreshold']);
  const lines = effective(plan.layers, ['tools', 'truncateToolOutputLines']);
  const off = (value: unknown) => typeof value === 'number' && value <= 0;
  if (off(threshold) || off(lines)) return undefined;
  const size =
    typeof threshold === 'number'
      ? `${threshold.toLocaleString('en-US')} characters, your setting`
      : 'about 25,000-30,000 characters by default';
  return `toolmask: note: qwen cuts each long tool output to a short preview itself (tools.truncateToolOutputThreshold: ${size}), so masking has little left to save; to keep outputs whole until toolmask masks them (read back on demand), set "tools": { "truncateToolOutputThreshold": 0 } in ${qwenUserSettingsPath(env)} (docs/gateway.md)`;
}

/** The providers of `modelProviders` with the routed ones' base URL and the session header. */
function routedProviders(plan: QwenPlan, route: string, headers: Record<string, string>) {
  const providers = structuredClone(effective(plan.layers, ['modelProviders']) as ModelProviders);
  for (const entries of Object.values(providers)) {
    for (const entry of Array.isArray(entries) ? entries : []) {
      const name = typeof entry.baseUrl === 'string' ? plan.routes.get(entry.baseUrl) : undefined;
      if (!name) continue;
      entry.baseUrl = `${route}/~${name}`;
      // Provider models ignore the top-level generationConfig: the header goes in each entry.
      entry.generationConfig = {
        ...entry.generationConfig,
        customHeaders: {
          ...(entry.generationConfig?.['customHeaders'] as object | undefined),
          ...headers,
        },
      };
    }
  }
  return providers;
}

/**
 * The run's system settings layer: the machine's system file with the MCP server, the session
 * header, microcompaction off (unless kept) and the routed providers.
 */
function systemLayer(
  plan: QwenPlan,
  gateway: GatewayAccess,
  sessionId: string,
  keepMicrocompaction: boolean,
): Record<string, unknown> {
  // qwen's own session id too (it fills in `${session_id}` only with dynamic values allowed),
  // for the resume command said at exit: its requests carry none of their own.
  const headers = { [SESSION_HEADER]: sessionId, [CLIENT_SESSION_HEADER]: '${session_id}' };
  const layer: Record<string, unknown> = structuredClone(plan.layers.system);
  layer['$version'] = 4;
  layer['outboundCorrelation'] = {
    ...(layer['outboundCorrelation'] as object | undefined),
    allowDynamicHeaderValues: true,
  };
  layer['mcpServers'] = {
    ...(layer['mcpServers'] as object | undefined),
    toolmask: qwenMcpServer(gateway),
  };
  const model = (layer['model'] ??= {}) as Record<string, unknown>;
  const generationConfig = (model['generationConfig'] ??= {}) as Record<string, unknown>;
  generationConfig['customHeaders'] = {
    ...(generationConfig['customHeaders'] as object | undefined),
    ...headers,
  };
  if (!keepMicrocompaction) {
    const context = (layer['context'] ??= {}) as Record<string, unknown>;
    context['clearContextOnIdle'] = {
      ...(context['clearContextOnIdle'] as object | undefined),
      toolResultsThresholdMinutes: -1,
      toolResultsTotalCharsThreshold: -1,
    };
  }
  if (plan.routes.size > 0) {
    layer['modelProviders'] = routedProviders(plan, `${gateway.url}/openai`, headers);
  }
  // qwen 0.24.4 sets the terminal title over the launcher's, which says where the dashboard is;
  // unless the person chose (`ui.hideWindowTitle` in a layer), it sets none for the run.
  if (effective(plan.layers, ['ui', 'hideWindowTitle']) === undefined) {
    layer['ui'] = { ...(layer['ui'] as object | undefined), hideWindowTitle: true };
  }
  return layer;
}

export async function prepareQwenLaunch(options: {
  env: Environment;
  gateway: GatewayAccess;
  stateDir: string;
  sessionId: string;
  plan: QwenPlan;
  /** Leave qwen's microcompaction on. @default false */
  keepMicrocompaction?: boolean;
}): Promise<QwenLaunch> {
  const { env, gateway, plan } = options;
  const route = `${gateway.url}/openai`;
  const layer = systemLayer(plan, gateway, options.sessionId, options.keepMicrocompaction === true);
  const folder = path.join(options.stateDir, 'launch');
  await ensurePrivateDirectory(folder);
  await sweepAbandoned(folder, 'qwen', '.json');
  const file = path.join(folder, launchEntryName('qwen', '.json'));
  await fs.writeFile(file, JSON.stringify(layer, null, 2) + '\n', { mode: 0o600 });

  const childEnv: Environment = {
    ...env,
    QWEN_CODE_SYSTEM_SETTINGS_PATH: file,
    // Moving the system file moves the default defaults file too: keep the machine's.
    QWEN_CODE_SYSTEM_DEFAULTS_PATH:
      env['QWEN_CODE_SYSTEM_DEFAULTS_PATH'] ??
      (existsSync(DEFAULT_SYSTEM_DEFAULTS)
        ? DEFAULT_SYSTEM_DEFAULTS
        : path.join(folder, 'no-system-defaults.json')),
    ...loopbackNoProxy(env),
  };
  if (plan.upstreams.openai) {
    childEnv['OPENAI_BASE_URL'] = `${route}/v1`;
    if (isDashScope(plan.upstreams.openai)) childEnv['DASHSCOPE_PROXY_BASE_URL'] = `${route}/v1`;
  }
  return {
    env: childEnv,
    // `--openai-base-url` wins over OPENAI_BASE_URL in qwen: left as given, it would bypass the
    // gateway. Its value is the upstream (planQwenLaunch); qwen gets the gateway route instead.
    args: withFlagValue(plan.args, 'openai-base-url', `${route}/v1`),
    summary: launchBanner(
      'qwen',
      gateway,
      plan.upstreams.openai
        ? shownUrl(plan.upstreams.openai)
        : `${plan.routes.size} model provider(s)`,
    ),
    notes: [truncationNote(plan, env)].filter((note): note is string => note !== undefined),
    async cleanup() {
      await fs.rm(file, { force: true });
      return [];
    },
  };
}

/** `toolmask qwen`: the plan, then qwen set up against the run's gateway. */
export async function launchQwen(request: LaunchRequest): Promise<PlannedLaunch> {
  const plan = await planQwenLaunch(request.env, request.cwd, request.args);
  return {
    upstreams: plan.upstreams,
    prepare: ({ gateway, sessionId, stateDir }) =>
      prepareQwenLaunch({
        env: request.env,
        gateway,
        stateDir,
        sessionId,
        plan,
        keepMicrocompaction: keepsMicrocompaction(request.options),
      }),
  };
}
