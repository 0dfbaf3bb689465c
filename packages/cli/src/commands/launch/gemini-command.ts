/**
 * `toolmask gemini [gemini args...]`: the person's own `gemini`, routed through the gateway for
 * this run (a private one started here, or a `toolmask gateway` running for the state folder),
 * with read-back over MCP; nothing in their files is edited. Everything after the command goes to
 * gemini as it is (`toolmask gemini -- --help` shows gemini's help).
 */
import type { Command } from 'commander';
import type { CliIo } from '../../cli-io.js';
import { launchAction, launcherCommand, type LauncherOptions } from './launcher-command.js';

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

export function createGeminiCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return launcherCommand(
    'gemini',
    'Run your own gemini through the local gateway (masking, read-back over MCP, real usage).',
    EXAMPLES,
  )
    .option(
      '--keep-client-masking',
      "leave gemini's own masking on as well (API key and Vertex AI; for measuring the two together)",
    )
    .action(
      launchAction(
        'gemini',
        io,
        setExitCode,
        async (_args, options: LauncherOptions & { keepClientMasking?: boolean }) => {
          const { planGeminiLaunch, prepareGeminiLaunch } =
            await import('../../launch/gemini-launch.js');
          const plan = await planGeminiLaunch(io.env, io.cwd);
          return {
            upstreams: plan.upstreams,
            setup: async (gateway, sessionId, stateDir) => {
              const launch = await prepareGeminiLaunch({
                env: io.env,
                cwd: io.cwd,
                plan,
                gateway,
                stateDir,
                sessionId,
                keepClientMasking: options.keepClientMasking === true,
              });
              return {
                env: launch.env,
                summary: launch.summary,
                cleanup: () => launch.overlay.restore(),
              };
            },
          };
        },
      ),
    );
}
