/**
 * What `toolmask gemini` and `toolmask qwen` share: the command's shape (everything after its name
 * goes to the client as it is; `--<client>-bin`, `--state-dir`, `--masking-settings`), and the run
 * through `launchClient` (launch/launch-client.ts). Each launcher adds its own options and setup.
 */
import { Command } from 'commander';
import type { UpstreamUrls } from '@toolmask/gateway';
import type { GatewayAccess } from '../../launch/gateway-access.js';
import type { ClientSetup } from '../../launch/launch-client.js';
import { defaultStateDir } from '../../launch/state-dir.js';
import type { CliIo } from '../../cli-io.js';

export interface LauncherOptions {
  stateDir?: string;
  maskingSettings?: string;
  [option: string]: unknown;
}

/** The skeleton of a launcher command; add options and an action to it. */
export function launcherCommand(
  client: 'gemini' | 'qwen',
  description: string,
  examples: string,
): Command {
  return new Command(client)
    .description(description)
    .argument('[args...]', `arguments for ${client}`)
    .option(
      `--${client}-bin <path>`,
      `the ${client} executable (default: ${client} on PATH, or $TOOLMASK_${client.toUpperCase()}_BIN)`,
    )
    .option('--state-dir <dir>', 'the gateway state folder (default ~/.toolmask/gateway)')
    .option(
      '--masking-settings <file>',
      'settings.json for a gateway this run starts (default ~/.gemini/settings.json)',
    )
    .allowUnknownOption()
    .passThroughOptions()
    .addHelpText('after', examples);
}

/** Runs the client through the gateway with `setup`; resolves to the exit code. */
export async function runLauncher(
  client: 'gemini' | 'qwen',
  io: CliIo,
  args: readonly string[],
  options: LauncherOptions,
  upstreams: Partial<UpstreamUrls>,
  setup: (gateway: GatewayAccess, sessionId: string, stateDir: string) => Promise<ClientSetup>,
): Promise<number> {
  // Loaded when run: the gateway's code costs every other command a second at start.
  const { launchClient } = await import('../../launch/launch-client.js');
  const stateDir = options.stateDir ?? defaultStateDir(io.env);
  const bin = options[`${client}Bin`];
  return launchClient({
    client,
    bin: typeof bin === 'string' ? bin : (io.env[`TOOLMASK_${client.toUpperCase()}_BIN`] ?? client),
    args,
    env: io.env,
    cwd: io.cwd,
    stateDir,
    upstreams,
    ...(options.maskingSettings ? { gatewaySettingsFile: options.maskingSettings } : {}),
    say: (line) => io.stderr.write(`${line}\n`),
    setup: (gateway, sessionId) => setup(gateway, sessionId, stateDir),
  });
}
