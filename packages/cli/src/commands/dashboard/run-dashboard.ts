/**
 * `toolmask dashboard --telemetry-outfile FILE`: serves the gateway's dashboard page over the
 * outfile of the in-process installation until SIGINT or SIGTERM. Prints `listening on
 * http://HOST:PORT` on stdout once it accepts connections; notes go to stderr.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { findProjectTempDir, geminiDir } from '@toolmask/core/storage';
import { GatewayStartError, listenDashboard } from '@toolmask/gateway';
import { EXIT_OK, usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { createOutfileSource } from '../../telemetry-outfile/outfile-source.js';

export interface DashboardCommandOptions {
  telemetryOutfile: string;
  project?: string;
  settings?: string;
  host: string;
  port: number;
  authToken?: string;
}

export async function runDashboard(options: DashboardCommandOptions, io: CliIo): Promise<number> {
  const authToken = options.authToken ?? io.env['TOOLMASK_GATEWAY_TOKEN'];
  const outfile = path.resolve(io.cwd, options.telemetryOutfile);
  let projectTempDir: string | undefined;
  if (options.project) {
    projectTempDir = (await findProjectTempDir(path.resolve(io.cwd, options.project), io.env))?.dir;
    if (!projectTempDir) {
      throw usageError(
        `no gemini-cli temp dir found for ${options.project}; pass the project folder or its temp dir (the one holding tool-outputs/)`,
      );
    }
  }
  const source = createOutfileSource({
    outfile,
    ...(projectTempDir ? { projectTempDir } : {}),
    userSettingsFile: options.settings
      ? path.resolve(io.cwd, options.settings)
      : path.join(geminiDir(io.env), 'settings.json'),
    env: io.env,
  });
  let running;
  try {
    running = await listenDashboard({
      source,
      host: options.host,
      port: options.port,
      ...(authToken ? { authToken } : {}),
      log: (line) => io.stderr.write(`${line}\n`),
    });
  } catch (error) {
    source.close();
    if (error instanceof GatewayStartError) throw usageError(error.message);
    throw error;
  }
  io.stdout.write(`listening on ${running.url}\n`);
  io.stderr.write(
    `toolmask dashboard: ${outfile} at ${running.dashboardUrl} (open it once: it leaves a cookie)\n`,
  );
  // Not an error: gemini creates the file with its first telemetry. But a mistyped path would
  // otherwise show an empty dashboard with no word why.
  if (!existsSync(outfile)) {
    io.stderr.write(
      `toolmask dashboard: ${outfile} does not exist yet; its sessions appear once gemini writes it (telemetry.outfile in settings.json)\n`,
    );
  }
  const signal = await (io.shutdownSignal?.() ?? new Promise<string>(() => undefined));
  io.stderr.write(`toolmask dashboard: ${signal}: stopping\n`);
  source.close();
  await running.close();
  return EXIT_OK;
}
