/**
 * codex (npm @openai/codex 0.169.0) as toolmask runs it: `toolmask codex` routes the person's own
 * codex through the gateway's OpenAI Responses front for a run, by `-c` overrides and the
 * environment, nothing written (launch.ts); `toolmask setup codex` points it at a gateway for good
 * in its config.toml (setup.ts).
 */
import { defineClient, givesAny } from '../client-adapter.js';

const EXAMPLES = `
Examples:
  $ toolmask codex
      the interactive codex UI, through the gateway
  $ toolmask codex exec "fix the failing test"
  $ toolmask codex -- --help
      codex's own help

Routes codex's model provider: its built-in OpenAI provider (your API key or ChatGPT login, as
codex signs in; forwarded, never stored) or a provider of your own with a base_url, which becomes
the gateway's upstream. Local (--oss), Bedrock and wire_api = "chat" providers cannot be routed
(exit 2). For the run, codex gets -c overrides (the provider's base URL, a session header, the
gateway's MCP server with its tools approved) and --no-daemon; the access secret is passed in the
environment, never on the command line. The model reads masked outputs back with
mcp__toolmask__read_tool_output. codex's auto-compaction is left as you have it.
Masking settings: ~/.codex/toolmask.json (keys at its top level; $CODEX_HOME honoured),
else experimental.toolOutputMasking in ~/.gemini/settings.json, or --masking-settings FILE; a
mistake there stops the launch, exit 2 (toolmask status shows which file applies). When codex
exits, the run's figures are printed; toolmask status shows a running gateway's.
Exit code: codex's own (127 when codex is not installed, 126 when it cannot be run).`;

export const codexClient = defineClient({
  name: 'codex',
  binary: { command: 'codex', npmPackage: '@openai/codex' },
  launcher: {
    description:
      'Run your own codex (OpenAI Codex CLI) through the local gateway (masking, read-back over MCP, real usage).',
    examples: EXAMPLES,
    options: [],
    resumeCommand: (session) => `toolmask codex resume ${session}`,
    // `codex exec` (alias `e`): no full-screen UI.
    headless: (args) => givesAny(args, { commands: ['exec', 'e'] }),
  },
  maskingSettings: {
    help: 'a toolmask.json (keys at its top level), or a settings.json (its experimental.toolOutputMasking), a gateway this run starts reads (default ~/.codex/toolmask.json, else ~/.gemini/settings.json)',
    ownFile: async (env) => (await import('../own-settings.js')).ownSettingsFile('codex', env),
  },
  reuse: { namedRoutes: true },
  planLaunch: async (request) => (await import('./launch.js')).launchCodex(request),
  setup: {
    help: `codex: ~/.codex/config.toml gets [model_providers.toolmask] and model_provider (or your own
provider's base_url pointed at the gateway) and [mcp_servers.toolmask].`,
    upstreamOption: '--openai-upstream',
    plan: async (context) => (await import('./setup.js')).planCodexSetup(context),
  },
});
