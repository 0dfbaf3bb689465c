/**
 * `toolmask setup codex`: Codex 0.169.0 reads its settings from `~/.codex/config.toml` (or
 * `$CODEX_HOME/config.toml`; verified with the binary, `setup.e2e.test.ts`). Setup edits it
 * as text (files/toml-text.ts, setup/toml-changes.ts), keeping every byte of the person's where it was:
 *
 * - **Routing.** With OpenAI's own provider (no `model_provider`, or `"openai"`), a provider of
 *   toolmask's is added, `[model_providers.toolmask]` (`base_url` the gateway's OpenAI route,
 *   `env_key = "OPENAI_API_KEY"`, `wire_api = "responses"`; with a ChatGPT sign-in in
 *   `auth.json`, as the launcher routes it: codex's own login by `requires_openai_auth = true`,
 *   upstream https://chatgpt.com/backend-api/codex), and `model_provider = "toolmask"` set
 *   (the line replaced in place, or inserted after the top-level keys). With a provider of the
 *   person's own (`model_provider = "x"` and a `[model_providers.x]` table), that table's
 *   `base_url` is pointed at the gateway instead, in place: their key, headers and wire API stay.
 * - **Read-back.** `[mcp_servers.toolmask]`: `url`, `http_headers` with the access secret, and
 *   `default_tools_approval_mode = "approve"` (`codex exec` refuses an MCP call without it), and
 *   `required = true` (codex waits for the tool before its first request, see launch.ts). The
 *   secret in it: the file is left 0600.
 *
 * The upstream is the provider's `base_url`, or for OpenAI's own `openai_base_url`, else
 * https://api.openai.com/v1: codex 0.169.0 ignores `OPENAI_BASE_URL` in the environment (a real
 * `codex exec` with it set still went to api.openai.com), so setup does too.
 *
 * Refused, before anything is written: a file that already has a `model_providers.toolmask` or
 * `mcp_servers.toolmask` of any form, or `model_providers`/`mcp_servers` as an inline table (no
 * table can be added to one); a provider setup cannot point elsewhere (a built-in one such as
 * `ollama`, or one written as dotted keys); a file it cannot follow as TOML, or that smol-toml
 * does not parse (codex would refuse it), before or after the change. The provider's base URL
 * must be the gateway's `--openai-upstream`, checked as for the other clients.
 *
 * Profiles are files of their own in 0.169.0 (`$CODEX_HOME/<name>.config.toml`, chosen by
 * `codex --profile <name>`; a legacy `profile = "x"` in config.toml is refused by codex itself):
 * one that sets `model_provider`, `model_providers` or `openai_base_url` can take a run around the
 * gateway. Setup leaves them alone and warns, naming each.
 */
import * as path from 'node:path';
import {
  scanToml,
  stringValue,
  TomlScanError,
  type TomlPair,
  type TomlStatement,
} from '../../files/toml-scanner.js';
import { fullKey, startsWithPath, tomlProblem, topLevelPair } from '../../files/toml-text.js';
import { tomlString } from '../../files/toml-values.js';
import { accessHeaders, shownUrl, type GatewayAccess } from '../../gateway-access.js';
import type { SetupChange } from '../../setup/setup-changes.js';
import { checkOpenaiUpstream, openaiRoute, type SetupContext } from '../../setup/setup-context.js';
import { readSetupFile, SetupError, type SetupFile } from '../../setup/setup-files.js';
import type { ClientPlan } from '../../setup/setup-plan.js';
import { codexHome, openaiAuth, profileWarnings, projectWarnings } from './config.js';

const OPENAI_DEFAULT = 'https://api.openai.com/v1';
const CHATGPT_API = 'https://chatgpt.com/backend-api/codex';
const PROVIDER = 'toolmask';

function statementPath(statement: TomlStatement): string[] {
  return statement.kind === 'pair' ? fullKey(statement) : statement.path;
}

/** The reason the file cannot take setup's tables, or undefined. */
function conflict(statements: TomlStatement[]): string | undefined {
  for (const statement of statements) {
    const keyPath = statementPath(statement);
    for (const taken of [
      ['model_providers', PROVIDER],
      ['mcp_servers', PROVIDER],
    ]) {
      if (startsWithPath(keyPath, taken)) {
        return `it already has ${taken.join('.')} (${statement.kind === 'pair' ? `the key ${keyPath.join('.')}` : `the table [${keyPath.join('.')}]`})`;
      }
    }
    if (
      statement.kind === 'pair' &&
      keyPath.length === 1 &&
      ['model_providers', 'mcp_servers'].includes(keyPath[0]!)
    ) {
      return `it has ${keyPath[0]} as an inline table, to which no table can be added`;
    }
  }
  return undefined;
}

function tablePair(
  statements: TomlStatement[],
  table: string[],
  key: string,
): TomlPair | undefined {
  return statements.find(
    (statement): statement is TomlPair =>
      statement.kind === 'pair' &&
      statement.key.length === 1 &&
      statement.key[0] === key &&
      statement.table.join('\0') === table.join('\0'),
  );
}

function tables(...lines: string[][]): string {
  return lines.map((table) => table.join('\n') + '\n').join('\n');
}

/** The person's `config.toml` as setup found it: refused when setup cannot follow or edit it. */
interface FoundConfig {
  file: string;
  original: SetupFile | undefined;
  text: string;
  statements: TomlStatement[];
  /** A `SetupError` for a reason the file cannot take setup's change. */
  refuse(why: string): SetupError;
}

async function readConfig(file: string): Promise<FoundConfig> {
  const original = await readSetupFile(file);
  const text = original?.bytes.toString('utf8') ?? '';
  let statements: TomlStatement[];
  try {
    statements = scanToml(text);
  } catch (error) {
    if (!(error instanceof TomlScanError)) throw error;
    throw new SetupError(
      `${file}: cannot read it as TOML (${error.message}); toolmask setup edits only a file it can follow. Make the change yourself (docs/gateway.md shows it)`,
    );
  }
  const refuse = (why: string) =>
    new SetupError(
      `${file}: ${why}; nothing was changed. Make the change yourself (docs/gateway.md shows it), or fix the file and run setup again`,
    );
  const problem = tomlProblem(text);
  if (problem) {
    throw new SetupError(
      `${file} is not valid TOML (${problem}); codex would refuse it too, and nothing was changed. Fix the file and run setup again`,
    );
  }
  const taken = conflict(statements);
  if (taken) throw refuse(taken);
  return { file, original, text, statements, refuse };
}

/** How the requests are routed: setup's change, the table it adds (if any), where they went. */
interface Routing {
  change: SetupChange;
  providerTable?: string[];
  upstream: string;
  where: string;
}

/**
 * The table of toolmask's provider for OpenAI's own: an API key from `OPENAI_API_KEY`; a ChatGPT
 * sign-in as the launcher routes it (codex's own login, `requires_openai_auth`, under another name
 * than "OpenAI", which would have codex compress the body, and no WebSocket attempts).
 */
function openaiProviderTable(baseUrl: string, chatgpt: boolean): string[] {
  const url = `base_url = ${tomlString(baseUrl)}`;
  if (!chatgpt) {
    return [
      `[model_providers.${PROVIDER}]`,
      'name = "OpenAI through toolmask"',
      url,
      'env_key = "OPENAI_API_KEY"',
      'wire_api = "responses"',
    ];
  }
  return [
    `[model_providers.${PROVIDER}]`,
    'name = "OpenAI (ChatGPT) through toolmask"',
    url,
    'wire_api = "responses"',
    'requires_openai_auth = true',
    'supports_websockets = false',
  ];
}

/** OpenAI's own provider: a provider of toolmask's, and `model_provider` naming it. */
function openaiRouting(
  found: FoundConfig,
  gateway: GatewayAccess,
  chatgpt: boolean,
  providerRaw?: string,
): Routing {
  const base = topLevelPair(found.statements, 'openai_base_url');
  const baseValue = base && stringValue(found.text.slice(base.valueStart, base.valueEnd));
  const upstream = baseValue || (chatgpt ? CHATGPT_API : OPENAI_DEFAULT);
  return {
    change: {
      kind: 'toml-top',
      key: 'model_provider',
      ...(providerRaw !== undefined ? { before: providerRaw } : {}),
      after: tomlString(PROVIDER),
    },
    providerTable: openaiProviderTable(openaiRoute(gateway.url, upstream), chatgpt),
    upstream,
    where: baseValue
      ? `openai_base_url in ${found.file}`
      : chatgpt
        ? "OpenAI's own provider with your ChatGPT sign-in"
        : "OpenAI's own provider",
  };
}

/** A provider of the person's own: its table's `base_url` pointed at the gateway, in place. */
function ownProviderRouting(found: FoundConfig, gateway: GatewayAccess, provider: string): Routing {
  const { statements, text } = found;
  const table = ['model_providers', provider];
  const hasTable = statements.some(
    (statement) => statement.kind === 'table' && statement.path.join('\0') === table.join('\0'),
  );
  const baseUrl = hasTable ? tablePair(statements, table, 'base_url') : undefined;
  const raw = baseUrl && text.slice(baseUrl.valueStart, baseUrl.valueEnd);
  const value = raw && stringValue(raw);
  if (!value) {
    throw found.refuse(
      `model_provider is "${provider}", which has no [model_providers.${provider}] table with a base_url string here (a built-in provider, or one written another way); setup points a provider's base_url at the gateway, or uses OpenAI's own`,
    );
  }
  if (value.startsWith(gateway.url)) {
    throw found.refuse(
      `[model_providers.${provider}] base_url already points at the gateway (${value})`,
    );
  }
  return {
    change: {
      kind: 'toml-value',
      table,
      key: 'base_url',
      before: raw,
      after: tomlString(openaiRoute(gateway.url, value)),
    },
    upstream: value,
    where: `[model_providers.${provider}] base_url in ${found.file}`,
  };
}

/** `[mcp_servers.toolmask]`: the read-back tool, with the access secret in its headers. */
function mcpTable(gateway: GatewayAccess): string[] {
  const headers = Object.entries(accessHeaders(gateway))
    .map(([name, value]) => `${tomlString(name)} = ${tomlString(value)}`)
    .join(', ');
  return [
    `[mcp_servers.${PROVIDER}]`,
    `url = ${tomlString(`${gateway.url}/mcp`)}`,
    `http_headers = { ${headers} }`,
    'default_tools_approval_mode = "approve"',
    // Codex does not wait for an optional MCP server: the tool would join a later request and
    // re-bill the whole prompt (launch.ts).
    'required = true',
  ];
}

export async function planCodexSetup(context: SetupContext): Promise<ClientPlan> {
  const gateway = await context.gateway();
  const home = codexHome(context.env);
  const found = await readConfig(path.join(home, 'config.toml'));
  const providerPair = topLevelPair(found.statements, 'model_provider');
  const providerRaw =
    providerPair && found.text.slice(providerPair.valueStart, providerPair.valueEnd);
  const provider = providerRaw === undefined ? 'openai' : stringValue(providerRaw);
  if (provider === undefined) {
    throw found.refuse(`model_provider is not a plain string (${providerRaw})`);
  }
  const chatgpt = provider === 'openai' && (await openaiAuth(context.env)) === 'chatgpt';
  const routing =
    provider === 'openai'
      ? openaiRouting(found, gateway, chatgpt, providerRaw)
      : ownProviderRouting(found, gateway, provider);
  const checked = checkOpenaiUpstream(context, 'codex', shownUrl(routing.upstream), routing.where);
  if (checked.refusal) throw new SetupError(checked.refusal);
  const changes: SetupChange[] = [
    routing.change,
    {
      kind: 'toml-tables',
      names: [
        ...(routing.providerTable ? [`model_providers.${PROVIDER}`] : []),
        `mcp_servers.${PROVIDER}`,
      ],
      text: tables(...(routing.providerTable ? [routing.providerTable] : []), mcpTable(gateway)),
    },
  ];
  const notes = checked.note ? [checked.note] : [];
  notes.push(...(await profileWarnings(home)));
  if (context.cwd !== undefined) notes.push(...(await projectWarnings(home, context.cwd)));
  if (provider === 'openai') {
    notes.push(
      chatgpt
        ? `codex keeps its ChatGPT sign-in (${path.join(home, 'auth.json')}); its requests go through the gateway to ${shownUrl(routing.upstream)}.`
        : 'codex now takes its key from OPENAI_API_KEY in the environment (sign in with ChatGPT, `codex login`, and run setup again to route that instead).',
    );
  }
  // [mcp_servers.toolmask] carries the access secret: the file is left 0600.
  return {
    files: [
      {
        file: found.file,
        format: 'toml',
        original: found.original,
        changes,
        holdsAccessSecret: true,
      },
    ],
    notes,
  };
}
