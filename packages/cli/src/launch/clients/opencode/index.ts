/**
 * opencode (npm opencode-ai 1.18.33) as toolmask runs it: `toolmask opencode` routes the
 * OpenAI-compatible providers of the person's own opencode through the gateway's chat completions
 * front for a run, by one config layer in the environment (launch.ts); `toolmask setup opencode`
 * points them at a gateway for good (setup.ts).
 */
import { defineClient, givesAny } from '../client-adapter.js';

const EXAMPLES = `
Examples:
  $ toolmask opencode
      the interactive opencode UI, through the gateway
  $ toolmask opencode run "fix the failing test" -m myprovider/my-model
  $ toolmask opencode -- --help
      opencode's own help

Routes the OpenAI-compatible providers of your opencode config ("npm": "@ai-sdk/openai-compatible"
with "options": { "baseURL": … }), each base URL the gateway's upstream, and opencode's own
anthropic, openai (API key or ChatGPT sign-in), google and github-copilot providers to the
matching front; a model of another provider cannot be routed (exit 2). For the run, opencode gets one extra config layer
(OPENCODE_CONFIG_CONTENT) with the routes, a session header and the gateway's MCP server; the model
reads masked outputs back with toolmask_read_tool_output. opencode's prune (compaction.prune, off by
default) is left as you set it, and said at launch when it is on.
Masking settings: ~/.config/opencode/toolmask.json (keys at its top level; $OPENCODE_CONFIG_DIR
and $XDG_CONFIG_HOME honoured), else experimental.toolOutputMasking in ~/.gemini/settings.json, or
--masking-settings FILE; a mistake there stops the launch, exit 2 (toolmask status shows which
file applies). When opencode exits, the run's figures are printed; toolmask status shows a running
gateway's.
Exit code: opencode's own (127 when opencode is not installed, 126 when it cannot be run).`;

export const opencodeClient = defineClient({
  name: 'opencode',
  binary: { command: 'opencode', npmPackage: 'opencode-ai' },
  launcher: {
    description:
      'Run your own opencode through the local gateway (masking, read-back over MCP, real usage).',
    examples: EXAMPLES,
    options: [],
    resumeCommand: (session) => `toolmask opencode -s ${session}`,
    // `opencode run`: no full-screen UI.
    headless: (args) => givesAny(args, { commands: ['run'] }),
  },
  maskingSettings: {
    help: 'a toolmask.json (keys at its top level), or a settings.json (its experimental.toolOutputMasking), a gateway this run starts reads (default ~/.config/opencode/toolmask.json, else ~/.gemini/settings.json)',
    ownFile: async (env) => (await import('../own-settings.js')).ownSettingsFile('opencode', env),
  },
  reuse: { namedRoutes: true },
  planLaunch: async (request) => (await import('./launch.js')).launchOpencode(request),
  setup: {
    help: `opencode: ~/.config/opencode/opencode.json gets the baseURL of your OpenAI-compatible provider and
mcp.toolmask.`,
    upstreamOption: '--openai-upstream',
    plan: async (context) => (await import('./setup.js')).planOpencodeSetup(context),
  },
});
