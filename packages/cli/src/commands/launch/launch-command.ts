/**
 * `toolmask <client> [args...]`, one command per client of the registry (launch/clients/): the
 * command's shape (everything after its name goes to the client as it is; `--<client>-bin`,
 * `--state-dir`, `--masking-settings` and the client's own options), the checks made before
 * anything starts or is printed (the client's executable: exit 127 or 126 as a shell would; the
 * masking settings: exit 2), the client's plan (it reads the person's settings and may refuse: a
 * `LaunchError`, exit 2), and the run through `launchClient` (launch/run/launch-client.ts). The
 * command knows the client only through its adapter.
 */
import { Command } from 'commander';
import type { ClientAdapter } from '../../launch/clients/client-adapter.js';
import { LaunchError } from '../../launch/launch-error.js';
import type { PlannedLaunch } from '../../launch/run/launch-plan.js';
import type { TerminalTitle } from '../../launch/run/terminal-title.js';
import { defaultStateDir } from '../../launch/state-dir.js';
import { usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { colorEnabled } from '../../render/color.js';

export interface LauncherOptions {
  stateDir?: string;
  maskingSettings?: string;
  [option: string]: unknown;
}

const MASKING_SETTINGS_HELP =
  'settings.json whose experimental.toolOutputMasking a gateway this run starts reads (default ~/.gemini/settings.json)';

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
  client: ClientAdapter,
  io: CliIo,
  options: LauncherOptions,
  setExitCode: (code: number) => void,
): Promise<LaunchReady | undefined> {
  const { findExecutable, missingExecutableMessage } =
    await import('../../launch/run/find-executable.js');
  const { checkMaskingSettings, maskingSettingsFile } =
    await import('../../launch/run/masking-settings.js');
  const given = options[`${client.name}Bin`];
  const bin =
    typeof given === 'string'
      ? given
      : (io.env[`TOOLMASK_${client.name.toUpperCase()}_BIN`] ?? client.binary.command);
  const lookup = await findExecutable(bin, io.env, io.cwd);
  if (!lookup.found) {
    const packaged = { name: client.name, npmPackage: client.binary.npmPackage };
    io.stderr.write(`${missingExecutableMessage(packaged, bin, lookup)}\n`);
    setExitCode(lookup.exitCode);
    return undefined;
  }
  const file = await maskingSettingsFile(io.env, {
    given: options.maskingSettings,
    ownFile: await client.maskingSettings?.ownFile(io.env),
  });
  const choice = { flag: '--masking-settings', given: options.maskingSettings !== undefined };
  for (const warning of await checkMaskingSettings(file, choice)) {
    io.stderr.write(`toolmask: ${warning}\n`);
  }
  return { bin, maskingSettingsFile: file };
}

/** The run's terminal title (stdout a terminal): set while the client runs, then put back. */
function titleOptions(terminalTitle: (write: (text: string) => void) => TerminalTitle, io: CliIo) {
  const title = terminalTitle((text) => io.stdout.write(text));
  return { setTitle: (text: string) => title.set(text), restoreTitle: () => title.restore() };
}

/** Runs the client through the gateway as `planned`; resolves to the exit code. */
async function runLauncher(
  client: ClientAdapter,
  io: CliIo,
  args: readonly string[],
  options: LauncherOptions,
  ready: LaunchReady,
  planned: PlannedLaunch,
): Promise<number> {
  // Loaded when run: the gateway's code costs every other command a second at start.
  const { launchClient } = await import('../../launch/run/launch-client.js');
  const { terminalTitle } = await import('../../launch/run/terminal-title.js');
  const stateDir = options.stateDir ?? defaultStateDir(io.env);
  return launchClient({
    client: client.name,
    reuse: client.reuse,
    bin: ready.bin,
    args,
    env: io.env,
    cwd: io.cwd,
    stateDir,
    ...(options.stateDir ? { stateDirOption: options.stateDir } : {}),
    upstreams: planned.upstreams,
    gatewaySettingsFile: ready.maskingSettingsFile,
    gatewaySettingsGiven: options.maskingSettings !== undefined,
    color: colorEnabled(io.stderr, io.env),
    say: (line) => io.stderr.write(`${line}\n`),
    ...((io.stdout as { isTTY?: boolean }).isTTY ? titleOptions(terminalTitle, io) : {}),
    ...(client.launcher.resumeCommand ? { resumeCommand: client.launcher.resumeCommand } : {}),
    // Nothing full-screen is drawn on stderr: a fault may be said there as it happens.
    headless: client.launcher.headless?.(args) === true || io.stderr.isTTY !== true,
    hostOutputRoots: (await client.savedOutputs?.(io.env)) ?? [],
    setup: (gateway, sessionId) => planned.prepare({ gateway, sessionId, stateDir }),
  });
}

/** `toolmask <client>`: the command made from the client's adapter. */
export function createLaunchCommand(
  client: ClientAdapter,
  io: CliIo,
  setExitCode: (code: number) => void,
): Command {
  const { name } = client;
  const command = new Command(name)
    .description(client.launcher.description)
    .argument('[args...]', `arguments for ${name}`)
    .option(
      `--${name}-bin <path>`,
      `the ${name} executable (default: ${client.binary.command} on PATH, or $TOOLMASK_${name.toUpperCase()}_BIN)`,
    )
    .option('--state-dir <dir>', 'the gateway state folder (default ~/.toolmask/gateway)')
    .option('--masking-settings <file>', client.maskingSettings?.help ?? MASKING_SETTINGS_HELP)
    .allowUnknownOption()
    .passThroughOptions()
    .addHelpText('after', client.launcher.examples);
  for (const option of client.launcher.options) command.option(option.flags, option.description);
  return command.action(async (args: string[], options: LauncherOptions) => {
    try {
      // What cannot be launched is said before any gateway starts.
      const ready = await checkLaunch(client, io, options, setExitCode);
      if (!ready) return;
      const planned = await client.planLaunch({ env: io.env, cwd: io.cwd, args, options });
      setExitCode(await runLauncher(client, io, args, options, ready, planned));
    } catch (error) {
      if (error instanceof LaunchError) throw usageError(error.message);
      throw error;
    }
  });
}
