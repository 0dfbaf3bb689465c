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
import { findRunningGateway, RUNNING_FILE, type RunningFile } from './running-gateway.js';
import { writeAtomically } from '@toolmask/core/storage';
import { shownUpstreams } from './upstream/upstreams.js';
import { DEFAULT_PORT } from './defaults.js';

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
}

export interface RunningGateway {
  /** `http://host:port` */
  url: string;
  port: number;
  gateway: Gateway;
  server: Server;
  close(timeoutMs?: number): Promise<void>;
}

export async function listenGateway(options: ListenOptions): Promise<RunningGateway> {
  const host = options.host ?? '127.0.0.1';
  checkBindable(host, options.authToken);
  const gateway = createGateway({ loopbackOnly: isLoopbackHost(host), ...options });
  const server = createServer((request, response) => gateway.handle(request, response));
  // Long generations stream for minutes: never time a request out from this side.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  let bound: { port: number; url: string };
  try {
    bound = await listenOn(server, host, options.port ?? DEFAULT_PORT);
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
  };
  // The first gateway of a state folder is the one launchers find; a second one (other upstreams)
  // leaves that file alone.
  const announced = options.announce !== false && !(await findRunningGateway(gateway.stateDir));
  if (announced) await writeAtomically(runningFile, JSON.stringify(running) + '\n');

  let closing: Promise<void> | undefined;
  return {
    url,
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
        if (announced) await removeIfOurs(runningFile, gateway.instanceId);
      })();
      return closing;
    },
  };
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
