/**
 * The gateway's route table, in the order rows are tried (server/route-table.ts): `/healthz`, the
 * terminal's totals, the dashboard and its `/api`, `/mcp`, `/metrics`, and, last, every model
 * request (pipeline/handle-model-request.ts). Who may reach each row is its access
 * (server/access.ts).
 */
import type { Dashboard } from './dashboard/dashboard-routes.js';
import type { GatewayContext } from './pipeline/gateway-context.js';
import { handleModelRequest } from './pipeline/handle-model-request.js';
import { matchModelRoute } from './protocols/model-routes.js';
import { ACCESS } from './server/access.js';
import type { createMcpEndpoint } from './server/mcp-endpoint.js';
import type { Route } from './server/route-table.js';
import { summaryRoute } from './usage/summary-route.js';
import type { UsageTally } from './usage/usage-tally.js';
import { GATEWAY_VERSION } from './version.js';

export interface GatewayRoutesOptions {
  instanceId: string;
  /** The running totals since `startedAt`, for `/api/summary`. */
  tally: UsageTally;
  startedAt: number;
  now: () => number;
  dashboard: Dashboard;
  mcp: ReturnType<typeof createMcpEndpoint>;
  /** What every model request shares. */
  context: GatewayContext;
}

export function gatewayRoutes(options: GatewayRoutesOptions): Route[] {
  const { context, mcp } = options;
  return [
    {
      path: '/healthz',
      access: ACCESS.public,
      handle: (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            status: 'ok',
            version: GATEWAY_VERSION,
            instanceId: options.instanceId,
          }),
        );
      },
    },
    summaryRoute(options.tally, {
      instanceId: options.instanceId,
      startedAt: options.startedAt,
      now: options.now,
    }),
    ...options.dashboard.routes,
    {
      path: '/mcp',
      access: ACCESS.tool,
      handle: (request, response, { principal }) => mcp(request, response, principal),
    },
    {
      path: '/metrics',
      methods: ['GET'],
      access: ACCESS.metrics,
      handle: (request, response) => context.telemetry.serveMetrics(request, response),
    },
    {
      path: '*',
      access: ACCESS.model,
      handle: (request, response) =>
        handleModelRequest(
          context,
          request,
          response,
          matchModelRoute(request.method ?? 'GET', request.url ?? '/'),
        ),
    },
  ];
}
