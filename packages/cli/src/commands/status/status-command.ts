/** Declares `toolmask status` (options, help, examples) and hands over to `runStatus`. */
import { Command } from 'commander';
import type { CliIo } from '../../cli-io.js';
import type { StatusOptions } from './run-status.js';

const EXAMPLES = `
Examples:
  $ toolmask status
  $ toolmask status --state-dir ~/.toolmask/gateway --json

Finds the gateway running for the state folder (toolmask gateway, announced in its gateway.json)
and prints what it did since it started: requests, outputs masked, net billed against no masking
(from the provider's usage), cache hits (the provider's own count), and its dashboard's address. A toolmask gemini or
toolmask qwen run without a toolmask gateway has a private one, which prints the run's figures
when the client exits.
It also prints which masking settings file applies to each client (the first that holds some:
--masking-settings FILE, the client's own toolmask.json, ~/.gemini/settings.json; else the
defaults), and the files there; a file the launcher would refuse (exit 2) is said as refused, with
why; in --json, under maskingSettings. Without a gateway, only that.
Exit codes: 0 printed, 1 no gateway running (or it gave no figures), 2 bad usage.`;

export function createStatusCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('status')
    .description(
      "Show a running gateway's savings: requests, outputs masked, net billed against no masking, cache hits.",
    )
    .option('--state-dir <dir>', 'the gateway state folder (default ~/.toolmask/gateway)')
    .option('--json', 'print the figures as JSON')
    .addHelpText('after', EXAMPLES)
    .action(async (options: StatusOptions) => {
      // Loaded when run: the gateway's code costs every other command a second at start.
      const { runStatus } = await import('./run-status.js');
      setExitCode(await runStatus(options, io));
    });
}
