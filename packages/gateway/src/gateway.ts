/**
 * `createGateway(options)`: the gateway as a request handler, with no listener of its own, so
 * tests drive the very same code on any server and the CLI (`toolmask gateway`, the launchers)
 * listens with it (listen-gateway.ts). It composes one wiring, a single person's
 * (wiring/local-wiring.ts) or a team replica's (wiring/team-wiring.ts: `options.team`), with what
 * every gateway has: the conversations, the dashboard, retention, telemetry and the pipeline, all
 * answered from one route table (gateway-routes.ts):
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
import { createDashboard } from './dashboard/dashboard-routes.js';
import { createGatewaySource, type GatewaySource } from './dashboard/gateway-source.js';
import type { SettingValue } from './dashboard/api-types.js';
import {
  DEFAULT_READ_TOOL_NAME,
  DEFAULT_MAX_CONCURRENT_PASSES,
  DEFAULT_RETENTION_DAYS,
  type Gateway,
  type GatewayOptions,
} from './gateway-options.js';
import { gatewayRoutes } from './gateway-routes.js';
import type { GatewayContext } from './pipeline/gateway-context.js';
import {
  createMaskingSettingsSource,
  type MaskingSettingsSource,
} from './pipeline/masking-settings.js';
import { BodyBudget, PassSlots } from './pipeline/request-bounds.js';
import type { AccessRules } from './server/access.js';
import { createMcpEndpoint } from './server/mcp-endpoint.js';
import { closer } from './server/gateway-close.js';
import { RequestsInFlight, serveRoutes } from './server/route-table.js';
import { scheduleStateRetention } from './state/state-retention.js';
import { DEFAULT_UPSTREAMS, shownUpstreams, type UpstreamUrls } from './upstream/upstreams.js';
import { createGatewayTelemetry, type GatewayTelemetry } from './usage/gateway-telemetry.js';
import type { PriceTable } from './usage/model-prices.js';
import { usageTotals } from './usage/prices-in-force.js';
import type { UsageTally } from './usage/usage-tally.js';
import { GATEWAY_VERSION } from './version.js';
import { localWiring } from './wiring/local-wiring.js';
import { teamWiring } from './wiring/team-wiring.js';
import type { Wiring } from './wiring/wiring.js';

/** The options' bounds and names, their defaults applied. */
interface Limits {
  readToolName: string;
  retentionDays: number;
  maxRetainedBytes: number;
  maxBodyBytes: number;
  maxInFlightBodyBytes: number;
  disableClientMasking: boolean;
}

function limitsOf(options: GatewayOptions): Limits {
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  return {
    readToolName: options.readToolName ?? DEFAULT_READ_TOOL_NAME,
    retentionDays: options.retentionDays ?? DEFAULT_RETENTION_DAYS,
    maxRetainedBytes: options.maxRetainedBytes ?? 256 * 1024 * 1024,
    maxBodyBytes,
    // Room for one largest body at least, so that a body the gateway accepts can always pass alone.
    maxInFlightBodyBytes: Math.max(maxBodyBytes, options.maxInFlightBodyBytes ?? maxBodyBytes),
    disableClientMasking: options.disableClientMasking !== false,
  };
}

export function createGateway(options: GatewayOptions): Gateway {
  const log = options.log ?? (() => undefined);
  const now = options._internal?.now ?? Date.now;
  const stateDir = path.resolve(options.stateDir);
  const instanceId = randomUUID();
  const telemetry = createGatewayTelemetry({
    serviceVersion: GATEWAY_VERSION,
    ...(options.otlpEndpoint ? { otlpEndpoint: options.otlpEndpoint } : {}),
    // A team's replica is named: the `instance` label of its metrics.
    ...(options.team?.instance ? { instance: options.team.instance } : {}),
  });
  const settings = createMaskingSettingsSource(options, logged(log), logged(log));
  // Unset (an embedder's createGateway): a secret nobody was told, but this gateway's handle.
  const accessSecret = options.accessSecret ?? randomBytes(32).toString('hex');
  const basics = {
    ...{ stateDir, accessSecret, log },
    recordStoreFailure: telemetry.recordStoreFailure,
    recordBudgetRefusal: telemetry.recordBudgetRefusal,
  };
  const wiring = options.team
    ? teamWiring(options, options.team, basics)
    : localWiring(options, basics);
  const limits = limitsOf(options);
  // The running totals for the terminal (GET /api/summary), and the prices of the money figures.
  const { prices, tally } = usageTotals(stateDir, log);
  const startedAt = now();
  const conversations = conversationRegistry(options, wiring, { limits, telemetry, now, log });
  const upstreams: UpstreamUrls = { ...DEFAULT_UPSTREAMS, ...options.upstreams };
  const source = createGatewaySource({
    ...(wiring.openOutput ? { openOutput: wiring.openOutput } : {}),
    ...(wiring.queuedOutputs ? { outputsWritten: () => wiring.queuedOutputs!.flush() } : {}),
    stateDir,
    usage: wiring.stores.usage,
    conversations: wiring.stores.conversations,
    registry: conversations,
    settings,
    gatewaySettings: shownSettings(options, limits, upstreams),
    readToolName: limits.readToolName,
  });
  const rules = accessRules(options, wiring, accessSecret);
  const dashboard = gatewayDashboard({ source, rules, now, prices }, wiring);
  const retention = scheduleStateRetention({
    ...{ stateDir, retentionDays: limits.retentionDays, now, log },
    ...{ usage: wiring.stores.usage, conversations: wiring.stores.conversations },
    sharedOutputs: wiring.sharedOutputs,
    inUse: () => conversations.ids(),
  });
  const context = modelContext(options, {
    ...{ wiring, conversations, telemetry, settings, limits, upstreams },
    ...{ tally, source, now, log },
  });
  const routes = gatewayRoutes({
    ...{ instanceId, tally, startedAt, now, dashboard, context },
    mcp: mcpEndpoint(wiring),
  });
  const inFlight = new RequestsInFlight();
  const handle = serveRoutes({ routes, rules, log: logged(log), inFlight });
  return {
    stateDir,
    version: GATEWAY_VERSION,
    instanceId,
    accessSecret,
    get inFlight() {
      return inFlight.size;
    },
    handle,
    close: closer({ retention, dashboard, inFlight, queue: wiring.queuedOutputs, telemetry, log }),
    stats: () => ({
      conversations: conversations.size,
      retainedBytes: conversations.retainedBytes(),
    }),
  };
}

/** The dashboard, with the wiring's sign-in page and the prices of its money figures. */
function gatewayDashboard(
  parts: { source: GatewaySource; rules: AccessRules; now: () => number; prices: PriceTable },
  wiring: Wiring,
) {
  return createDashboard({ ...parts, signInPage: wiring.signInPage, version: GATEWAY_VERSION });
}

/** `/mcp`: the read-back, and the search where the wiring can search. */
function mcpEndpoint(wiring: Wiring) {
  return createMcpEndpoint({
    version: GATEWAY_VERSION,
    read: wiring.readBack,
    ...(wiring.searchBack ? { search: wiring.searchBack } : {}),
  });
}

/** Who may reach each route (server/access.ts): the wiring's tenancy, and the gateway's options. */
function accessRules(options: GatewayOptions, wiring: Wiring, accessSecret: string): AccessRules {
  return {
    tenancy: wiring.tenancy,
    // The dashboard cookie is derived from the secret (with which the auth token comes too).
    cookieKey: accessSecret,
    ...(options.authToken ? { authToken: options.authToken } : {}),
    ...(options.loopbackOnly ? { loopbackOnly: true } : {}),
    ...(options.allowedHosts?.length ? { allowedHosts: options.allowedHosts } : {}),
  };
}

/** A line (or an error's message) to the gateway's log, marked as the gateway's. */
function logged(log: (line: string) => void): (what: string | { message: string }) => void {
  return (what) => log(`[toolmask gateway] ${typeof what === 'string' ? what : what.message}`);
}

/** The conversations in memory, each made with the wiring's stores and sync. */
function conversationRegistry(
  options: GatewayOptions,
  wiring: Wiring,
  shared: {
    limits: Limits;
    telemetry: GatewayTelemetry;
    now: () => number;
    log: (line: string) => void;
  },
): ConversationRegistry {
  const { telemetry, now, log } = shared;
  return new ConversationRegistry({
    maxRetainedBytes: shared.limits.maxRetainedBytes,
    maxConversations: 1_024,
    create: (id) => ({
      id,
      host: { getSessionId: () => id, storage: { getProjectTempDir: () => wiring.outputsDir } },
      store: wiring.stores.conversations,
      sync: wiring.sync,
      outputs: wiring.stores.outputs,
      ...(wiring.queuedOutputs ? { queuedOutputs: wiring.queuedOutputs } : {}),
      readToolName: shared.limits.readToolName,
      offersSearch: wiring.searchBack !== undefined,
      ...(options.idleGapMs !== undefined ? { idleGapMs: options.idleGapMs } : {}),
      now,
      telemetry: (event) => telemetry.logEvent(event, { 'session.id': id }),
      debug: log,
    }),
  });
}

/** What every model request shares. */
function modelContext(
  options: GatewayOptions,
  parts: {
    wiring: Wiring;
    conversations: ConversationRegistry;
    telemetry: GatewayTelemetry;
    settings: MaskingSettingsSource;
    limits: Limits;
    upstreams: UpstreamUrls;
    tally: UsageTally;
    source: GatewaySource;
    now: () => number;
    log: (line: string) => void;
  },
): GatewayContext {
  const { limits, wiring, tally, source, log } = parts;
  const usage = wiring.stores.usage;
  return {
    upstreams: parts.upstreams,
    tenancy: wiring.tenancy,
    conversations: parts.conversations,
    usage,
    telemetry: parts.telemetry,
    ...(options._internal?.dispatcher ? { dispatcher: options._internal.dispatcher } : {}),
    now: parts.now,
    maxBodyBytes: limits.maxBodyBytes,
    bodyBudget: new BodyBudget(limits.maxInFlightBodyBytes),
    passSlots: new PassSlots(
      Math.max(1, options.maxConcurrentPasses ?? DEFAULT_MAX_CONCURRENT_PASSES),
    ),
    holdOutputWrites: () => wiring.queuedOutputs?.holdWrites() ?? (() => undefined),
    disableClientMasking: limits.disableClientMasking,
    log,
    maskingConfig: (client) => parts.settings.config(undefined, client),
    async recordUsage(record, clientSession) {
      tally.add(record, clientSession);
      try {
        await usage.append(record);
        source.changed(record.owner);
      } catch (error) {
        log(`[toolmask gateway] could not record usage: ${describeError(error)}`);
      }
    },
  };
}

/** The gateway's own settings in force, as the dashboard shows them (no credential in a URL). */
function shownSettings(
  options: GatewayOptions,
  limits: Limits,
  upstreams: UpstreamUrls,
): Record<string, SettingValue> {
  return {
    retentionDays: limits.retentionDays,
    authToken: options.authToken ? 'required' : 'none',
    loopbackOnly: options.loopbackOnly === true,
    ...Object.fromEntries(
      Object.entries(shownUpstreams(upstreams)).map(([name, url]) => [
        `upstream.${name}`,
        url ?? null,
      ]),
    ),
    readToolName: limits.readToolName,
    disableClientMasking: limits.disableClientMasking,
    maxBodyBytes: limits.maxBodyBytes,
    maxInFlightBodyBytes: limits.maxInFlightBodyBytes,
    maxRetainedBytes: limits.maxRetainedBytes,
    idleGapMs: options.idleGapMs ?? null,
    otlpEndpoint: options.otlpEndpoint ?? null,
  };
}
