/**
 * `toolmask setup gemini|qwen|claude|codex|opencode [--undo]`: make the plain client use a gateway
 * that runs on its own (`toolmask gateway`, e.g. a systemd user service), by editing its user
 * settings (comments kept, a backup kept, the change recorded so `--undo` puts back exactly it).
 * gemini and qwen: launch/permanent-setup.ts; claude, codex and opencode: launch/setup-clients.ts.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { geminiDir } from '@toolmask/core/storage';
import type { SetupClient } from '../../launch/permanent-setup.js';
import { SETUP_CLIENTS, type SetupClientName } from '../../launch/setup-clients.js';
import { EXIT_FAILURE, EXIT_OK, usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { LaunchError } from '../../launch/launch-error.js';
import { defaultStateDir } from '../../launch/state-dir.js';

const EXAMPLES = `
Examples:
  $ toolmask setup gemini
  $ toolmask setup qwen --gateway http://127.0.0.1:9000
  $ toolmask setup gemini --undo
  $ toolmask setup claude
  $ toolmask setup codex --undo

gemini: ~/.gemini/settings.json gets the MCP server (and the API key as the auth type when none is
chosen and GEMINI_API_KEY is set); ~/.gemini/.env the base URLs of the gateway (API key, Vertex AI,
Login with Google) and GEMINI_EXP (gemini's own masking off).
qwen: ~/.qwen/settings.json gets the MCP server, a session header and microcompaction off;
~/.qwen/.env gets OPENAI_BASE_URL. Start the gateway with --openai-upstream <your provider's URL>.
claude: ~/.claude/settings.json gets env.ANTHROPIC_BASE_URL and the read-back tool allowed;
~/.claude.json the MCP server (user scope).
codex: ~/.codex/config.toml gets [model_providers.toolmask] and model_provider (or your own
provider's base_url pointed at the gateway) and [mcp_servers.toolmask].
opencode: ~/.config/opencode/opencode.json gets the baseURL of your OpenAI-compatible provider and
mcp.toolmask. claude, codex and opencode: your own base URL must be the gateway's upstream
(--anthropic-upstream, --openai-upstream); setup refuses when the running gateway sends elsewhere.
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

type AnyClient = SetupClient | SetupClientName;

function parseClient(value: string): AnyClient {
  if (value === 'gemini' || value === 'qwen') return value;
  if ((SETUP_CLIENTS as readonly string[]).includes(value)) return value as SetupClientName;
  throw new InvalidArgumentError('expected gemini, qwen, claude, codex or opencode.');
}

const isNewClient = (client: AnyClient): client is SetupClientName =>
  (SETUP_CLIENTS as readonly string[]).includes(client);

export function createSetupCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('setup')
    .description(
      'Point your plain gemini, qwen, claude, codex or opencode at a gateway you keep running (or undo it).',
    )
    .argument('<client>', 'gemini, qwen, claude, codex or opencode', parseClient)
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
        client: AnyClient,
        options: { undo?: boolean; gateway?: string; stateDir?: string },
      ) => {
        // Loaded when run: the gateway's code costs every other command a second at start.
        const { chooseGatewayAddress, describeGatewayAddress, probeGateway } =
          await import('./gateway-address.js');
        const stateDir = options.stateDir ?? defaultStateDir(io.env);
        if (isNewClient(client)) {
          const { applyClientSetup, undoClientSetup } =
            await import('../../launch/setup-clients.js');
          try {
            if (options.undo) {
              const undo = await undoClientSetup({ client, stateDir });
              for (const line of undo.lines) io.stdout.write(`${line}\n`);
              // Every other file is put back; these stay in the record for another --undo.
              for (const line of undo.failures) io.stderr.write(`${line}\n`);
              if (undo.failures.length > 0) {
                io.stderr.write(
                  `${undo.failures.length === 1 ? 'That file was' : 'Those files were'} left as they are: fix what is said and run \`toolmask setup ${client} --undo\` again.\n`,
                );
              }
              setExitCode(undo.failures.length > 0 ? EXIT_FAILURE : EXIT_OK);
              return;
            }
            checkGatewayUrl(options.gateway);
            const address = await chooseGatewayAddress(options.gateway, stateDir);
            const probe = await probeGateway(address.url);
            // The upstreams are known only for the gateway running for the state folder.
            const running = address.running?.url === address.url ? address.running : undefined;
            const { lines } = await applyClientSetup({
              client,
              gatewayUrl: address.url,
              stateDir,
              env: io.env,
              ...(running ? { gatewayUpstreams: running.upstreams ?? {} } : {}),
              gatewayLines: describeGatewayAddress(address, probe, stateDir, client),
            });
            for (const line of lines) io.stdout.write(`${line}\n`);
            setExitCode(EXIT_OK);
          } catch (error) {
            if (error instanceof LaunchError) throw usageError(error.message);
            throw error;
          }
          return;
        }
        const { applySetup, undoSetup } = await import('../../launch/permanent-setup.js');
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
