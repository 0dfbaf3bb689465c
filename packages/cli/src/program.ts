/**
 * The `toolmask` program: its commands, help and exit codes. `runCli` is the whole binary minus
 * `process`, so tests run it in-process with fake streams.
 */
import { Command, CommanderError } from 'commander';
import { MissingPackageError } from '@toolmask/core/errors';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { cliDocumentationPath } from './docs-location.js';
import { CLIENTS } from './launch/clients/index.js';
import { CLI_VERSION } from './version.js';

const examples = (documentation: string) => `
Examples:
  $ toolmask replay --compare
  $ toolmask replay --concat 8 --compare ../shared/traces/mini-swe-agent-gemini3pro
  $ toolmask outputs ls
  $ toolmask outputs gc --older-than 30d --dry-run
  $ toolmask dashboard --telemetry-outfile ~/.gemini/telemetry.log

Exit codes: 0 done, 1 failure, 2 bad usage or bad input. A closed pipe (| head) ends output quietly.
Documentation: ${documentation}`;

type CommandFactory = (io: CliIo, setExitCode: (code: number) => void) => Command;

/**
 * The commands in the order help lists them, by name (the name is the command's own), each
 * declaration's module loaded only when the command is declared.
 */
const COMMANDS: ReadonlyArray<readonly [string, () => Promise<CommandFactory>]> = [
  ['replay', async () => (await import('./commands/replay/replay-command.js')).createReplayCommand],
  [
    'outputs',
    async () => (await import('./commands/outputs/outputs-command.js')).createOutputsCommand,
  ],
  [
    'gateway',
    async () => (await import('./commands/gateway/gateway-command.js')).createGatewayCommand,
  ],
  ['keys', async () => (await import('./commands/keys/keys-command.js')).createKeysCommand],
  // One launcher per client of the registry, in its order.
  ...CLIENTS.map(
    (client) =>
      [
        client.name,
        async () => {
          const { createLaunchCommand } = await import('./commands/launch/launch-command.js');
          return (io: CliIo, set: (code: number) => void) => createLaunchCommand(client, io, set);
        },
      ] as const,
  ),
  ['setup', async () => (await import('./commands/setup/setup-command.js')).createSetupCommand],
  ['status', async () => (await import('./commands/status/status-command.js')).createStatusCommand],
  [
    'dashboard',
    async () => (await import('./commands/dashboard/dashboard-command.js')).createDashboardCommand,
  ],
];

/**
 * The program. With `only` (the first argument, when it names a command), only that command is
 * declared: declaring every command's options costs tens of ms of CPU (commander checks each
 * option against the ones before it, and replay has a flag per setting), which a launcher would
 * pay before its client starts. Anything else (no command, help, a typo) declares them all.
 */
export async function createProgram(
  io: CliIo,
  setExitCode: (code: number) => void,
  only?: string,
): Promise<Command> {
  const program = new Command('toolmask')
    // Options after a launcher's name (toolmask gemini -m x) belong to the launched command.
    .enablePositionalOptions()
    .description(
      'Mask old tool outputs for the stock gemini, qwen, claude, opencode and codex commands (a local gateway), see what masking does before turning it on, and find offloaded outputs again.',
    )
    .version(CLI_VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', examples(cliDocumentationPath()));
  const named = COMMANDS.some(([name]) => name === only);
  const declared = COMMANDS.filter(([name]) => !named || name === only);
  const factories = await Promise.all(declared.map(([, load]) => load()));
  for (const create of factories) program.addCommand(create(io, setExitCode));

  const configure = (command: Command) => {
    command.exitOverride().configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
    command.commands.forEach(configure);
  };
  configure(program);
  return program;
}

/** Runs `toolmask` with `args` (without node and script). Resolves to the exit code. */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  let exitCode = EXIT_OK;
  const program = await createProgram(
    io,
    (code) => {
      exitCode = code;
    },
    args[0],
  );
  try {
    await program.parseAsync([...args], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; everything else commander rejects is bad usage.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (error instanceof CliError) {
      io.stderr.write(`toolmask: ${error.message}\n`);
      return error.exitCode;
    }
    // An optional package the command needs is not installed: the person installs it (exit 2).
    if (error instanceof MissingPackageError) {
      io.stderr.write(`toolmask: ${error.message}\n`);
      return EXIT_USAGE;
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr.write(`toolmask: unexpected error: ${message}\n`);
    return EXIT_FAILURE;
  }
}
