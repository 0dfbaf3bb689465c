/**
 * `listenGateway(options)`: the gateway on a real port. Binds to loopback unless told otherwise;
 * any other address needs an auth token. A port in use is a `GatewayStartError` (the CLI exits 2).
 * While it listens, `<stateDir>/gateway.json` says where (so `toolmask gemini` can reuse it;
 * running-gateway.ts); `close()` stops accepting, lets requests in flight and their streams
 * finish, flushes telemetry, and removes that file.
 */
import { promises as fs } from 'node:fs';
import { createServer, type Server } from 'node:http';
import * as path from 'node:path';
import { createGateway } from './gateway.js';
import type { Gateway, GatewayOptions } from './gateway-options.js';
import { checkBindable, listenOn } from './server/listen-on.js';
import { isLoopbackHost } from './server/loopback.js';
import {
  findRunningGateway,
  LAUNCHES_FOLDER,
  RUNNING_FILE,
  type RunningFile,
} from './running-gateway.js';
import { describeError } from '@toolmask/core/errors';
import { ensurePrivateDirectory, writeAtomically } from '@toolmask/core/storage';
import { GatewayStartError } from './errors.js';
import { loadAccessSecret } from './state/access-secret.js';
import { shownUpstreams } from './upstream/upstreams.js';
import { DEFAULT_PORT } from './defaults.js';
import { loadOtlpExporters } from './usage/lazy-otlp-exporters.js';
import type { EarlyListener } from './server/early-listener.js';

export interface ListenOptions extends GatewayOptions {
  /** @default 127.0.0.1 */
  host?: string;
  /** 0 picks a free port. @default 8787 */
  port?: number;
  /**
   * Say where it listens in `<stateDir>/gateway.json`, for launchers to reuse. A launcher's own
   * gateway lives only as long as the launcher, so it is not announced (launch-client.ts).
   * @default true
   */
  announce?: boolean;
  /**
   * A launcher's own gateway (not announced): the client it carries, written with where it
   * listens to `<stateDir>/launches/<instance id>.json` while it runs, so `toolmask status` finds
   * it and its dashboard (running-gateway.ts `findLaunchGateways`).
   */
  launchOf?: string;
  /**
   * Longest time a client may take to send a whole request (headers and body); then the
   * connection gets 408 and is closed. Answers are not bounded (a generation streams for minutes).
   * @default 5 minutes
   */
  requestTimeoutMs?: number;
  /**
   * Longest time a client may take to send a request's headers (a few hundred bytes, sent at
   * once by every client); then 408 and the connection is closed, so connections that trickle
   * header lines (a slow-loris) are let go. Never more than `requestTimeoutMs`.
   * @default 10 s on a team replica (anyone who reaches it may open connections), 60 s otherwise
   */
  headersTimeoutMs?: number;
  /**
   * A port bound already (`bindEarlyListener`, by a launcher that started its client before
   * loading the gateway): the gateway takes its connections instead of listening itself; `host`
   * and `port` are the listener's.
   */
  listener?: EarlyListener;
}

/** A 64 MiB body still fits at 0.2 MB/s; a client that trickles bytes does not hold a socket for ever. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5 * 60 * 1000;
/** A team replica's `headersTimeoutMs` (docs/team.md, "Slow clients"). */
export const TEAM_HEADERS_TIMEOUT_MS = 10_000;
/** Node's own `headersTimeout`, kept for a person's gateway. */
const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;

export interface RunningGateway {
  /** `http://host:port` */
  url: string;
  /** The dashboard's address for its owner: `url` with the access secret, exchanged for a cookie. */
  dashboardUrl: string;
  port: number;
  gateway: Gateway;
  server: Server;
  close(timeoutMs?: number): Promise<void>;
}

export async function listenGateway(options: ListenOptions): Promise<RunningGateway> {
  const host = options.host ?? '127.0.0.1';
  checkBindable(host, options.authToken, options.team !== undefined);
  // Before the port is taken: a gateway that cannot keep state must not hold it.
  const stateDir = path.resolve(options.stateDir);
  await checkWritable(stateDir);
  let accessSecret: string;
  try {
    accessSecret = options.accessSecret ?? (await loadAccessSecret(stateDir));
  } catch (error) {
    throw stateError(stateDir, error);
  }
  // Bound to loopback, only requests addressed to a loopback name are answered (a web page's
  // DNS rebinding is not), a team replica's too (issue 33, finding 13); a proxy on the same
  // machine that passes on the team's name has it listed (`allowedHosts`, `--public-host`).
  const loopbackOnly = isLoopbackHost(host);
  // The OTLP exporters are optional packages: one missing is said now, before the port is taken.
  if (options.otlpEndpoint) await loadOtlpExporters();
  const gateway = createGateway({ loopbackOnly, ...options, accessSecret });
  const server = httpServer(gateway, options);
  let bound: { port: number; url: string };
  try {
    bound = options.listener
      ? adopted(options.listener, server)
      : await listenOn(server, host, options.port ?? DEFAULT_PORT);
  } catch (error) {
    await gateway.close(0);
    throw error;
  }
  const { port, url } = bound;
  const runningFile = path.join(gateway.stateDir, RUNNING_FILE);
  const running: RunningFile = {
    url,
    pid: process.pid,
    version: gateway.version,
    startedAt: Date.now(),
    instanceId: gateway.instanceId,
    // Never a password: the file says where requests go, not how to get in there.
    ...(options.upstreams ? { upstreams: shownUpstreams(options.upstreams) } : {}),
    ...(options.settingsFile ? { settingsFile: path.resolve(options.settingsFile) } : {}),
  };
  // The first gateway of a state folder is the one launchers find; a second one (other upstreams)
  // leaves that file alone.
  const announced = options.announce !== false && !(await findRunningGateway(gateway.stateDir));
  const launchFile = announced ? undefined : launchFileOf(gateway, options.launchOf);
  const written = announced ? runningFile : launchFile;
  if (written) {
    try {
      await writeRunningFile(written, { ...running, client: options.launchOf }, gateway.stateDir);
    } catch (error) {
      await stopListening(server, gateway);
      throw stateError(gateway.stateDir, error);
    }
  }

  let closing: Promise<void> | undefined;
  return {
    url,
    dashboardUrl: `${url}/?token=${accessSecret}`,
    port,
    gateway,
    server,
    close(timeoutMs?: number) {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await gateway.close(timeoutMs);
        server.closeAllConnections();
        await stopped;
        await options.listener?.close();
        if (announced) await removeIfOurs(runningFile, gateway.instanceId);
        if (launchFile) await fs.rm(launchFile, { force: true });
      })();
      return closing;
    },
  };
}

/** The gateway's HTTP server, with its bound on a request's time. */
function httpServer(gateway: Gateway, options: ListenOptions): Server {
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const headersTimeout = Math.min(
    requestTimeout,
    options.headersTimeoutMs ??
      (options.team ? TEAM_HEADERS_TIMEOUT_MS : DEFAULT_HEADERS_TIMEOUT_MS),
  );
  return createServer(
    {
      requestTimeout,
      headersTimeout,
      // How often Node looks for requests past their time: often enough for the bound to hold
      // (within a tenth of it; a look goes over the open connections, a few thousand at most).
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, headersTimeout / 10)),
    },
    (request, response) => gateway.handle(request, response),
  );
}

function adopted(listener: EarlyListener, server: Server): { port: number; url: string } {
  listener.adopt(server);
  return { port: listener.port, url: listener.url };
}

function stateError(stateDir: string, error: unknown): GatewayStartError {
  return new GatewayStartError(
    'STATE_UNWRITABLE',
    `cannot write the state folder ${stateDir} (${describeError(error)}); choose another with --state-dir`,
  );
}

/** The state folder made (0700) and written to once, or a `GatewayStartError` that says where. */
async function checkWritable(stateDir: string): Promise<void> {
  const probe = path.join(stateDir, `.write-check-${process.pid}`);
  try {
    await ensurePrivateDirectory(stateDir, { root: stateDir });
    await writeAtomically(probe, '', { root: stateDir });
    await fs.rm(probe, { force: true });
  } catch (error) {
    throw stateError(stateDir, error);
  }
}

async function stopListening(server: Server, gateway: Gateway): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await gateway.close(0);
  await stopped;
}

/** Where a launcher's own gateway says where it listens, when it carries a client. */
function launchFileOf(gateway: Gateway, client: string | undefined): string | undefined {
  if (client === undefined) return undefined;
  return path.join(gateway.stateDir, LAUNCHES_FOLDER, `${gateway.instanceId}.json`);
}

/** Writes a running file (`gateway.json`, or a launch's in `launches/`, made 0700). */
async function writeRunningFile(file: string, content: object, stateDir: string): Promise<void> {
  await ensurePrivateDirectory(path.dirname(file), { root: stateDir });
  await writeAtomically(file, JSON.stringify(content) + '\n', { root: stateDir });
}

/** Removes `gateway.json` unless another gateway has announced itself there since. */
async function removeIfOurs(runningFile: string, instanceId: string): Promise<void> {
  try {
    const current = JSON.parse(await fs.readFile(runningFile, 'utf8')) as Partial<RunningFile>;
    if (current.instanceId !== instanceId) return;
  } catch {
    // Unreadable or torn: not another gateway's announcement either.
  }
  await fs.rm(runningFile, { force: true });
}
