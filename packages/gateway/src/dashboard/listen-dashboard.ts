/**
 * `listenDashboard(options)`: the dashboard alone on a port, over any `DashboardSource` (the
 * CLI's `toolmask dashboard --telemetry-outfile FILE` gives it the outfile's). The same page,
 * API and access rules as the gateway's: loopback by default (own endpoints only for loopback
 * Host names), any other address only with an auth token.
 */
import { describeError } from '@toolmask/core/errors';
import { createServer, type Server } from 'node:http';
import { checkBindable, listenOn } from '../http/listen-on.js';
import { isLoopbackHost } from '../http/loopback.js';
import { GATEWAY_VERSION } from '../version.js';
import { createDashboardHandler } from './dashboard-handler.js';
import type { DashboardSource } from './dashboard-source.js';
import { DEFAULT_DASHBOARD_PORT } from '../defaults.js';

export interface ListenDashboardOptions {
  source: DashboardSource;
  /** @default 127.0.0.1 */
  host?: string;
  /** 0 picks a free port. @default 8788 */
  port?: number;
  authToken?: string;
  log?: (line: string) => void;
}

export interface RunningDashboard {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export async function listenDashboard(options: ListenDashboardOptions): Promise<RunningDashboard> {
  const host = options.host ?? '127.0.0.1';
  checkBindable(host, options.authToken);
  const log = options.log ?? (() => undefined);
  const dashboard = createDashboardHandler({
    source: options.source,
    version: GATEWAY_VERSION,
    loopbackOnly: isLoopbackHost(host),
    ...(options.authToken ? { authToken: options.authToken } : {}),
  });
  const server = createServer((request, response) => {
    const pathname = (request.url ?? '/').split('?')[0] ?? '/';
    if (!dashboard.owns(pathname)) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    dashboard.handle(request, response).catch((error: unknown) => {
      log(`[toolmask dashboard] request failed: ${describeError(error)}`);
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    });
  });
  let bound;
  try {
    bound = await listenOn(server, host, options.port ?? DEFAULT_DASHBOARD_PORT);
  } catch (error) {
    dashboard.close();
    throw error;
  }
  return {
    ...bound,
    server,
    async close() {
      dashboard.close();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopped;
    },
  };
}
