/**
 * `toolmask opencode [opencode args...]`: the person's own `opencode`, its OpenAI-compatible
 * providers routed through the gateway's chat completions front for this run, with read-back over
 * MCP; nothing in their files is edited. Everything after the command goes to opencode as it is
 * (`toolmask opencode -- --help` shows opencode's help).
 */
import type { Command } from 'commander';
import type { CliIo } from '../../cli-io.js';
import { launchAction, launcherCommand } from './launcher-command.js';

const EXAMPLES = `
Examples:
  $ toolmask opencode
      the interactive opencode UI, through the gateway
  $ toolmask opencode run "fix the failing test" -m myprovider/my-model
  $ toolmask opencode -- --help
      opencode's own help

Routes the OpenAI-compatible providers of your opencode config ("npm": "@ai-sdk/openai-compatible"
with "options": { "baseURL": … }), each base URL the gateway's upstream; a model of another
provider cannot be routed (exit 2). For the run, opencode gets one extra config layer
(OPENCODE_CONFIG_CONTENT) with the routes, a session header and the gateway's MCP server; the model
reads masked outputs back with toolmask_read_tool_output. opencode's prune (compaction.prune, off by
default) is left as you set it, and said at launch when it is on.
Masking settings: experimental.toolOutputMasking in ~/.gemini/settings.json (or
--masking-settings FILE); a mistake there stops the launch, exit 2. When opencode exits, the run's
figures are printed; toolmask status shows a running gateway's.
Exit code: opencode's own (127 when opencode is not installed, 126 when it cannot be run).`;

export function createOpencodeCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return launcherCommand(
    'opencode',
    'Run your own opencode through the local gateway (masking, read-back over MCP, real usage).',
    EXAMPLES,
  ).action(
    launchAction('opencode', io, setExitCode, async (args) => {
      const { planOpencodeLaunch, prepareOpencodeLaunch } =
        await import('../../launch/opencode-launch.js');
      const plan = await planOpencodeLaunch(io.env, io.cwd, args);
      return {
        upstreams: plan.upstreams,
        setup: (gateway, sessionId, stateDir) =>
          Promise.resolve(
            prepareOpencodeLaunch({ env: io.env, gateway, sessionId, plan, stateDir }),
          ),
      };
    }),
  );
}
