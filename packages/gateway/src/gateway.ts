/**
 * `createGateway(options)`: the gateway as a request handler, with no listener of its own, so
 * tests drive the very same code on any server and the CLI (`toolmask gateway`, the launchers)
 * listens with it (listen.ts).
 *
 * Endpoints: `GET /healthz`; `GET /api/sessions` (and `/api/sessions/<id>`); `GET /metrics`
 * (Prometheus); `/mcp` (read-back over MCP); everything else is a model API request, forwarded to
 * its upstream (routes.ts), masked when it carries a conversation. With an auth token, every
 * endpoint but `/healthz` requires it: `x-toolmask-token: <token>`, or, on the gateway's own
 * endpoints, `Authorization: Bearer <token>` (on model requests that header is the client's
 * credential for the provider, forwarded untouched).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as path from 'node:path';
import { createFileToolOutputStore, type ToolOutputStore } from '@toolmask/core/storage';
import { ConversationRegistry } from './conversation/conversation-registry.js';
import type { GatewayContext } from './gateway-context.js';
import { handleModelRequest } from './handlers/model-request.js';
import { handleApiRequest } from './handlers/api-request.js';
import { isLoopbackHost } from './http/loopback.js';
import { createMcpEndpoint, MCP_SERVER_NAME, MCP_TOOL_NAME } from './mcp/mcp-endpoint.js';
import { createMaskingSettingsSource } from './settings/masking-settings.js';
import { createFileConversationStore } from './state/file-conversation-store.js';
import { createFileUsageStore } from './state/file-usage-store.js';
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
  /** Debug and warning lines (never a header or a body). @default none */
  log?: (line: string) => void;
  /** Alternative state stores (shared storage); default the file system under `stateDir`. */
  stores?: { conversations?: ConversationStore; usage?: UsageStore; outputs?: ToolOutputStore };
  /** Test seams. */
  _internal?: { fetch?: typeof fetch; now?: () => number };
}

export interface Gateway {
  /** Handles one HTTP request; never throws (errors become 500 answers). */
  handle(request: IncomingMessage, response: ServerResponse): void;
  /** Waits for requests in flight (up to `timeoutMs`), then flushes telemetry. */
  close(timeoutMs?: number): Promise<void>;
  readonly stateDir: string;
  readonly version: string;
  /** Requests being handled now. */
  readonly inFlight: number;
  /** Memory kept for conversations, for tests and the bench. */
  stats(): { conversations: number; retainedBytes: number };
}

/** gemini-cli names an MCP tool `mcp_<server>_<tool>`; the snippet names it that way. */
export const DEFAULT_READ_TOOL_NAME = `mcp_${MCP_SERVER_NAME}_${MCP_TOOL_NAME}`;

/** The host name of a Host header (`127.0.0.1:8787` → `127.0.0.1`, `[::1]:8787` → `[::1]`). */
function hostName(header: string | undefined): string {
  return /^(\[[^\]]*\]|[^:]*)/.exec(header ?? '')?.[1] ?? '';
}

function tokenMatches(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createGateway(options: GatewayOptions): Gateway {
  const log = options.log ?? (() => undefined);
  const now = options._internal?.now ?? Date.now;
  const stateDir = path.resolve(options.stateDir);
  const telemetry = createGatewayTelemetry({
    serviceVersion: GATEWAY_VERSION,
    ...(options.otlpEndpoint ? { otlpEndpoint: options.otlpEndpoint } : {}),
  });
  const settings = createMaskingSettingsSource(options.settingsFile, (error) =>
    log(`[toolmask gateway] ${error.message}`),
  );
  const conversationStore =
    options.stores?.conversations ?? createFileConversationStore(stateDir, (line) => log(line));
  const usage = options.stores?.usage ?? createFileUsageStore(stateDir);
  const outputs = options.stores?.outputs ?? createFileToolOutputStore();
  const readToolName = options.readToolName ?? DEFAULT_READ_TOOL_NAME;
  const conversations = new ConversationRegistry({
    maxRetainedBytes: options.maxRetainedBytes ?? 256 * 1024 * 1024,
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
  const context: GatewayContext = {
    upstreams: { ...DEFAULT_UPSTREAMS, ...options.upstreams },
    conversations,
    usage,
    telemetry,
    fetch: options._internal?.fetch ?? fetch,
    now,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024 * 1024,
    disableClientMasking: options.disableClientMasking !== false,
    log,
    async recordUsage(record) {
      try {
        await usage.append(record);
      } catch (error) {
        log(
          `[toolmask gateway] could not record usage: ${String((error as Error)?.message ?? error)}`,
        );
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

  function authorized(request: IncomingMessage, ownEndpoint: boolean): boolean {
    if (!options.authToken) return true;
    const header = request.headers['x-toolmask-token'];
    if (tokenMatches(Array.isArray(header) ? header[0] : header, options.authToken)) return true;
    const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    return ownEndpoint && tokenMatches(bearer, options.authToken);
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? '/';
    const pathname = url.split('?')[0] ?? '/';
    if (pathname === '/healthz') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'ok', version: GATEWAY_VERSION }));
      return;
    }
    const own = pathname === '/mcp' || pathname === '/metrics' || pathname.startsWith('/api/');
    if (own && options.loopbackOnly && !isLoopbackHost(hostName(request.headers.host))) {
      response.writeHead(403, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: { code: 403, message: 'toolmask gateway: not a loopback Host' },
        }),
      );
      return;
    }
    if (!authorized(request, own)) {
      response
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
        .end(
          JSON.stringify({
            error: {
              code: 401,
              message:
                'toolmask gateway: this gateway needs its auth token (x-toolmask-token header)',
            },
          }),
        );
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
    if (pathname.startsWith('/api/')) {
      await handleApiRequest(context, request, response, { stateDir, settingsFile: settings.file });
      return;
    }
    await handleModelRequest(context, request, response, matchRoute(request.method ?? 'GET', url));
  }

  return {
    stateDir,
    version: GATEWAY_VERSION,
    get inFlight() {
      return inFlight;
    },
    handle(request, response) {
      inFlight++;
      route(request, response)
        .catch((error: unknown) => {
          log(`[toolmask gateway] request failed: ${String((error as Error)?.message ?? error)}`);
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
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => idle.push(resolve)),
          new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
        ]);
      }
      await telemetry.shutdown();
    },
    stats: () => ({
      conversations: conversations.size,
      retainedBytes: conversations.retainedBytes(),
    }),
  };
}
