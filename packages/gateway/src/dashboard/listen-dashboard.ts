/**
 * `listenDashboard(options)`: the dashboard alone on a port, over any `DashboardSource` (the
 * CLI's `toolmask dashboard --telemetry-outfile FILE` gives it the outfile's). The same page,
 * API and access rules as the gateway's: loopback by default (own endpoints only for loopback
 * Host names), any other address only with an auth token.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { checkBindable, listenOn } from '../server/listen-on.js';
import { isLoopbackHost } from '../server/loopback.js';
import { GATEWAY_VERSION } from '../version.js';
import type { AccessRules } from '../server/access.js';
import { localTenancy } from '../server/local-tenancy.js';
import { serveRoutes } from '../server/route-table.js';
import { createDashboard } from './dashboard-routes.js';
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
  /** `url` with this dashboard's access secret: opened once, it leaves a cookie. */
  dashboardUrl: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export async function listenDashboard(options: ListenDashboardOptions): Promise<RunningDashboard> {
  const host = options.host ?? '127.0.0.1';
  checkBindable(host, options.authToken);
  const log = options.log ?? (() => undefined);
  // A secret for this run: the page shows outputs, which another local account must not read.
  const accessSecret = randomBytes(32).toString('hex');
  const rules: AccessRules = {
    tenancy: localTenancy({
      accessSecret,
      ...(options.authToken ? { authToken: options.authToken } : {}),
    }),
    cookieKey: accessSecret,
    loopbackOnly: isLoopbackHost(host),
    ...(options.authToken ? { authToken: options.authToken } : {}),
  };
  const dashboard = createDashboard({ source: options.source, version: GATEWAY_VERSION, rules });
  const server = createServer(
    serveRoutes({
      routes: dashboard.routes,
      rules,
      log: (line) => log(`[toolmask dashboard] ${line}`),
    }),
  );
  let bound;
  try {
    bound = await listenOn(server, host, options.port ?? DEFAULT_DASHBOARD_PORT);
  } catch (error) {
    dashboard.close();
    throw error;
  }
  return {
    ...bound,
    dashboardUrl: `${bound.url}/?token=${accessSecret}`,
    server,
    async close() {
      dashboard.close();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopped;
    },
  };
}
