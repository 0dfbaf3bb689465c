/**
 * `toolmask setup gemini|qwen [--undo]`: make the plain `gemini` or `qwen` use a gateway that runs
 * on its own (`toolmask gateway`, e.g. a systemd user service), by editing their user settings and
 * `.env` (comments kept, a backup kept, the change recorded so `--undo` puts back exactly it).
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { geminiDir } from '@toolmask/core/storage';
import type { SetupClient } from '../../launch/permanent-setup.js';
import { DEFAULT_PORT } from '@toolmask/gateway/defaults';
import { EXIT_OK, usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { LaunchError } from '../../launch/launch-error.js';
import { defaultStateDir } from '../../launch/state-dir.js';

const EXAMPLES = `
Examples:
  $ toolmask setup gemini
  $ toolmask setup qwen --gateway http://127.0.0.1:9000
  $ toolmask setup gemini --undo

gemini: ~/.gemini/settings.json gets the MCP server (and the API key as the auth type when none is
chosen and GEMINI_API_KEY is set); ~/.gemini/.env the base URLs of the gateway (API key, Vertex AI,
Login with Google) and GEMINI_EXP (gemini's own masking off).
qwen: ~/.qwen/settings.json gets the MCP server, a session header and microcompaction off;
~/.qwen/.env gets OPENAI_BASE_URL. Start the gateway with --openai-upstream <your provider's URL>.`;

function parseClient(value: string): SetupClient {
  if (value !== 'gemini' && value !== 'qwen')
    throw new InvalidArgumentError('expected gemini or qwen.');
  return value;
}

export function createSetupCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('setup')
    .description('Point your plain gemini or qwen at a gateway you keep running (or undo it).')
    .argument('<client>', 'gemini or qwen', parseClient)
    .option('--undo', 'put back what setup changed')
    .option('--gateway <url>', 'the gateway to use', `http://127.0.0.1:${DEFAULT_PORT}`)
    .option(
      '--state-dir <dir>',
      'where the record of the change is kept (default ~/.toolmask/gateway)',
    )
    .addHelpText('after', EXAMPLES)
    .action(
      async (
        client: SetupClient,
        options: { undo?: boolean; gateway: string; stateDir?: string },
      ) => {
        // Loaded when run: the gateway's code costs every other command a second at start.
        const { applySetup, undoSetup } = await import('../../launch/permanent-setup.js');
        const stateDir = options.stateDir ?? defaultStateDir(io.env);
        const clientDir =
          client === 'gemini'
            ? geminiDir(io.env)
            : io.env['QWEN_HOME'] || path.join(io.env['HOME'] || os.homedir(), '.qwen');
        try {
          const report = options.undo
            ? await undoSetup({ client, stateDir })
            : await applySetup({
                client,
                clientDir,
                gatewayUrl: options.gateway.replace(/\/$/, ''),
                stateDir,
                env: io.env,
              });
          for (const line of report.lines) io.stdout.write(`${line}\n`);
          setExitCode(EXIT_OK);
        } catch (error) {
          if (error instanceof LaunchError) throw usageError(error.message);
          throw error;
        }
      },
    );
}
