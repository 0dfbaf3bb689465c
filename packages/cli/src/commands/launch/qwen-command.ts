/**
 * `toolmask qwen [qwen args...]`: the person's own `qwen`, routed through the gateway's
 * OpenAI-compatible front for this run, with read-back over MCP; nothing in their files is edited.
 * Everything after the command goes to qwen as it is (`toolmask qwen -- --help` shows qwen's help).
 */
import type { Command } from 'commander';
import type { CliIo } from '../../cli-io.js';
import { launchAction, launcherCommand, type LauncherOptions } from './launcher-command.js';

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

export function createQwenCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return launcherCommand(
    'qwen',
    'Run your own qwen (qwen-code) through the local gateway (masking, read-back over MCP, real usage).',
    EXAMPLES,
  )
    .option('--keep-microcompaction', "leave qwen's own clearing of old tool results on")
    .action(
      launchAction(
        'qwen',
        io,
        setExitCode,
        async (args, options: LauncherOptions & { keepMicrocompaction?: boolean }) => {
          const { planQwenLaunch, prepareQwenLaunch } = await import('../../launch/qwen-launch.js');
          const plan = await planQwenLaunch(io.env, io.cwd, args);
          return {
            upstreams: plan.upstreams,
            setup: (gateway, sessionId, stateDir) =>
              prepareQwenLaunch({
                env: io.env,
                gateway,
                stateDir,
                sessionId,
                plan,
                keepMicrocompaction: options.keepMicrocompaction === true,
              }),
          };
        },
      ),
    );
}
