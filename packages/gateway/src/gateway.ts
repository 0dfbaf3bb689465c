/**
 * `createGateway(options)`: the gateway as a request handler, with no listener of its own, so
 * tests drive the very same code on any server and the CLI (`toolmask gateway`, the launchers)
 * listens with it (listen.ts).
 *
 * Endpoints: `GET /healthz`; the dashboard at `/` with its API under `/api/` (dashboard/);
 * `GET /metrics` (Prometheus); `/mcp` (read-back over MCP); everything else is a model API
 * request, forwarded to its upstream (routes.ts), masked when it carries a conversation. With an
 * auth token, every endpoint but `/healthz` requires it (http/own-access.ts): `x-toolmask-token:
 * <token>`; on the gateway's own endpoints also `Authorization: Bearer <token>` (on model requests
 * that header is the client's credential for the provider, forwarded untouched), and for the
 * dashboard and `/metrics` the cookie a browser gets from `/?token=<token>`.
 */
import { describeError } from '@toolmask/core/errors';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as path from 'node:path';
import { createFileToolOutputStore, type ToolOutputStore } from '@toolmask/core/storage';
import type { Dispatcher } from 'undici';
import { ConversationRegistry } from './conversation/conversation-registry.js';
import { createDashboardHandler } from './dashboard/dashboard-handler.js';
import { createGatewaySource } from './dashboard/gateway-source.js';
import type { GatewayContext } from './gateway-context.js';
import { handleModelRequest } from './handlers/model-request.js';
import { hasToken, hostAllowed, refuseForeignHost, refuseWithoutToken } from './http/own-access.js';
import { createMcpEndpoint, MCP_SERVER_NAME, MCP_TOOL_NAME } from './mcp/mcp-endpoint.js';
import { createMaskingSettingsSource } from './settings/masking-settings.js';
import { createFileConversationStore } from './state/file-conversation-store.js';
import { createFileUsageStore } from './state/file-usage-store.js';
import {
  WritesInFlight,
  orderedConversationStore,
  orderedUsageStore,
} from './state/ordered-stores.js';
import { scheduleStateRetention } from './state/state-retention.js';
import type { ConversationStore, UsageStore } from './state/stores.js';
import { createGatewayTelemetry } from './telemetry/gateway-telemetry.js';
import { matchRoute } from './upstream/routes.js';
import { DEFAULT_UPSTREAMS, type UpstreamUrls } from './upstream/upstreams.js';
import { GATEWAY_VERSION } from './version.js';

export interface GatewayOptions {
  /** Where decisions, usage records and offloaded outputs live. */
  stateDir: string;
  upstreams?: Partial<UpstreamUrls>;
  /** A settings.json to read `experimental.toolOutputMasking` from; default gemini-cli's user file. */
  settingsFile?: string;
  /** Largest request body accepted. @default 64 MiB */
  maxBodyBytes?: number;
  /** Required of every client when set (see the module comment). */
  authToken?: string;
  /**
   * Serve the gateway's own endpoints (`/mcp`, `/api`, `/metrics`, the dashboard) only to requests
   * addressed to a loopback name, so a web page cannot reach them by DNS rebinding. `listenGateway`
   * sets it when bound to loopback. @default false
   */
  loopbackOnly?: boolean;
  /** Turn gemini-cli's own masking off through Code Assist's experiment flags. @default true */
  disableClientMasking?: boolean;
  /** The name of the read-back tool as clients' models see it. @default mcp_toolmask_read_tool_output */
  readToolName?: string;
  /** Idle time after which a new prompt counts as cache-cold. @default 5 minutes */
  idleGapMs?: number;
  /** Bytes of conversation history kept in memory between requests. @default 256 MiB */
  maxRetainedBytes?: number;
  otlpEndpoint?: string;
  /**
   * Days of history kept in the state folder: usage records, conversations' decisions and their
   * offloaded outputs older than this are removed at start and then daily (state-retention.ts).
   * 0 keeps everything. @default 30
   */
  retentionDays?: number;
  /** Debug and warning lines (never a header or a body). @default none */
  log?: (line: string) => void;
  /** Alternative state stores (shared storage); default the file system under `stateDir`. */
  stores?: { conversations?: ConversationStore; usage?: UsageStore; outputs?: ToolOutputStore };
  /** Test seams: `dispatcher` takes the upstream requests (an undici `MockAgent`). */
  _internal?: { dispatcher?: Dispatcher; now?: () => number };
}

export interface Gateway {
  /** Handles one HTTP request; never throws (errors become 500 answers). */
  handle(request: IncomingMessage, response: ServerResponse): void;
  /** Waits for requests in flight (up to `timeoutMs`), then flushes telemetry. */
  close(timeoutMs?: number): Promise<void>;
  readonly stateDir: string;
  readonly version: string;
  /** Random per gateway, answered by `/healthz`: tells this gateway from whatever else answers. */
  readonly instanceId: string;
  /** Requests being handled now. */
  readonly inFlight: number;
  /** Memory kept for conversations, for tests and the bench. */
  stats(): { conversations: number; retainedBytes: number };
}

/** gemini-cli names an MCP tool `mcp_<server>_<tool>`; the snippet names it that way. */
export const DEFAULT_READ_TOOL_NAME = `mcp_${MCP_SERVER_NAME}_${MCP_TOOL_NAME}`;

/** @default of `retentionDays`. */
export const DEFAULT_RETENTION_DAYS = 30;

export function createGateway(options: GatewayOptions): Gateway {
  const log = options.log ?? (() => undefined);
  const now = options._internal?.now ?? Date.now;
  const stateDir = path.resolve(options.stateDir);
  const instanceId = randomUUID();
  const telemetry = createGatewayTelemetry({
    serviceVersion: GATEWAY_VERSION,
    ...(options.otlpEndpoint ? { otlpEndpoint: options.otlpEndpoint } : {}),
  });
  const settings = createMaskingSettingsSource(
    options.settingsFile,
    (error) => log(`[toolmask gateway] ${error.message}`),
    (warning) => log(`[toolmask gateway] ${warning.message}`),
  );
  // The state of a request is written after its answer ended; reads wait for those writes.
  const writes = new WritesInFlight();
  const conversationStore = orderedConversationStore(
    options.stores?.conversations ?? createFileConversationStore(stateDir, (line) => log(line)),
    writes,
  );
  const usage = orderedUsageStore(options.stores?.usage ?? createFileUsageStore(stateDir), writes);
  const outputs = options.stores?.outputs ?? createFileToolOutputStore();
  const readToolName = options.readToolName ?? DEFAULT_READ_TOOL_NAME;
  const retentionDays = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const maxRetainedBytes = options.maxRetainedBytes ?? 256 * 1024 * 1024;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const disableClientMasking = options.disableClientMasking !== false;
  const conversations = new ConversationRegistry({
    maxRetainedBytes,
    maxConversations: 1_024,
    create: (id) => ({
      id,
      host: {
        getToolOutputMaskingConfig: () => settings.config(),
        getSessionId: () => id,
        storage: { getProjectTempDir: () => stateDir },
      },
      store: conversationStore,
      outputs,
      readToolName,
      ...(options.idleGapMs !== undefined ? { idleGapMs: options.idleGapMs } : {}),
      now,
      telemetry: (event) => telemetry.logEvent(event, { 'session.id': id }),
      debug: log,
    }),
  });
  const upstreams: UpstreamUrls = { ...DEFAULT_UPSTREAMS, ...options.upstreams };
  const source = createGatewaySource({
    stateDir,
    usage,
    conversations: conversationStore,
    registry: conversations,
    settings,
    gatewaySettings: {
      retentionDays,
      authToken: options.authToken ? 'required' : 'none',
      loopbackOnly: options.loopbackOnly === true,
      ...Object.fromEntries(
        Object.entries(upstreams).map(([name, url]) => [`upstream.${name}`, url ?? null]),
      ),
      readToolName,
      disableClientMasking,
      maxBodyBytes,
      maxRetainedBytes,
      idleGapMs: options.idleGapMs ?? null,
      otlpEndpoint: options.otlpEndpoint ?? null,
    },
  });
  const dashboard = createDashboardHandler({
    source,
    version: GATEWAY_VERSION,
    now,
    ...(options.authToken ? { authToken: options.authToken } : {}),
    ...(options.loopbackOnly ? { loopbackOnly: true } : {}),
  });
  const retention = scheduleStateRetention({
    stateDir,
    retentionDays,
    usage,
    conversations: conversationStore,
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
    disableClientMasking,
    log,
    maskingConfig: () => settings.config(),
    async recordUsage(record) {
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
  });

  let inFlight = 0;
  const idle: Array<() => void> = [];
  const done = () => {
    inFlight--;
    if (inFlight === 0) for (const resolve of idle.splice(0)) resolve();
  };

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? '/';
    const pathname = url.split('?')[0] ?? '/';
    if (pathname === '/healthz') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'ok', version: GATEWAY_VERSION, instanceId }));
      return;
    }
    if (dashboard.owns(pathname)) {
      await dashboard.handle(request, response);
      return;
    }
    const rules = { authToken: options.authToken, loopbackOnly: options.loopbackOnly };
    const own = pathname === '/mcp' || pathname === '/metrics';
    if (own && !hostAllowed(request, rules)) {
      refuseForeignHost(response);
      return;
    }
    const accepted =
      pathname === '/metrics'
        ? (['header', 'bearer', 'cookie'] as const)
        : own
          ? (['header', 'bearer'] as const)
          : (['header'] as const);
    if (!hasToken(request, rules, accepted)) {
      refuseWithoutToken(response);
      return;
    }
    if (pathname === '/mcp') {
      await mcp(request, response, undefined);
      return;
    }
    if (pathname === '/metrics' && request.method === 'GET') {
      await telemetry.serveMetrics(request, response);
      return;
    }
    await handleModelRequest(context, request, response, matchRoute(request.method ?? 'GET', url));
  }

  return {
    stateDir,
    version: GATEWAY_VERSION,
    instanceId,
    get inFlight() {
      return inFlight;
    },
    handle(request, response) {
      inFlight++;
      route(request, response)
        .catch((error: unknown) => {
          log(`[toolmask gateway] request failed: ${describeError(error)}`);
          if (!response.headersSent) {
            response.writeHead(500, { 'content-type': 'application/json' }).end(
              JSON.stringify({
                error: { code: 500, message: 'toolmask gateway: internal error' },
              }),
            );
          } else {
            response.destroy();
          }
        })
        .finally(done);
    },
    async close(timeoutMs = 30_000) {
      retention.stop();
      dashboard.close();
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => idle.push(resolve)),
          new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
        ]);
      }
      await retention.first;
      await telemetry.shutdown();
    },
    stats: () => ({
      conversations: conversations.size,
      retainedBytes: conversations.retainedBytes(),
    }),
  };
}
