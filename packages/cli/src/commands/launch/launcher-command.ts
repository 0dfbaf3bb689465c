/**
 * What the launchers (`toolmask gemini`, `qwen`, `claude`, `opencode`, `codex`) share: the command's shape (everything after its name
 * goes to the client as it is; `--<client>-bin`, `--state-dir`, `--masking-settings`), the checks
 * made before anything starts or is printed (the client's executable: exit 127 or 126 as a shell
 * would; the masking settings: exit 2), and the run through `launchClient`
 * (launch/launch-client.ts). Each launcher adds its own options and setup.
 */
import { Command } from 'commander';
import type { UpstreamUrls } from '@toolmask/gateway';
import type { GatewayAccess } from '../../launch/gateway-access.js';
import type { LaunchClientName } from '../../launch/gateway-reuse.js';
import type { ClientSetup } from '../../launch/launch-client.js';
import { LaunchError } from '../../launch/launch-error.js';
import { defaultStateDir } from '../../launch/state-dir.js';
import { usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { colorEnabled } from '../../render/color.js';

export interface LauncherOptions {
  stateDir?: string;
  maskingSettings?: string;
  [option: string]: unknown;
}

/** The skeleton of a launcher command; add options and an action to it. */
export function launcherCommand(
  client: LaunchClientName,
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
      client !== 'qwen'
        ? 'settings.json whose experimental.toolOutputMasking a gateway this run starts reads (default ~/.gemini/settings.json)'
        : "settings.json whose experimental.toolOutputMasking a gateway this run starts reads (default qwen's own ~/.qwen/settings.json; ~/.gemini/settings.json when only that one has the block)",
    )
    .allowUnknownOption()
    .passThroughOptions()
    .addHelpText('after', examples);
}

/** What the checks before a launch found: the executable and the masking settings file. */
export interface LaunchReady {
  bin: string;
  maskingSettingsFile: string;
}

/**
 * The checks made before anything starts or is printed: the client's executable (undefined after
 * saying why it cannot be run, with the exit code set) and the masking settings (a
 * `MaskingSettingsError`, a `LaunchError`, for a mistake; warnings said).
 */
export async function checkLaunch(
  client: LaunchClientName,
  io: CliIo,
  options: LauncherOptions,
  setExitCode: (code: number) => void,
): Promise<LaunchReady | undefined> {
  const { findExecutable, missingExecutableMessage } =
    await import('../../launch/find-executable.js');
  const { checkMaskingSettings, maskingSettingsFile } =
    await import('../../launch/masking-settings.js');
  const given = options[`${client}Bin`];
  const bin =
    typeof given === 'string' ? given : (io.env[`TOOLMASK_${client.toUpperCase()}_BIN`] ?? client);
  const lookup = await findExecutable(bin, io.env, io.cwd);
  if (!lookup.found) {
    io.stderr.write(`${missingExecutableMessage(client, bin, lookup)}\n`);
    setExitCode(lookup.exitCode);
    return undefined;
  }
  const file = await maskingSettingsFile(client, io.env, options.maskingSettings);
  for (const warning of await checkMaskingSettings(file)) io.stderr.write(`toolmask: ${warning}\n`);
  return { bin, maskingSettingsFile: file };
}

/** Runs the client through the gateway with `setup`; resolves to the exit code. */
export async function runLauncher(
  client: LaunchClientName,
  io: CliIo,
  args: readonly string[],
  options: LauncherOptions,
  ready: LaunchReady,
  upstreams: Partial<UpstreamUrls>,
  setup: (gateway: GatewayAccess, sessionId: string, stateDir: string) => Promise<ClientSetup>,
): Promise<number> {
  // Loaded when run: the gateway's code costs every other command a second at start.
  const { launchClient } = await import('../../launch/launch-client.js');
  const stateDir = options.stateDir ?? defaultStateDir(io.env);
  return launchClient({
    client,
    bin: ready.bin,
    args,
    env: io.env,
    cwd: io.cwd,
    stateDir,
    ...(options.stateDir ? { stateDirOption: options.stateDir } : {}),
    upstreams,
    gatewaySettingsFile: ready.maskingSettingsFile,
    color: colorEnabled(io.stderr, io.env),
    say: (line) => io.stderr.write(`${line}\n`),
    setup: (gateway, sessionId) => setup(gateway, sessionId, stateDir),
  });
}

/** What a launcher's plan gives the run: where the client's requests go, and its setup. */
export interface PlannedLaunch {
  upstreams: Partial<UpstreamUrls>;
  setup: (gateway: GatewayAccess, sessionId: string, stateDir: string) => Promise<ClientSetup>;
}

/**
 * The action of a launcher command: the checks before anything starts, the client's own plan
 * (`plan`: it reads the person's settings and may refuse, a `LaunchError`, exit 2), then the run.
 */
export function launchAction<Options extends LauncherOptions>(
  client: LaunchClientName,
  io: CliIo,
  setExitCode: (code: number) => void,
  plan: (args: string[], options: Options) => Promise<PlannedLaunch>,
): (args: string[], options: Options) => Promise<void> {
  return async (args, options) => {
    try {
      // What cannot be launched is said before any gateway starts.
      const ready = await checkLaunch(client, io, options, setExitCode);
      if (!ready) return;
      const planned = await plan(args, options);
      setExitCode(
        await runLauncher(client, io, args, options, ready, planned.upstreams, planned.setup),
      );
    } catch (error) {
      if (error instanceof LaunchError) throw usageError(error.message);
      throw error;
    }
  };
}
