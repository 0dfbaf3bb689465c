/**
 * `toolmask gateway`: listens until SIGINT or SIGTERM, then lets requests in flight and their
 * streams finish, flushes its state and exits 0. Prints `listening on http://HOST:PORT` on stdout
 * once it accepts connections, and where its dashboard is on stderr; log lines go to stderr
 * (never a header or a body).
 */
import * as path from 'node:path';
import { GatewayStartError, listenGateway, type UpstreamUrls } from '@toolmask/gateway';
import { EXIT_OK, usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { checkMaskingSettings, MaskingSettingsError } from '../../launch/run/masking-settings.js';
import { defaultStateDir } from '../../launch/state-dir.js';
import { refuseIfRunning } from './already-running.js';
import { checkUrl, upstreamsFrom, type GatewayCommandOptions } from './gateway-options.js';
import { holdStateLock } from './state-lock.js';
import { openTeam, plainHttpWarning } from './team-gateway.js';
import { clientSavedOutputs } from '../../launch/clients/index.js';
import { clientSettingsFiles, filesToCheck } from './client-settings.js';

export async function runGateway(options: GatewayCommandOptions, io: CliIo): Promise<number> {
  const authToken = options.authToken ?? io.env['TOOLMASK_GATEWAY_TOKEN'];
  const stateDir = path.resolve(io.cwd, options.stateDir ?? defaultStateDir(io.env));
  const upstreams = upstreamsFrom(options);
  // Without --settings, each request's client reads its own file first (client-settings.ts); a
  // team replica (--store) serves many people: the clients' files of its own home are no one's.
  const ownSettings =
    options.settings === undefined && !options.store ? await clientSettingsFiles(io.env) : {};
  await checkSettings(options, io, ownSettings);
  if (!options.allowSecond) await refuseIfRunning(stateDir, (io.now ?? Date.now)());
  // Held until the gateway has closed: a second start at the same instant is refused here.
  const release = options.allowSecond ? async () => {} : await holdStateLock(stateDir);
  try {
    return await serveGateway(options, io, { stateDir, upstreams, authToken, ownSettings });
  } finally {
    await release();
  }
}

/**
 * The masking settings checked before anything starts, as the launchers check theirs
 * (launch/run/masking-settings.ts): a mistake is exit 2, naming the file, the key and the type.
 * Without `--settings`: gemini's file and the one that applies to each client now.
 */
async function checkSettings(
  options: GatewayCommandOptions,
  io: CliIo,
  ownSettings: Awaited<ReturnType<typeof clientSettingsFiles>>,
): Promise<void> {
  const given = options.settings !== undefined;
  const files = given
    ? [path.resolve(io.cwd, options.settings as string)]
    : await filesToCheck(io.env, ownSettings);
  try {
    const choice = { flag: '--settings', given, what: 'no gateway' };
    for (const file of files) {
      for (const warning of await checkMaskingSettings(file, choice)) {
        io.stderr.write(`toolmask gateway: ${warning}\n`);
      }
    }
  } catch (error) {
    if (error instanceof MaskingSettingsError) throw usageError(error.message);
    throw error;
  }
}

async function serveGateway(
  options: GatewayCommandOptions,
  io: CliIo,
  resolved: {
    stateDir: string;
    upstreams: Partial<UpstreamUrls>;
    authToken: string | undefined;
    ownSettings: Awaited<ReturnType<typeof clientSettingsFiles>>;
  },
): Promise<number> {
  const { stateDir, upstreams, authToken, ownSettings } = resolved;
  const team = await openTeam(options, io);
  let running;
  try {
    running = await listenGateway({
      // A team replica reads only its shared stores; a person's own gateway their clients' files too.
      ...(team
        ? { stores: team.stores, team: team.options }
        : { hostOutputRoots: await clientSavedOutputs(io.env) }),
      ...(team?.allowedHosts.length ? { allowedHosts: team.allowedHosts } : {}),
      host: options.host,
      port: options.port,
      stateDir,
      upstreams,
      ...(options.settings
        ? { settingsFile: options.settings }
        : { clientSettingsFiles: ownSettings }),
      ...(authToken ? { authToken } : {}),
      ...(options.otlpEndpoint
        ? { otlpEndpoint: checkUrl('--otlp-endpoint', options.otlpEndpoint) }
        : {}),
      maxBodyBytes: options.maxBodyMb * 1024 * 1024,
      ...(options.maxInFlightMb !== undefined
        ? { maxInFlightBodyBytes: options.maxInFlightMb * 1024 * 1024 }
        : {}),
      retentionDays: options.retentionDays,
      disableClientMasking: options.keepClientMasking !== true,
      log: (line) => io.stderr.write(`${line}\n`),
    });
  } catch (error) {
    await team?.close();
    if (error instanceof GatewayStartError) throw usageError(error.message);
    throw error;
  }
  io.stdout.write(`listening on ${running.url}\n`);
  if (team) {
    const warning = plainHttpWarning(options.host, options.behindTls);
    if (warning) io.stderr.write(warning);
    io.stderr.write(
      `toolmask gateway: a team replica (${team.description}); every request needs a key. Dashboard: ${running.url}/?token=<your key>\n`,
    );
  } else {
    io.stderr.write(
      `toolmask gateway: dashboard at ${running.dashboardUrl} (open it once: it leaves a cookie; the token is this gateway's access secret, in ${running.gateway.stateDir}/access-secret)\n`,
    );
  }
  const signal = await (io.shutdownSignal?.() ?? new Promise<string>(() => undefined));
  io.stderr.write(`toolmask gateway: ${signal}: finishing requests in flight...\n`);
  await running.close();
  await team?.close();
  return EXIT_OK;
}
