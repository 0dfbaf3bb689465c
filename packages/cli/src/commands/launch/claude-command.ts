/**
 * `toolmask claude [claude args...]`: the person's own `claude` (Claude Code), routed through the
 * gateway's Anthropic Messages front for this run, with read-back over MCP; nothing in their files
 * is edited. Everything after the command goes to claude as it is (`toolmask claude -- --help`
 * shows claude's help).
 */
import type { Command } from 'commander';
import type { CliIo } from '../../cli-io.js';
import { launchAction, launcherCommand } from './launcher-command.js';

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
Masking settings: experimental.toolOutputMasking in ~/.gemini/settings.json (or
--masking-settings FILE); a mistake there stops the launch, exit 2. When claude exits, the run's
figures are printed; toolmask status shows a running gateway's.
Exit code: claude's own (127 when claude is not installed, 126 when it cannot be run).`;

export function createClaudeCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return launcherCommand(
    'claude',
    'Run your own claude (Claude Code) through the local gateway (masking, read-back over MCP, real usage).',
    EXAMPLES,
  ).action(
    launchAction('claude', io, setExitCode, async (args) => {
      const { planClaudeLaunch, prepareClaudeLaunch } =
        await import('../../launch/claude-launch.js');
      const plan = await planClaudeLaunch(io.env, io.cwd, args);
      return {
        upstreams: plan.upstreams,
        setup: (gateway, sessionId, stateDir) =>
          prepareClaudeLaunch({ env: io.env, gateway, stateDir, sessionId, plan }),
      };
    }),
  );
}
