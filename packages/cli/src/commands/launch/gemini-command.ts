/**
 * `toolmask gemini [gemini args...]`: the person's own `gemini`, routed through the gateway for
 * this run (started here, or the one already running for the state folder), with read-back over
 * MCP; nothing in their files is edited. Everything after the command goes to gemini as it is
 * (`toolmask gemini -- --help` shows gemini's help).
 */
import { Command } from 'commander';
import {
  GeminiLaunchError,
  defaultStateDir,
  geminiUpstreamsFrom,
  launchClient,
  prepareGeminiLaunch,
} from '@toolmask/gateway';
import { usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';

interface GeminiCommandOptions {
  geminiBin?: string;
  stateDir?: string;
  maskingSettings?: string;
  keepClientMasking?: boolean;
}

const EXAMPLES = `
Examples:
  $ toolmask gemini
      the interactive gemini UI, through the gateway
  $ toolmask gemini -m gemini-2.5-pro -p "explain the failing test"
  $ toolmask gemini -- --help
      gemini's own help

Works with the three auth types of gemini-cli: API key (GEMINI_API_KEY), Vertex AI and Login with
Google. The gateway masks old tool outputs in every request (settings: experimental.toolOutputMasking
in ~/.gemini/settings.json); the model reads them back with mcp_toolmask_read_tool_output.
Exit code: gemini's own (127 when gemini is not installed).`;

export function createGeminiCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('gemini')
    .description(
      'Run your own gemini through the local gateway (masking, read-back over MCP, real usage).',
    )
    .argument('[args...]', 'arguments for gemini')
    .option(
      '--gemini-bin <path>',
      'the gemini executable (default: gemini on PATH, or $TOOLMASK_GEMINI_BIN)',
    )
    .option('--state-dir <dir>', 'the gateway state folder (default ~/.toolmask/gateway)')
    .option(
      '--masking-settings <file>',
      'settings.json for a gateway this run starts (default ~/.gemini/settings.json)',
    )
    .option(
      '--keep-client-masking',
      "leave gemini's own masking on as well (API key and Vertex AI; for measuring the two together)",
    )
    .allowUnknownOption()
    .passThroughOptions()
    .addHelpText('after', EXAMPLES)
    .action(async (args: string[], options: GeminiCommandOptions) => {
      const stateDir = options.stateDir ?? defaultStateDir(io.env);
      try {
        setExitCode(
          await launchClient({
            client: 'gemini',
            bin: options.geminiBin ?? io.env['TOOLMASK_GEMINI_BIN'] ?? 'gemini',
            args,
            env: io.env,
            cwd: io.cwd,
            stateDir,
            upstreams: geminiUpstreamsFrom(io.env, io.cwd),
            ...(options.maskingSettings ? { gatewaySettingsFile: options.maskingSettings } : {}),
            say: (line) => io.stderr.write(`${line}\n`),
            setup: async (gatewayUrl, sessionId) => {
              const launch = await prepareGeminiLaunch({
                env: io.env,
                cwd: io.cwd,
                gatewayUrl,
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
          }),
        );
      } catch (error) {
        if (error instanceof GeminiLaunchError) throw usageError(error.message);
        throw error;
      }
    });
}
