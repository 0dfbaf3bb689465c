/** Declares `toolmask dashboard` (options, help, examples) and hands over to `runDashboard`. */
import { Command } from 'commander';
import type { CliIo } from '../../cli-io.js';
import { DEFAULT_DASHBOARD_PORT } from '@toolmask/gateway/defaults';
import { withListenOptions } from '../listen-options.js';
import type { LiveDashboardOptions } from './open-live.js';
import type { DashboardCommandOptions } from './run-dashboard.js';

const EXAMPLES = `
Examples:
  $ toolmask dashboard
      opens the live dashboard of the gateway serving you (toolmask gateway, else the newest
      toolmask claude/codex/opencode/gemini/qwen run's own), or prints its address (--print, or no
      browser: no DISPLAY or BROWSER)
  $ toolmask dashboard --telemetry-outfile ~/.gemini/telemetry.log
      on http://127.0.0.1:8788/, the sessions of gemini-cli runs with the in-process installation
  $ toolmask dashboard --telemetry-outfile telemetry.log --project ~/work/app --port 0

gemini-cli writes the outfile with telemetry on and target local, e.g. in ~/.gemini/settings.json:
  { "telemetry": { "enabled": true, "target": "local", "outfile": "/home/me/.gemini/telemetry.log" } }
The gateway (toolmask gateway) serves the same dashboard at its own address.
Exit codes: 0 stopped by SIGINT/SIGTERM, 1 failure, 2 bad usage (a port in use included).`;

export function createDashboardCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  const command = new Command('dashboard')
    .description(
      "Open the live dashboard of the gateway serving you; with --telemetry-outfile, serve one over gemini-cli's telemetry outfile (the in-process installation).",
    )
    .option(
      '--telemetry-outfile <file>',
      "gemini-cli's telemetry outfile (telemetry.outfile in settings.json): serve its dashboard",
    )
    .option('--print', 'print the live dashboard address only (no browser)')
    .option('--state-dir <dir>', 'the gateway state folder (default ~/.toolmask/gateway)')
    .option(
      '--project <dir>',
      'where the offloaded outputs are: a project folder or its gemini-cli temp dir (default: every project under ~/.gemini/tmp)',
    )
    .option(
      '--settings <file>',
      'settings.json whose experimental.toolOutputMasking is shown (default ~/.gemini/settings.json)',
    );
  return withListenOptions(command, DEFAULT_DASHBOARD_PORT)
    .addHelpText('after', EXAMPLES)
    .action(async (options: Partial<DashboardCommandOptions> & LiveDashboardOptions) => {
      // Loaded when run: the gateway's code costs every other command a second at start.
      if (!options.telemetryOutfile) {
        const { openLiveDashboard } = await import('./open-live.js');
        setExitCode(await openLiveDashboard(options, io));
        return;
      }
      const { runDashboard } = await import('./run-dashboard.js');
      setExitCode(await runDashboard(options as DashboardCommandOptions, io));
    });
}
