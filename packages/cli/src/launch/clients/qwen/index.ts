/**
 * qwen (npm @qwen-code/qwen-code 0.24.4) as toolmask runs it: `toolmask qwen` routes the person's
 * own qwen through the gateway's OpenAI-compatible front for a run, by environment and one extra
 * settings layer (launch.ts); `toolmask setup qwen` points it at a gateway for good (setup.ts).
 * Its masking settings may live in its own settings file (qwen ignores keys it does not know).
 */
import { defineClient, givesAny } from '../client-adapter.js';
import { QWEN_OPTIONS } from './args.js';

const EXAMPLES = `
Examples:
  $ OPENAI_BASE_URL=https://dashscope.aliyuncs.com/compatible-mode/v1 toolmask qwen
  $ toolmask qwen -p "fix the failing test" --auth-type openai --yolo
  $ toolmask qwen -- --help
      qwen's own help

Routes the openai auth type (--openai-base-url, OPENAI_BASE_URL, security.auth.baseUrl or
modelProviders in ~/.qwen/settings.json). Qwen OAuth cannot be routed. qwen's microcompaction is
switched off for the run (it would clear old results for good, at moments of its own);
--keep-microcompaction leaves it on. The model reads masked outputs
back with mcp__toolmask__read_tool_output.
Masking settings: experimental.toolOutputMasking in ~/.qwen/settings.json (qwen ignores the key;
~/.gemini/settings.json is read when only that one has the block); a mistake there stops the
launch, exit 2. qwen's own truncation (tools.truncateToolOutputThreshold) leaves masking little
to do: the launcher says so when it is on. When qwen exits, the run's figures are printed;
toolmask status shows a running gateway's.
Exit code: qwen's own (127 when qwen is not installed, 126 when it cannot be run).`;

export const qwenClient = defineClient({
  name: 'qwen',
  binary: { command: 'qwen', npmPackage: '@qwen-code/qwen-code' },
  launcher: {
    description:
      'Run your own qwen (qwen-code) through the local gateway (masking, read-back over MCP, real usage).',
    examples: EXAMPLES,
    options: QWEN_OPTIONS,
    resumeCommand: (session) => `toolmask qwen --resume ${session}`,
    // `-p`/`--prompt` forces qwen's non-interactive mode.
    headless: (args) => givesAny(args, { options: ['-p', '--prompt'] }),
  },
  maskingSettings: {
    help: "settings.json whose experimental.toolOutputMasking a gateway this run starts reads (default qwen's own ~/.qwen/settings.json; ~/.gemini/settings.json when only that one has the block)",
    ownFile: async (env) => (await import('./config.js')).qwenUserSettingsPath(env),
  },
  reuse: { namedRoutes: true },
  planLaunch: async (request) => (await import('./launch.js')).launchQwen(request),
  setup: {
    help: `qwen: ~/.qwen/settings.json gets the MCP server, a session header and microcompaction off;
~/.qwen/.env gets OPENAI_BASE_URL. Start the gateway with --openai-upstream <your provider's URL>.`,
    plan: async (context) => (await import('./setup.js')).planQwenSetup(context),
  },
});
