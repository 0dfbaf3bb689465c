/**
 * `toolmask setup claude`: where Claude Code 2.1.328 reads what it needs for good (verified with
 * the binary, `setup.e2e.test.ts`):
 *
 * - **The base URL**: `env.ANTHROPIC_BASE_URL` of the user settings (`~/.claude/settings.json`, or
 *   `$CLAUDE_CONFIG_DIR/settings.json`) = `<gateway>/anthropic`. The `env` of claude's settings
 *   wins over the environment, so a variable in a shell profile does not undo it.
 * - **The read-back tool**: an MCP server of user scope, which claude keeps in its state file
 *   (`~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json`; an `mcpServers` in settings.json is
 *   ignored): `mcpServers.toolmask` = `{type: "http", url: "<gateway>/mcp", headers}`, as
 *   `claude mcp add --scope user --transport http` writes it. And `permissions.allow` of the user
 *   settings gets `mcp__toolmask__read_tool_output` and `mcp__toolmask__search_tool_outputs`: `claude -p`
 *   denies a tool it was not allowed.
 *
 * The person's own base URL (their settings' `env`, else the environment; default
 * https://api.anthropic.com) must be where the gateway sends the Anthropic API: setup refuses when
 * the gateway running at the address is known to send it elsewhere, and says which
 * `toolmask gateway --anthropic-upstream` to run when the gateway is not known. Bedrock, Vertex AI
 * and Foundry, and a base URL set by managed settings, cannot be routed: refused, as by
 * `toolmask claude`. Claude rewrites `~/.claude.json` as it runs (its counters, its projects), so
 * `--undo` there is the removal of `mcpServers.toolmask`, not the file's old bytes; and its
 * projects' history makes it grow past the 1 MB bound of the other files (`CLAUDE_STATE_MAX_BYTES`).
 * It holds the access secret after setup: left 0600.
 */
import * as path from 'node:path';
import { DEFAULT_UPSTREAMS } from '@toolmask/gateway/launch';
import { parseSettings, readSettingsObject } from '../../files/jsonc-settings.js';
import { accessHeaders, shownUrl, type GatewayAccess } from '../../gateway-access.js';
import { jsonAddItems, jsonSet } from '../../setup/json-changes.js';
import { gatewayCommand, restartSteps, type SetupContext } from '../../setup/setup-context.js';
import { readSetupFile, SetupError } from '../../setup/setup-files.js';
import type { ClientPlan } from '../../setup/setup-plan.js';
import {
  CLAUDE_STATE_MAX_BYTES,
  claudeFolder,
  DEFAULT_MANAGED_SETTINGS,
  envOf,
  globalStateFile,
  isOn,
  OTHER_PROVIDERS,
} from './config.js';

export const CLAUDE_READ_BACK_PERMISSION = 'mcp__toolmask__read_tool_output';
export const CLAUDE_SEARCH_PERMISSION = 'mcp__toolmask__search_tool_outputs';

export { CLAUDE_STATE_MAX_BYTES };

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** Refuses (SetupError) another provider, and a base URL set by managed settings. */
async function refuseUnroutable(
  context: SetupContext,
  settings: Record<string, unknown>,
): Promise<void> {
  const { env } = context;
  const managedFile = env['CLAUDE_CODE_MANAGED_SETTINGS_PATH'] || DEFAULT_MANAGED_SETTINGS;
  const managed = await readSettingsObject(managedFile);
  for (const name of OTHER_PROVIDERS) {
    const value = envOf(managed)[name] ?? envOf(settings)[name] ?? env[name];
    if (isOn(value)) {
      throw new SetupError(
        `claude is set to another provider (${name}); toolmask setup claude routes the Anthropic API only (an API key, a Claude login, or ANTHROPIC_BASE_URL)`,
      );
    }
  }
  if (envOf(managed)['ANTHROPIC_BASE_URL'] !== undefined) {
    throw new SetupError(
      `ANTHROPIC_BASE_URL is set by your organization's managed settings (${managedFile}), which nothing may override; toolmask setup claude cannot point claude at the gateway here`,
    );
  }
}

/**
 * The person's own base URL, which must be where the gateway sends the Anthropic API: a refusal
 * when the running gateway is known to send it elsewhere (or claude already uses the gateway), a
 * note with the command to start the gateway with when it is not known.
 */
function upstreamNotes(
  context: SetupContext,
  gateway: GatewayAccess,
  settings: Record<string, unknown>,
  settingsFile: string,
): string[] {
  const own = envOf(settings)['ANTHROPIC_BASE_URL'];
  const inSettings = typeof own === 'string' && own.trim() !== '';
  const ownUrl = inSettings ? own : context.env['ANTHROPIC_BASE_URL'];
  const where = inSettings
    ? `env.ANTHROPIC_BASE_URL in ${settingsFile}`
    : 'ANTHROPIC_BASE_URL in the environment';
  if (ownUrl && trimSlash(ownUrl).startsWith(gateway.url)) {
    throw new SetupError(
      `claude already sends its requests to the gateway (${where}: ${ownUrl}); nothing to set up. Remove it and run setup again to let setup record it`,
    );
  }
  const upstream = trimSlash(ownUrl || DEFAULT_UPSTREAMS.anthropic);
  const command = gatewayCommand(context, '--anthropic-upstream', shownUrl(upstream));
  if (context.gatewayUpstreams) {
    const gatewaySends = trimSlash(
      context.gatewayUpstreams.anthropic ?? DEFAULT_UPSTREAMS.anthropic,
    );
    if (gatewaySends !== upstream) {
      throw new SetupError(
        `claude sends its requests to ${shownUrl(upstream)}${ownUrl ? ` (${where})` : ''}, but the gateway at ${gateway.url} sends the Anthropic API to ${shownUrl(gatewaySends)}; nothing was changed. ${restartSteps(context, 'claude', command)}`,
      );
    }
    return [];
  }
  return upstream !== DEFAULT_UPSTREAMS.anthropic
    ? [
        `claude sent its requests to ${shownUrl(upstream)} (${where}): start the gateway with \`${command}\`, so that they still go there.`,
      ]
    : [];
}

export async function planClaudeSetup(context: SetupContext): Promise<ClientPlan> {
  const gateway = await context.gateway();
  const settingsFile = path.join(claudeFolder(context.env), 'settings.json');
  const stateFile = globalStateFile(context.env);
  const settingsOriginal = await readSetupFile(settingsFile);
  const settings = parseSettings(settingsOriginal?.bytes.toString('utf8') ?? '', settingsFile);
  const stateOriginal = await readSetupFile(stateFile, CLAUDE_STATE_MAX_BYTES);
  const state = parseSettings(stateOriginal?.bytes.toString('utf8') ?? '', stateFile);
  await refuseUnroutable(context, settings);
  const notes = upstreamNotes(context, gateway, settings, settingsFile);
  return {
    files: [
      {
        file: settingsFile,
        format: 'json',
        original: settingsOriginal,
        changes: [
          jsonSet(settings, ['env', 'ANTHROPIC_BASE_URL'], `${gateway.url}/anthropic`),
          ...jsonAddItems(
            settings,
            ['permissions', 'allow'],
            [CLAUDE_READ_BACK_PERMISSION, CLAUDE_SEARCH_PERMISSION],
            settingsFile,
          ),
        ],
      },
      {
        file: stateFile,
        format: 'json',
        original: stateOriginal,
        maxBytes: CLAUDE_STATE_MAX_BYTES,
        holdsAccessSecret: true,
        changes: [
          jsonSet(state, ['mcpServers', 'toolmask'], {
            type: 'http',
            url: `${gateway.url}/mcp`,
            headers: accessHeaders(gateway),
          }),
        ],
      },
    ],
    notes: [
      ...notes,
      `claude rewrites ${stateFile} as it runs: \`toolmask setup claude --undo\` then removes mcpServers.toolmask from it rather than putting its old bytes back.`,
    ],
  };
}
