/**
 * gemini (npm @google/gemini-cli 0.61.0) as toolmask runs it: `toolmask gemini` routes the
 * person's own gemini through the gateway for a run, by environment and a one-run view of its
 * folder (launch.ts); `toolmask setup gemini` points it at a gateway for good (setup.ts). Its
 * requests go to the Gemini API, Vertex AI or Code Assist, by auth type.
 */
import { defineClient, givesAny } from '../client-adapter.js';
import { GEMINI_OPTIONS } from './args.js';

const EXAMPLES = `
Examples:
  $ toolmask gemini
      the interactive gemini UI, through the gateway
  $ toolmask gemini -m gemini-2.5-pro -p "explain the failing test"
  $ toolmask gemini -- --help
      gemini's own help

Works with the three auth types of gemini-cli: API key (GEMINI_API_KEY), Vertex AI and Login with
Google. The gateway masks old tool outputs in every request (settings: experimental.toolOutputMasking
in ~/.gemini/settings.json; a mistake there stops the launch, exit 2); the model reads them back
with mcp_toolmask_read_tool_output. When gemini exits, the run's figures are printed (requests,
outputs masked, tokens kept out, cache hits); toolmask status shows a running gateway's.
Exit code: gemini's own (127 when gemini is not installed, 126 when it cannot be run).`;

export const geminiClient = defineClient({
  name: 'gemini',
  binary: { command: 'gemini', npmPackage: '@google/gemini-cli' },
  launcher: {
    description:
      'Run your own gemini through the local gateway (masking, read-back over MCP, real usage).',
    examples: EXAMPLES,
    options: GEMINI_OPTIONS,
    // `-p`/`--prompt` forces gemini's non-interactive mode (a positional prompt does not).
    headless: (args) => givesAny(args, { options: ['-p', '--prompt'] }),
  },
  reuse: { apis: ['gemini', 'vertex', 'codeAssist'] },
  planLaunch: async (request) => (await import('./launch.js')).launchGemini(request),
  setup: {
    help: `gemini: ~/.gemini/settings.json gets the MCP server (and the API key as the auth type when none is
chosen and GEMINI_API_KEY is set); ~/.gemini/.env the base URLs of the gateway (API key, Vertex AI,
Login with Google) and GEMINI_EXP (gemini's own masking off).`,
    plan: async (context) => (await import('./setup.js')).planGeminiSetup(context),
  },
});
