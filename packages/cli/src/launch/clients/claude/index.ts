/**
 * claude (Claude Code, npm @anthropic-ai/claude-code 2.1.328) as toolmask runs it: `toolmask
 * claude` routes the person's own claude through the gateway's Anthropic Messages front for a
 * run, by environment, one extra settings layer and an MCP config (launch.ts); `toolmask setup
 * claude` points it at a gateway for good (setup.ts).
 */
import { defineClient, givesAny } from '../client-adapter.js';

const EXAMPLES = `
Examples:
  $ toolmask claude
      the interactive Claude Code UI, through the gateway
  $ toolmask claude -p "explain the failing test" --allowedTools Bash
  $ toolmask claude -- --help
      claude's own help

Routes the Anthropic API with your own key or login (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, an
apiKeyHelper or claude's login; forwarded, never stored); your ANTHROPIC_BASE_URL, from the
environment or claude's settings, becomes the gateway's upstream. Bedrock, Vertex AI and Foundry
cannot be routed. For the run, claude gets one extra settings layer (--settings), the gateway's MCP
server (--mcp-config) and the read-back tool allowed (--allowedTools); the model reads masked
outputs back with mcp__toolmask__read_tool_output. claude's auto-compact is left as you have it.
Masking settings: ~/.claude/toolmask.json (keys at its top level; $CLAUDE_CONFIG_DIR honoured),
else experimental.toolOutputMasking in ~/.gemini/settings.json, or --masking-settings FILE; a
mistake there stops the launch, exit 2 (toolmask status shows which file applies). When claude
exits, the run's figures are printed; toolmask status shows a running gateway's.
Exit code: claude's own (127 when claude is not installed, 126 when it cannot be run).`;

export const claudeClient = defineClient({
  name: 'claude',
  binary: { command: 'claude', npmPackage: '@anthropic-ai/claude-code' },
  launcher: {
    description:
      'Run your own claude (Claude Code) through the local gateway (masking, read-back over MCP, real usage).',
    examples: EXAMPLES,
    options: [],
    resumeCommand: (session) => `toolmask claude --resume ${session}`,
    // `-p`/`--print`: Claude Code prints the answer and exits.
    headless: (args) => givesAny(args, { options: ['-p', '--print'] }),
  },
  // Its persisted outputs (a Bash output over 30,000 characters), read back and searched too.
  savedOutputs: async (env) => [(await import('./config.js')).claudeProjectsFolder(env)],
  maskingSettings: {
    help: 'a toolmask.json (keys at its top level), or a settings.json (its experimental.toolOutputMasking), a gateway this run starts reads (default ~/.claude/toolmask.json, else ~/.gemini/settings.json)',
    ownFile: async (env) => (await import('../own-settings.js')).ownSettingsFile('claude', env),
  },
  reuse: { apis: ['anthropic'] },
  planLaunch: async (request) => (await import('./launch.js')).launchClaude(request),
  setup: {
    help: `claude: ~/.claude/settings.json gets env.ANTHROPIC_BASE_URL and the read-back tool allowed;
~/.claude.json the MCP server (user scope).`,
    upstreamOption: '--anthropic-upstream',
    plan: async (context) => (await import('./setup.js')).planClaudeSetup(context),
  },
});
