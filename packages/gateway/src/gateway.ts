/**
 * `createGateway(options)`: the gateway as a request handler, with no listener of its own, so
 * tests drive the very same code on any server and the CLI (`toolmask gateway`, the launchers)
 * listens with it (listen-gateway.ts). It wires the stores, the conversations and the pipeline, and
 * answers every request from one route table (server/route-table.ts):
 *
 * `/healthz`; the dashboard at `/` with its API under `/api/` (dashboard/); `GET /metrics`
 * (Prometheus); `/mcp` (read-back over MCP); everything else is a model API request
 * (pipeline/handle-model-request.ts), forwarded to its upstream and masked when it carries a
 * conversation. With an auth token, every route but `/healthz` requires it (server/access.ts):
 * `x-toolmask-token: <token>`; on the gateway's own endpoints also `Authorization: Bearer <token>`
 * (on model requests that header is the client's credential for the provider, forwarded
 * untouched), and for the dashboard and `/metrics` the cookie a browser gets from `/?token=<token>`.
 */
import { describeError } from '@toolmask/core/errors';
import { randomBytes, randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { ConversationRegistry } from './conversation/conversation-registry.js';
import { LOCAL_SYNC } from './conversation/conversation-sync.js';
import { SHARED_STORE_SYNC } from './conversation/shared-store-sync.js';
import { createDashboard } from './dashboard/dashboard-routes.js';
import { createGatewaySource } from './dashboard/gateway-source.js';
import {
  DEFAULT_READ_TOOL_NAME,
  DEFAULT_MAX_CONCURRENT_PASSES,
  DEFAULT_RETENTION_DAYS,
  type Gateway,
  type GatewayOptions,
} from './gateway-options.js';
import type { GatewayContext } from './pipeline/gateway-context.js';
import { handleModelRequest } from './pipeline/handle-model-request.js';
import { createMaskingSettingsSource } from './pipeline/masking-settings.js';
import { BodyBudget, PassSlots } from './pipeline/request-bounds.js';
import { matchModelRoute } from './protocols/model-routes.js';
import { ACCESS } from './server/access.js';
import { createMcpEndpoint } from './server/mcp-endpoint.js';
import { RequestsInFlight, serveRoutes, type Route } from './server/route-table.js';
import { openStores } from './state/open-stores.js';
import { scheduleStateRetention } from './state/state-retention.js';
import { DEFAULT_UPSTREAMS, shownUpstreams, type UpstreamUrls } from './upstream/upstreams.js';
import { createGatewayTelemetry } from './usage/gateway-telemetry.js';
import { summaryRoute } from './usage/summary-route.js';
import { UsageTally } from './usage/usage-tally.js';
import { GATEWAY_VERSION } from './version.js';
import type { IncomingMessage } from 'node:http';
import type { DashboardSource } from './dashboard/dashboard-source.js';
import { ownerScopedSource } from './dashboard/owner-scoped-source.js';
import { principalOf } from './server/team-access.js';
import { sharedOutputOpener, teamReadBack } from './server/team-read-back.js';
import { teamSide } from './server/team-side.js';
import { countingFailures, type StoreName } from './state/failure-counting.js';
import type { TeamOptions } from './gateway-options.js';

export function createGateway(options: GatewayOptions): Gateway {
  const log = options.log ?? (() => undefined);
  const now = options._internal?.now ?? Date.now;
  const stateDir = path.resolve(options.stateDir);
  const instanceId = randomUUID();
  const telemetry = createGatewayTelemetry({
    serviceVersion: GATEWAY_VERSION,
    ...(options.otlpEndpoint ? { otlpEndpoint: options.otlpEndpoint } : {}),
    ...(options.team?.instance ? { instance: options.team.instance } : {}),
  });
  const settings = createMaskingSettingsSource(
    options.settingsFile,
    (error) => log(`[toolmask gateway] ${error.message}`),
    (warning) => log(`[toolmask gateway] ${warning.message}`),
  );
  // Stores on shared storage: their failures are counted (/metrics), the requests go on.
  const counted = <T extends object>(store: T, name: StoreName): T =>
    countingFailures(store, name, (failed, operation) =>
      telemetry.recordStoreFailure(failed, operation),
    );
  const given = options.stores && {
    ...options.stores,
    conversations:
      options.stores.conversations && counted(options.stores.conversations, 'conversations'),
    usage: options.stores.usage && counted(options.stores.usage, 'usage'),
  };
  const teamOptions: TeamOptions | undefined = options.team && {
    ...options.team,
    outputs: counted(options.team.outputs, 'outputs'),
    ...(options.team.keys ? { keys: counted(options.team.keys, 'keys') } : {}),
  };
  const stores = openStores(stateDir, given, log);
  const { usage } = stores;
  const team = teamOptions ? teamSide(teamOptions, stores.conversations) : undefined;
  // Where outputs are named: on a team gateway, the same root on every replica, so a snippet's
  // bytes do not depend on which replica made it.
  const outputsDir = teamOptions?.outputs.root ?? stateDir;
  const outputs = teamOptions?.outputs ?? stores.outputs;
  const readToolName = options.readToolName ?? DEFAULT_READ_TOOL_NAME;
  const retentionDays = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const maxRetainedBytes = options.maxRetainedBytes ?? 256 * 1024 * 1024;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  // Room for one largest body at least, so that a body the gateway accepts can always pass alone.
  const maxInFlightBodyBytes = Math.max(maxBodyBytes, options.maxInFlightBodyBytes ?? maxBodyBytes);
  const disableClientMasking = options.disableClientMasking !== false;
  // The running totals for the terminal (GET /api/summary): every record as it is made.
  const tally = new UsageTally();
  const startedAt = now();
  const conversations = new ConversationRegistry({
    maxRetainedBytes,
    maxConversations: 1_024,
    create: (id) => ({
      id,
      host: { getSessionId: () => id, storage: { getProjectTempDir: () => outputsDir } },
      store: stores.conversations,
      // Replicas share a team's store: each pass agrees with the others' decisions.
      sync: options.team ? SHARED_STORE_SYNC : LOCAL_SYNC,
      outputs,
      readToolName,
      ...(options.idleGapMs !== undefined ? { idleGapMs: options.idleGapMs } : {}),
      now,
      telemetry: (event) => telemetry.logEvent(event, { 'session.id': id }),
      debug: log,
    }),
  });
  const upstreams: UpstreamUrls = { ...DEFAULT_UPSTREAMS, ...options.upstreams };
  // A team replica copies a shared output to its disk to read it (server/team-read-back.ts).
  const scratchDir = path.join(stateDir, 'read-back');
  const source = createGatewaySource({
    ...(teamOptions ? { openOutput: sharedOutputOpener(teamOptions.outputs, scratchDir) } : {}),
    stateDir,
    usage,
    conversations: stores.conversations,
    registry: conversations,
    settings,
    gatewaySettings: {
      retentionDays,
      authToken: options.authToken ? 'required' : 'none',
      loopbackOnly: options.loopbackOnly === true,
      ...Object.fromEntries(
        Object.entries(shownUpstreams(upstreams)).map(([name, url]) => [
          `upstream.${name}`,
          url ?? null,
        ]),
      ),
      readToolName,
      disableClientMasking,
      maxBodyBytes,
      maxInFlightBodyBytes,
      maxRetainedBytes,
      idleGapMs: options.idleGapMs ?? null,
      otlpEndpoint: options.otlpEndpoint ?? null,
    },
  });
  // Unset (an embedder's createGateway): a secret nobody was told, but this gateway's handle.
  const accessSecret = options.accessSecret ?? randomBytes(32).toString('hex');
  const rules = {
    ...(team ? { team: team.access } : {}),
    accessSecret,
    ...(options.authToken ? { authToken: options.authToken } : {}),
    ...(options.loopbackOnly ? { loopbackOnly: true } : {}),
  };
  const dashboard = createDashboard({
    source,
    version: GATEWAY_VERSION,
    now,
    ...rules,
    ...(team
      ? {
          scope: (whole: DashboardSource, request: IncomingMessage) =>
            ownerScopedSource(whole, principalOf(request), team.ownerOf),
        }
      : {}),
  });
  const retention = scheduleStateRetention({
    stateDir,
    retentionDays,
    usage,
    conversations: stores.conversations,
    ...(teamOptions ? { sharedOutputs: teamOptions.outputs } : {}),
    inUse: () => conversations.ids(),
    now,
    log,
  });
  const context: GatewayContext = {
    upstreams,
    conversations,
    usage,
    telemetry,
    ...(options._internal?.dispatcher ? { dispatcher: options._internal.dispatcher } : {}),
    now,
    maxBodyBytes,
    bodyBudget: new BodyBudget(maxInFlightBodyBytes),
    passSlots: new PassSlots(
      Math.max(1, options.maxConcurrentPasses ?? DEFAULT_MAX_CONCURRENT_PASSES),
    ),
    disableClientMasking,
    ...(team ? { team: { access: team.access, claim: team.claim } } : {}),
    log,
    maskingConfig: () => settings.config(),
    async recordUsage(record) {
      tally.add(record);
      try {
        await usage.append(record);
        source.changed();
      } catch (error) {
        log(`[toolmask gateway] could not record usage: ${describeError(error)}`);
      }
    },
  };
  const mcp = createMcpEndpoint({
    version: GATEWAY_VERSION,
    // An MCP call does not name its conversation: every session folder of this gateway is open.
    access: () => ({ projectTempDir: stateDir, sessionId: '', allowOtherSessions: true }),
    ...(teamOptions && team
      ? {
          read: teamReadBack({
            outputs: teamOptions.outputs,
            ownerOf: team.ownerOf,
            scratchDir,
          }),
        }
      : {}),
  });

  const inFlight = new RequestsInFlight();
  const routes: Route[] = [
    {
      path: '/healthz',
      access: ACCESS.public,
      handle: (_request, response) => {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 'ok', version: GATEWAY_VERSION, instanceId }));
      },
    },
    summaryRoute(tally, { instanceId, startedAt, now, adminOnly: team !== undefined }),
    ...dashboard.routes,
    {
      path: '/mcp',
      access: ACCESS.tool,
      handle: (request, response) => mcp(request, response, undefined),
    },
    {
      path: '/metrics',
      methods: ['GET'],
      access: ACCESS.metrics,
      handle: (request, response) => telemetry.serveMetrics(request, response),
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

  return {
    stateDir,
    version: GATEWAY_VERSION,
    instanceId,
    accessSecret,
    get inFlight() {
      return inFlight.size;
    },
    handle: serveRoutes({
      routes,
      rules,
      log: (line) => log(`[toolmask gateway] ${line}`),
      inFlight,
    }),
    async close(timeoutMs = 30_000) {
      retention.stop();
      dashboard.close();
      await inFlight.settled(timeoutMs);
      await retention.first;
      await telemetry.shutdown();
    },
    stats: () => ({
      conversations: conversations.size,
      retainedBytes: conversations.retainedBytes(),
    }),
  };
}
