/**
 * What `toolmask claude` sets up so that the person's own `claude` (npm @anthropic-ai/claude-code
 * 2.1.328) talks through the gateway's Anthropic Messages front, without editing their files:
 *
 * - **Routing.** `ANTHROPIC_BASE_URL=<gateway>/anthropic`. Claude Code applies the `env` block of
 *   its settings files over its own environment (measured: a user settings `env` wins over the
 *   variable), so the variable alone is not enough: the launcher also passes one extra settings
 *   layer (`--settings FILE`, above the user, project and local files, below managed policy) whose
 *   `env` names the gateway. The person's own base URL, wherever claude would take it from, is the
 *   gateway's upstream (default https://api.anthropic.com). A managed policy that sets the base URL
 *   cannot be overridden: the launcher says so instead of running unmasked. Bedrock, Vertex AI and
 *   Foundry speak other protocols: refused the same way.
 * - **Session header.** `ANTHROPIC_CUSTOM_HEADERS` (one `Name: value` per line) gains
 *   `x-toolmask-session: <id>`, after the person's own headers, in the environment (and in the
 *   layer when a settings file of theirs sets the variable: see `settingsLayer`).
 * - **Read-back.** `--mcp-config=FILE` with the gateway's `/mcp` (Streamable HTTP, the access
 *   secret in its headers) and `--allowedTools=mcp__toolmask__read_tool_output` (the tool is
 *   read-only and confined; without it, `claude -p` denies the call). Both are files in the state
 *   folder (0600), not JSON on the command line: any local account can read another's argv.
 * - A `--settings` of the person's own is folded into the layer (claude keeps only the last one);
 *   its `env` values go in the child's environment instead, unless a settings file below would
 *   override them, so no key of theirs is copied to disk.
 * - Claude Code's own context management (auto-compact, idle compaction) is left as the person has
 *   it: it summarises only near the context limit or when idle, which toolmask does not replace;
 *   docs/gateway.md says why.
 *
 * Project settings (`.claude/settings.json`, `settings.local.json`) count only in a folder the
 * person trusted in claude (`~/.claude.json`), as in claude: a repository cannot choose where the
 * gateway sends the person's key.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_UPSTREAMS, SESSION_HEADER, type UpstreamUrls } from '@toolmask/gateway/launch';
import { ensurePrivateDirectory } from '@toolmask/core/files';
import { loopbackNoProxy, type Environment } from '../../environment.js';
import { parseSettings, readSettingsFile, readSettingsObject } from '../../files/jsonc-settings.js';
import { accessHeaders, shownUrl, type GatewayAccess } from '../../gateway-access.js';
import { LaunchError } from '../../launch-error.js';
import { launchEntryName, sweepAbandoned } from '../../run/launch-leftovers.js';
import { launchBanner, type LaunchRequest, type PlannedLaunch } from '../../run/launch-plan.js';
import { claudeSettingsFlag, withoutClaudeSettingsFlag } from './args.js';
import {
  claudeFolder,
  DEFAULT_MANAGED_SETTINGS,
  effectiveVariable,
  envOf,
  isOn,
  OTHER_PROVIDERS,
  trustedFolder,
  type ClaudeLayers,
} from './config.js';

type Settings = Record<string, unknown>;

export class ClaudeLaunchError extends LaunchError {}

/** The read-back tool as Claude Code names MCP tools (`mcp__<server>__<tool>`). */
export const CLAUDE_READ_BACK_TOOL = 'mcp__toolmask__read_tool_output';
/** The search over saved outputs, named the same way. */
export const CLAUDE_SEARCH_TOOL = 'mcp__toolmask__search_tool_outputs';

/** The person's `--settings` value: JSON text, or a file (relative to the working folder). */
async function flagLayer(value: string | undefined, cwd: string): Promise<Settings> {
  if (value === undefined) return {};
  if (value.trim().startsWith('{')) return parseSettings(value, '--settings');
  const file = path.resolve(cwd, value);
  const text = await readSettingsFile(file);
  if (text === undefined) throw new ClaudeLaunchError(`--settings ${value}: no such file`);
  return parseSettings(text, file);
}

async function readLayers(
  env: Environment,
  cwd: string,
  args: readonly string[],
): Promise<ClaudeLayers> {
  const trusted = await trustedFolder(env, cwd);
  const project = path.join(cwd, '.claude');
  return {
    managed: await readSettingsObject(
      env['CLAUDE_CODE_MANAGED_SETTINGS_PATH'] || DEFAULT_MANAGED_SETTINGS,
    ),
    flag: await flagLayer(claudeSettingsFlag(args), cwd),
    local: trusted ? await readSettingsObject(path.join(project, 'settings.local.json')) : {},
    project: trusted ? await readSettingsObject(path.join(project, 'settings.json')) : {},
    user: await readSettingsObject(path.join(claudeFolder(env), 'settings.json')),
  };
}

export interface ClaudePlan {
  upstreams: Partial<UpstreamUrls>;
  layers: ClaudeLayers;
  /** The person's own `ANTHROPIC_CUSTOM_HEADERS`, as claude would see it. */
  customHeaders?: string;
  /** claude's arguments without the person's `--settings` (folded into the launcher's layer). */
  args: string[];
}

/** Where the person's claude sends its requests: the gateway's upstream for this run. */
export async function planClaudeLaunch(
  env: Environment,
  cwd: string,
  args: readonly string[],
): Promise<ClaudePlan> {
  const layers = await readLayers(env, cwd, args);
  for (const name of OTHER_PROVIDERS) {
    if (isOn(effectiveVariable(layers, env, name))) {
      throw new ClaudeLaunchError(
        `claude is set to another provider (${name}); toolmask claude routes the Anthropic API only (an API key, a Claude login, or ANTHROPIC_BASE_URL)`,
      );
    }
  }
  if (envOf(layers.managed)['ANTHROPIC_BASE_URL'] !== undefined) {
    throw new ClaudeLaunchError(
      "ANTHROPIC_BASE_URL is set by your organization's managed settings, which nothing may override; toolmask claude cannot route claude through the gateway here",
    );
  }
  const baseUrl = effectiveVariable(layers, env, 'ANTHROPIC_BASE_URL');
  const customHeaders = effectiveVariable(layers, env, 'ANTHROPIC_CUSTOM_HEADERS');
  return {
    upstreams: baseUrl ? { anthropic: baseUrl.replace(/\/+$/, '') } : {},
    layers,
    ...(customHeaders ? { customHeaders } : {}),
    args: withoutClaudeSettingsFlag(args),
  };
}

/** `headers` (claude's `Name: value` lines) with `name` set to `value`, the person's others kept. */
export function withCustomHeader(headers: string | undefined, name: string, value: string): string {
  const lines = (headers ?? '')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .filter((line) => line.split(':', 1)[0]!.trim().toLowerCase() !== name);
  return [...lines, `${name}: ${value}`].join('\n');
}

/**
 * The launcher's settings layer: the person's own `--settings` (claude keeps only the last one)
 * with `ours` in its `env`. A variable goes into the file only when a settings file below it sets
 * the same name (local, project, user), for only then must it win over them; every other one goes
 * in the child's environment, with the same effect, so that an API key or a credential header
 * passed in the person's `--settings` is not copied to disk. The base URL always goes in: it names
 * only the gateway.
 */
function settingsLayer(
  layers: ClaudeLayers,
  ours: { ANTHROPIC_BASE_URL: string; ANTHROPIC_CUSTOM_HEADERS: string },
): { layer: Settings; movedToEnvironment: Environment } {
  const below = [layers.local, layers.project, layers.user];
  const setBelow = (name: string) => below.some((layer) => envOf(layer)[name] !== undefined);
  const layer: Settings = structuredClone(layers.flag);
  const fileEnv: Record<string, unknown> = {};
  const movedToEnvironment: Environment = {};
  for (const [name, value] of Object.entries({ ...envOf(layer), ...ours })) {
    if (value === undefined || value === null) continue;
    const mustWin = name === 'ANTHROPIC_BASE_URL' || setBelow(name);
    if (mustWin) fileEnv[name] = value;
    else movedToEnvironment[name] = String(value);
  }
  layer['env'] = fileEnv;
  return { layer, movedToEnvironment };
}

export interface ClaudeLaunch {
  env: Environment;
  args: string[];
  summary: string;
  cleanup(): Promise<string[]>;
}

export async function prepareClaudeLaunch(options: {
  env: Environment;
  gateway: GatewayAccess;
  stateDir: string;
  sessionId: string;
  plan: ClaudePlan;
}): Promise<ClaudeLaunch> {
  const { env, gateway, plan } = options;
  const baseUrl = `${gateway.url}/anthropic`;
  const customHeaders = withCustomHeader(plan.customHeaders, SESSION_HEADER, options.sessionId);
  const { layer, movedToEnvironment } = settingsLayer(plan.layers, {
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_CUSTOM_HEADERS: customHeaders,
  });
  const mcpConfig = {
    mcpServers: {
      toolmask: { type: 'http', url: `${gateway.url}/mcp`, headers: accessHeaders(gateway) },
    },
  };

  const launchDir = path.join(options.stateDir, 'launch');
  await ensurePrivateDirectory(launchDir);
  await sweepAbandoned(launchDir, 'claude');
  const folder = path.join(launchDir, launchEntryName('claude'));
  await fs.mkdir(folder, { mode: 0o700 });
  const settingsFile = path.join(folder, 'settings.json');
  const mcpFile = path.join(folder, 'mcp.json');
  await fs.writeFile(settingsFile, JSON.stringify(layer, null, 2) + '\n', { mode: 0o600 });
  await fs.writeFile(mcpFile, JSON.stringify(mcpConfig, null, 2) + '\n', { mode: 0o600 });

  return {
    env: {
      ...env,
      ...movedToEnvironment,
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_CUSTOM_HEADERS: customHeaders,
      // Claude Code names the terminal after its conversation: the launcher's title (where the
      // dashboard is, launch-client.ts) stays unless the person chose otherwise.
      CLAUDE_CODE_DISABLE_TERMINAL_TITLE: env['CLAUDE_CODE_DISABLE_TERMINAL_TITLE'] ?? '1',
      ...loopbackNoProxy(env),
    },
    // Before the person's arguments: root options are read before a subcommand (`claude mcp list`).
    args: [
      `--settings=${settingsFile}`,
      `--mcp-config=${mcpFile}`,
      `--allowedTools=${CLAUDE_READ_BACK_TOOL},${CLAUDE_SEARCH_TOOL}`,
      ...plan.args,
    ],
    summary: launchBanner(
      'claude',
      gateway,
      shownUrl(plan.upstreams.anthropic ?? DEFAULT_UPSTREAMS.anthropic),
    ),
    async cleanup() {
      await fs.rm(folder, { recursive: true, force: true });
      return [];
    },
  };
}

/** `toolmask claude`: the plan, then claude set up against the run's gateway. */
export async function launchClaude(request: LaunchRequest): Promise<PlannedLaunch> {
  const plan = await planClaudeLaunch(request.env, request.cwd, request.args);
  return {
    upstreams: plan.upstreams,
    prepare: ({ gateway, sessionId, stateDir }) =>
      prepareClaudeLaunch({ env: request.env, gateway, stateDir, sessionId, plan }),
  };
}
