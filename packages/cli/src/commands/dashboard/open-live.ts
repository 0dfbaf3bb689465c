/**
 * `toolmask dashboard` without `--telemetry-outfile`: the live dashboard of the gateway serving
 * this user, a standalone one (`toolmask gateway`) first, else the newest launcher's own
 * (`toolmask claude`, ... in another terminal). It opens in the browser when there is one
 * (`$BROWSER`, else `xdg-open` with a display, `open` on macOS), unless `--print`; the address is
 * printed either way. The browser is handed a page in the state folder (0600) that forwards to
 * the address, so the access secret is never on a command line, which any local account can read.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { findLaunchGateways, findRunningGateway, loadAccessSecret } from '@toolmask/gateway';
import { EXIT_OK, failure } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { dashboardLink } from '../../launch/gateway-access.js';
import { defaultStateDir } from '../../launch/state-dir.js';

export interface LiveDashboardOptions {
  stateDir?: string;
  print?: boolean;
}

/** The gateway whose dashboard is opened, and which one it is. */
async function liveGateway(stateDir: string): Promise<{ url: string; what: string } | undefined> {
  const running = await findRunningGateway(stateDir);
  if (running) return { url: running.url, what: 'the gateway' };
  const launches = [...(await findLaunchGateways(stateDir))].sort(
    (a, b) => b.startedAt - a.startedAt,
  );
  const newest = launches[0];
  return newest
    ? { url: newest.url, what: `toolmask ${newest.client ?? 'client'}'s own gateway` }
    : undefined;
}

/** The command that opens a page in the person's browser, or undefined when there is none. */
export function browserCommand(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (env['BROWSER']) return env['BROWSER'];
  if (platform === 'darwin') return 'open';
  if (platform === 'win32') return undefined;
  return env['DISPLAY'] || env['WAYLAND_DISPLAY'] ? 'xdg-open' : undefined;
}

/** A page that forwards to `link`, written where only the person can read it. */
async function forwardingPage(stateDir: string, link: string): Promise<string> {
  const file = path.join(stateDir, 'open-dashboard.html');
  const quoted = link.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  await fs.rm(file, { force: true });
  await fs.writeFile(
    file,
    `<!doctype html><meta http-equiv="refresh" content="0; url=${quoted}"><a href="${quoted}">toolmask dashboard</a>\n`,
    { mode: 0o600 },
  );
  return file;
}

function open(command: string, file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, [file], { stdio: 'ignore', detached: true });
    child.on('error', () => resolve(false));
    child.on('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

export async function openLiveDashboard(options: LiveDashboardOptions, io: CliIo): Promise<number> {
  const stateDir = options.stateDir ?? defaultStateDir(io.env);
  const gateway = await liveGateway(stateDir);
  if (!gateway) {
    throw failure(
      `no gateway is running for ${stateDir}: start one with \`toolmask gateway\`, or run a client through one (toolmask claude, codex, opencode, gemini, qwen); gemini-cli's in-process telemetry has its own: toolmask dashboard --telemetry-outfile FILE`,
    );
  }
  let secret: string;
  try {
    secret = await loadAccessSecret(stateDir);
  } catch (error) {
    throw failure(`cannot read the access secret of ${stateDir}: ${(error as Error).message}`);
  }
  const link = dashboardLink({ url: gateway.url, accessSecret: secret });
  io.stdout.write(`${link}\n`);
  const browser = options.print ? undefined : browserCommand(io.env);
  if (browser && (await open(browser, await forwardingPage(stateDir, link)))) {
    io.stderr.write(
      `toolmask dashboard: ${gateway.what} at ${gateway.url}, opened with ${browser}\n`,
    );
  } else if (!options.print) {
    io.stderr.write(
      `toolmask dashboard: ${gateway.what} at ${gateway.url}; no browser here (no DISPLAY or BROWSER): open the address above\n`,
    );
  }
  return EXIT_OK;
}
