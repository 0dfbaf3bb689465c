/**
 * `toolmask codex [codex args...]`: the person's own `codex`, its model provider routed through
 * the gateway's OpenAI Responses front for this run, with read-back over MCP; nothing in their
 * files is edited and nothing is written. Everything after the command goes to codex as it is
 * (`toolmask codex -- --help` shows codex's help).
 */
import type { Command } from 'commander';
import type { CliIo } from '../../cli-io.js';
import { launchAction, launcherCommand } from './launcher-command.js';

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
Masking settings: experimental.toolOutputMasking in ~/.gemini/settings.json (or
--masking-settings FILE); a mistake there stops the launch, exit 2. When codex exits, the run's
figures are printed; toolmask status shows a running gateway's.
Exit code: codex's own (127 when codex is not installed, 126 when it cannot be run).`;

export function createCodexCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return launcherCommand(
    'codex',
    'Run your own codex (OpenAI Codex CLI) through the local gateway (masking, read-back over MCP, real usage).',
    EXAMPLES,
  ).action(
    launchAction('codex', io, setExitCode, async (args) => {
      const { planCodexLaunch, prepareCodexLaunch } = await import('../../launch/codex-launch.js');
      const plan = await planCodexLaunch(io.env, io.cwd, args);
      return {
        upstreams: plan.upstreams,
        setup: (gateway, sessionId) =>
          Promise.resolve(prepareCodexLaunch({ env: io.env, gateway, sessionId, plan })),
      };
    }),
  );
}
