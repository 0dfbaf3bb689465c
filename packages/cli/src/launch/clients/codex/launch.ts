/**
 * What `toolmask codex` sets up so that the person's own `codex` (npm @openai/codex 0.169.0) talks
 * through the gateway's OpenAI Responses front, without editing their files and without writing
 * any of its own: everything goes in `-c key=value` overrides on codex's command line (the highest
 * layer codex reads below managed policy) and in the environment.
 *
 * - **Routing.** The person's chosen provider (config.ts) keeps its id, its key and its
 *   other settings; its `base_url` becomes `<gateway>/openai`, its own base URL the gateway's
 *   upstream. Codex refuses to redefine a built-in provider, so for the built-in `openai` the
 *   launcher defines `toolmask-openai`, OpenAI's own settings with the gateway's base URL and
 *   codex's login (`requires_openai_auth`): an API key goes to https://api.openai.com/v1 (or the
 *   person's `openai_base_url`), a ChatGPT login to https://chatgpt.com/backend-api/codex, where
 *   codex would send it. `supports_websockets = false`: the gateway speaks HTTP, and codex would
 *   otherwise try a WebSocket seven times (about 6 s) before each session falls back.
 * - **Session header.** `env_http_headers` of the provider names `TOOLMASK_CODEX_SESSION`, whose
 *   value is the run's id: codex sends `x-toolmask-session` on every request.
 * - **Read-back.** `mcp_servers.toolmask` at `<gateway>/mcp` with the access secret in
 *   `env_http_headers` (`TOOLMASK_CODEX_MCP_TOKEN`; `shell_environment_policy.exclude` gains
 *   `TOOLMASK_*`, so the commands the model runs do not inherit it: codex 0.169.0 excludes no
 *   name by default, and a command's output goes upstream) and
 *   `default_tools_approval_mode = "approve"` (`codex exec` refuses an unapproved MCP call), and
 *   `required = true`: the first request then carries the read-back tool (otherwise, when the
 *   gateway's tools/list answers late, the tool joins a later request and breaks its cache). No
 *   secret is on the command line, which any local account can read.
 * - **`--no-daemon`.** Codex's TUI otherwise runs sessions in a shared background server, which
 *   one started for the run would outlive it (with the run's gateway gone), and one already running
 *   would serve the session with its own configuration instead of the run's.
 * - Codex's own context management (auto-compaction, remote compaction for OpenAI, its cut of
 *   every output to 10,000 characters) is left as the person has it: docs/gateway.md says why.
 */
import { SESSION_HEADER, type UpstreamUrls } from '@toolmask/gateway/launch';
import { loopbackNoProxy, type Environment } from '../../environment.js';
import { tableAt, tomlString, type TomlValue } from '../../files/toml-values.js';
import { shownUrl, type GatewayAccess } from '../../gateway-access.js';
import { launchBanner, type LaunchRequest, type PlannedLaunch } from '../../run/launch-plan.js';
import { readCodexArgs, splitRoutingOverrides } from './args.js';
import { CodexLaunchError, openaiAuth, readCodexConfig, type OpenaiAuth } from './config.js';

export { CodexLaunchError } from './config.js';

/** The read-back tool as Codex names MCP tools (its namespace `mcp__<server>` and the tool). */
export const CODEX_READ_BACK_TOOL = 'mcp__toolmask__read_tool_output';
/** The provider the launcher defines in place of codex's built-in `openai`. */
export const CODEX_OPENAI_PROVIDER = 'toolmask-openai';
/** The environment variables the run's `-c` overrides name (values never on the command line). */
export const CODEX_SESSION_VARIABLE = 'TOOLMASK_CODEX_SESSION';
export const CODEX_TOKEN_VARIABLE = 'TOOLMASK_CODEX_MCP_TOKEN';

const OPENAI_API = 'https://api.openai.com/v1';
const CHATGPT_API = 'https://chatgpt.com/backend-api/codex';
const OTHER_BUILT_INS = ['ollama', 'lmstudio', 'amazon-bedrock'];
const BARE_KEY = /^[A-Za-z0-9_-]+$/;
const AZURE_MARKERS = [
  'openai.azure.',
  'cognitiveservices.azure.',
  'aoai.azure.',
  'azure-api.',
  'azurefd.',
  'windows.net/openai',
];

export interface CodexPlan {
  upstreams: Partial<UpstreamUrls>;
  /** The person's provider id (`openai` for the built-in one). */
  provider: string;
  upstream: string;
  /** For the built-in provider: how codex signs in. */
  auth?: Exclude<OpenaiAuth, 'unknown'>;
  /** The provider's base URL is an Azure endpoint's, which codex recognises by its URL. */
  azure: boolean;
  /** The person's own overrides of what the launcher sets, as `-c` pairs (put first). */
  routingArgs: string[];
  /** The person's `shell_environment_policy.exclude` patterns (the run adds its own to them). */
  shellExclude: string[];
  /** The person's other arguments, unchanged. */
  args: string[];
  /** The person chose codex's terminal title (`[tui] terminal_title`): theirs is left alone. */
  ownTitle: boolean;
}

function refuse(message: string): never {
  throw new CodexLaunchError(message);
}

function text(value: TomlValue | undefined): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** Where the person's codex sends its requests: the gateway's upstream for this run. */
export async function planCodexLaunch(
  env: Environment,
  cwd: string,
  args: readonly string[],
): Promise<CodexPlan> {
  const read = readCodexArgs(args);
  if (read.oss) {
    refuse(
      'codex --oss (or --local-provider) uses a local ollama or LM Studio server, which toolmask codex does not route; name it as a provider of your own ([model_providers.<id>] base_url = "http://localhost:11434/v1") to run it through the gateway',
    );
  }
  const { merged, managed } = await readCodexConfig(env, cwd, read);
  for (const key of ['model_provider', 'model_providers', 'openai_base_url']) {
    if (managed[key] !== undefined) {
      refuse(
        `${key} is set by your organization's managed codex config (/etc/codex/managed_config.toml), which nothing may override; toolmask codex cannot route codex through the gateway here`,
      );
    }
  }
  const provider = text(merged['model_provider']) ?? 'openai';
  const { routing, rest } = splitRoutingOverrides(args);
  const policy = tableAt(merged, ['shell_environment_policy']);
  const excludes = Array.isArray(policy?.['exclude']) ? policy['exclude'] : [];
  const shellExclude = excludes.filter((item): item is string => typeof item === 'string');
  const ownTitle = tableAt(merged, ['tui'])?.['terminal_title'] !== undefined;
  const common = { provider, routingArgs: routing, args: rest, shellExclude, ownTitle };

  if (provider === 'openai') {
    const auth = await openaiAuth(env);
    if (auth === 'unknown') {
      refuse(
        'toolmask codex cannot tell how your codex signs in to OpenAI (no CODEX_API_KEY, no login in ~/.codex/auth.json; a login kept in the OS keyring cannot be read), so not where to send its requests: sign in with `codex login` (ChatGPT, or `--with-api-key`) or set CODEX_API_KEY',
      );
    }
    const upstream = (
      text(merged['openai_base_url']) ?? (auth === 'chatgpt' ? CHATGPT_API : OPENAI_API)
    ).replace(/\/+$/, '');
    return { ...common, upstreams: { openai: upstream }, upstream, auth, azure: false };
  }
  if (OTHER_BUILT_INS.includes(provider)) {
    refuse(
      `codex's model provider is the built-in "${provider}", which toolmask codex does not route (${provider === 'amazon-bedrock' ? 'its requests are signed for Bedrock' : 'a local server'}); it routes codex's OpenAI provider and providers of your own with a base_url`,
    );
  }
  const table = tableAt(merged, ['model_providers', provider]);
  if (!table) {
    refuse(
      `codex's model_provider "${provider}" is not defined ([model_providers.${provider}] in ~/.codex/config.toml); codex would refuse it too`,
    );
  }
  if (!BARE_KEY.test(provider)) {
    refuse(
      `codex's model_provider "${provider}" has characters a -c override cannot name (letters, digits, "_" and "-" only); toolmask codex cannot route it`,
    );
  }
  if (table['aws'] !== undefined) {
    refuse(
      `codex's model provider "${provider}" signs its requests for AWS (aws = …): a gateway between codex and the endpoint would break the signature; toolmask codex cannot route it`,
    );
  }
  if (table['wire_api'] === 'chat') {
    refuse(
      `codex's model provider "${provider}" has wire_api = "chat", which codex 0.169.0 no longer supports (it refuses the config); set wire_api = "responses"`,
    );
  }
  const chatgpt = table['requires_openai_auth'] === true && (await openaiAuth(env)) === 'chatgpt';
  const upstream = (text(table['base_url']) ?? (chatgpt ? CHATGPT_API : OPENAI_API)).replace(
    /\/+$/,
    '',
  );
  const name = text(table['name']) ?? '';
  const azure =
    name.toLowerCase() !== 'azure' &&
    AZURE_MARKERS.some((marker) => upstream.toLowerCase().includes(marker));
  return { ...common, upstreams: { openai: upstream }, upstream, azure };
}

/** `-c key=value` pairs for codex. */
function overrides(pairs: ReadonlyArray<[string, string]>): string[] {
  return pairs.flatMap(([key, value]) => ['-c', `${key}=${value}`]);
}

function inlineTable(entries: Record<string, string>): string {
  return `{ ${Object.entries(entries)
    .map(([key, value]) => `${tomlString(key)} = ${value}`)
    .join(', ')} }`;
}

/** The `-c` overrides of the run (no secret in them: they name environment variables). */
export function codexOverrides(plan: CodexPlan, gatewayUrl: string): string[] {
  // No /v1: the gateway keeps the request path after /openai, and an upstream may not end in /v1.
  const baseUrl = tomlString(`${gatewayUrl}/openai`);
  const session = tomlString(CODEX_SESSION_VARIABLE);
  const mcp = overrides([
    [
      'mcp_servers.toolmask',
      inlineTable({
        url: tomlString(`${gatewayUrl}/mcp`),
        env_http_headers: inlineTable({ 'x-toolmask-token': tomlString(CODEX_TOKEN_VARIABLE) }),
        default_tools_approval_mode: tomlString('approve'),
        // Codex 0.169.0 sends its first request without an optional MCP server's tools when that
        // server has not listed them yet; they join a later request, which changes the tools
        // block and re-bills the whole prompt. A required server is waited for.
        required: 'true',
      }),
    ],
    // The secret is in codex's environment, which the commands the model runs inherit (0.169.0
    // keeps no name out by default: `ignore_default_excludes = true`), and what they print goes
    // upstream: the run's variables are kept out of them, after the person's own patterns.
    [
      'shell_environment_policy.exclude',
      `[${[...plan.shellExclude, 'TOOLMASK_*'].map(tomlString).join(', ')}]`,
    ],
    // Codex 0.169.0 sets the terminal title (the folder, a spinner) over the launcher's, which
    // says where the dashboard is; an empty list of title items makes it set none (issue 35).
    ...(plan.ownTitle ? [] : [['tui.terminal_title', '[]'] as [string, string]]),
  ]);
  if (plan.provider === 'openai') {
    // OpenAI's own provider, but for the base URL and the transport. A ChatGPT login gets another
    // name: under the name "OpenAI" codex compresses a ChatGPT request body (zstd), which the
    // gateway could not read.
    const provider = inlineTable({
      name: tomlString(plan.auth === 'chatgpt' ? 'OpenAI (ChatGPT) through toolmask' : 'OpenAI'),
      base_url: baseUrl,
      wire_api: tomlString('responses'),
      requires_openai_auth: 'true',
      supports_websockets: 'false',
      env_http_headers: inlineTable({
        'OpenAI-Organization': tomlString('OPENAI_ORGANIZATION'),
        'OpenAI-Project': tomlString('OPENAI_PROJECT'),
        [SESSION_HEADER]: session,
      }),
    });
    return [
      ...overrides([
        ['model_provider', tomlString(CODEX_OPENAI_PROVIDER)],
        [`model_providers.${CODEX_OPENAI_PROVIDER}`, provider],
      ]),
      ...mcp,
    ];
  }
  const key = `model_providers.${plan.provider}`;
  return [
    ...overrides([
      ['model_provider', tomlString(plan.provider)],
      [`${key}.base_url`, baseUrl],
      [`${key}.supports_websockets`, 'false'],
      [`${key}.env_http_headers.${SESSION_HEADER}`, session],
      // Codex recognises an Azure endpoint by its URL (it shapes requests for it), or by the name.
      ...(plan.azure ? [[`${key}.name`, tomlString('azure')] as [string, string]] : []),
    ]),
    ...mcp,
  ];
}

export interface CodexLaunch {
  env: Environment;
  args: string[];
  summary: string;
  cleanup(): Promise<string[]>;
}

export function prepareCodexLaunch(options: {
  env: Environment;
  gateway: GatewayAccess;
  sessionId: string;
  plan: CodexPlan;
}): CodexLaunch {
  const { env, gateway, plan } = options;
  const shownProvider =
    plan.provider === 'openai'
      ? `openai, ${plan.auth === 'chatgpt' ? 'ChatGPT login' : 'API key'}`
      : plan.provider;
  return {
    env: {
      ...env,
      [CODEX_SESSION_VARIABLE]: options.sessionId,
      [CODEX_TOKEN_VARIABLE]: gateway.accessSecret,
      ...loopbackNoProxy(env),
    },
    // Root options first: they apply to every subcommand; the person's routing overrides before
    // the launcher's, so that the route to the gateway is the last word.
    args: ['--no-daemon', ...plan.routingArgs, ...codexOverrides(plan, gateway.url), ...plan.args],
    summary: launchBanner('codex', gateway, shownUrl(plan.upstream), shownProvider),
    cleanup: () => Promise.resolve([]),
  };
}

/** `toolmask codex`: the plan, then codex set up against the run's gateway (nothing written). */
export async function launchCodex(request: LaunchRequest): Promise<PlannedLaunch> {
  const plan = await planCodexLaunch(request.env, request.cwd, request.args);
  return {
    upstreams: plan.upstreams,
    prepare: ({ gateway, sessionId }) =>
      Promise.resolve(prepareCodexLaunch({ env: request.env, gateway, sessionId, plan })),
  };
}
