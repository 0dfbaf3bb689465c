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
~/.qwen/.env gets OPENAI_BASE_URL. Start the gateway with --openai-upstream <your provider's URL>.
Without --gateway, setup writes the address of the gateway running for the state folder (from its
gateway.json), else http://127.0.0.1:8787, and says whether a gateway answers there.`;

/** An http:// or https:// URL, or a usage error naming the option. */
function checkGatewayUrl(value: string | undefined): void {
  if (value === undefined) return;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw usageError(
      `--gateway ${JSON.stringify(value)} is not an http:// or https:// URL (e.g. http://127.0.0.1:8787)`,
    );
  }
}

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
    .option(
      '--gateway <url>',
      'the gateway to use (default: the one running for the state folder, from its gateway.json, else http://127.0.0.1:8787)',
    )
    .option(
      '--state-dir <dir>',
      'where the record of the change is kept (default ~/.toolmask/gateway)',
    )
    .addHelpText('after', EXAMPLES)
    .action(
      async (
        client: SetupClient,
        options: { undo?: boolean; gateway?: string; stateDir?: string },
      ) => {
        // Loaded when run: the gateway's code costs every other command a second at start.
        const { applySetup, undoSetup } = await import('../../launch/permanent-setup.js');
        const { chooseGatewayAddress, describeGatewayAddress, probeGateway } =
          await import('./gateway-address.js');
        const stateDir = options.stateDir ?? defaultStateDir(io.env);
        const clientDir =
          client === 'gemini'
            ? geminiDir(io.env)
            : io.env['QWEN_HOME'] || path.join(io.env['HOME'] || os.homedir(), '.qwen');
        try {
          if (options.undo) {
            const report = await undoSetup({ client, stateDir });
            for (const line of report.lines) io.stdout.write(`${line}\n`);
            setExitCode(EXIT_OK);
            return;
          }
          checkGatewayUrl(options.gateway);
          const address = await chooseGatewayAddress(options.gateway, stateDir);
          const probe = await probeGateway(address.url);
          const report = await applySetup({
            client,
            clientDir,
            gatewayUrl: address.url,
            stateDir,
            env: io.env,
            gatewayLines: describeGatewayAddress(address, probe, stateDir, client),
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
