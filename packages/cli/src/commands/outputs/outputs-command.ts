/**
 * Declares `toolmask outputs ls|show|gc` (options, help, examples); each subcommand's run is loaded
 * when it runs.
 */
import { Command, Option } from 'commander';
import type { CliIo } from '../../cli-io.js';
import { parseDuration } from '../../option-parsers.js';
import type { OutputsGcOptions } from './outputs-gc.js';
import type { OutputsLsOptions } from './outputs-ls.js';
import type { OutputsShowOptions } from './outputs-show.js';

/** `gc`'s default age (its runner, outputs-gc.ts, is loaded when the command runs). */
const DEFAULT_GC_AGE = '30d';

const PROJECT_HELP =
  "the project folder, its gemini-cli temp dir, or a tool-outputs folder (default: the current directory's project, and the gateway's state folder)";
const STATE_DIR_HELP =
  "the gateway's state folder, where it saves the outputs it masks (default ~/.toolmask/gateway, and the current directory's project)";

/** `toolmask outputs ls`. */
function addLsCommand(outputs: Command, io: CliIo, setExitCode: (code: number) => void): void {
  outputs
    .command('ls')
    .description(
      'List offloaded outputs with the folder they come from, tool, call id, size and age.',
    )
    .option('--project <dir>', PROJECT_HELP)
    .option('--state-dir <dir>', STATE_DIR_HELP)
    .option('--session <id>', 'only this session (with or without the session- prefix)')
    .option('--all', "also list files toolmask did not write (gemini-cli's own saved outputs)")
    .option('--json', 'print the list as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ toolmask outputs ls
  $ toolmask outputs ls --session 7f3c2a10
  $ toolmask outputs ls --state-dir ~/.toolmask/gateway
  $ toolmask outputs ls --project ./replay-outputs/toolmask --json`,
    )
    .action(async (options: OutputsLsOptions) => {
      const { runOutputsLs } = await import('./outputs-ls.js');
      setExitCode(await runOutputsLs(options, io));
    });
}

/** `toolmask outputs show`. */
function addShowCommand(outputs: Command, io: CliIo, setExitCode: (code: number) => void): void {
  outputs
    .command('show')
    .description('Print one full output: a file path, a call id, or a file name.')
    .argument('<file-or-id>', 'path of an output file, or a call id / file name in the project')
    .option('--project <dir>', PROJECT_HELP)
    .option('--state-dir <dir>', STATE_DIR_HELP)
    .option('--session <id>', 'look only in this session')
    .addHelpText(
      'after',
      `
Examples:
  $ toolmask outputs show ~/.gemini/tmp/my-project/tool-outputs/session-7f3c/read_file.abc.0123456789abcdef.txt
  $ toolmask outputs show run_shell_command-1767000000000-0 --session 7f3c2a10
  $ toolmask outputs show grep_search_call-42 | less`,
    )
    .action(async (target: string, options: OutputsShowOptions) => {
      const { runOutputsShow } = await import('./outputs-show.js');
      setExitCode(await runOutputsShow(target, options, io));
    });
}

/** `toolmask outputs gc`. */
function addGcCommand(outputs: Command, io: CliIo, setExitCode: (code: number) => void): void {
  outputs
    .command('gc')
    .description(
      'Remove session folders whose newest output is older than the limit (never anything outside tool-outputs/).',
    )
    .addOption(
      new Option('--older-than <age>', 'age such as 30d, 12h, 90m, 2w')
        .argParser(parseDuration)
        .default(parseDuration(DEFAULT_GC_AGE), DEFAULT_GC_AGE),
    )
    .option('--dry-run', 'only print what would be removed')
    .option('--project <dir>', PROJECT_HELP)
    .option(
      '--state-dir <dir>',
      `${STATE_DIR_HELP}; left alone while a gateway runs for it (it removes its own)`,
    )
    .addHelpText(
      'after',
      `
Examples:
  $ toolmask outputs gc
  $ toolmask outputs gc --older-than 7d --dry-run
  $ toolmask outputs gc --project ~/work/app --older-than 12h`,
    )
    .action(async (options: OutputsGcOptions) => {
      const { runOutputsGc } = await import('./outputs-gc.js');
      setExitCode(await runOutputsGc(options, io));
    });
}

export function createOutputsCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  const outputs = new Command('outputs')
    .description('Find, print and clean up offloaded tool outputs.')
    .addHelpText(
      'after',
      `
Outputs live in <folder>/tool-outputs/session-<id>/<tool>.<callId>.<hash>.txt. The gateway
(toolmask gateway, toolmask gemini, toolmask qwen) saves them in its state folder,
~/.toolmask/gateway (TOOLMASK_HOME moves ~/.toolmask); the in-process installation in the
project's temp dir, ~/.gemini/tmp/<project> (GEMINI_CLI_HOME moves ~/.gemini). Without
--project or --state-dir, both are looked in, the gateway's first.

Examples:
  $ toolmask outputs ls
  $ toolmask outputs show run_shell_command-1767000000000-0
  $ toolmask outputs gc --older-than 14d --dry-run`,
    );

  addLsCommand(outputs, io, setExitCode);
  addShowCommand(outputs, io, setExitCode);
  addGcCommand(outputs, io, setExitCode);
  return outputs;
}
