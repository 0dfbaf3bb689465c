/** What `createGateway` takes and gives (gateway.ts). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ToolOutputStore } from '@toolmask/core/storage';
import type { Dispatcher } from 'undici';
import type {
  ConversationStore,
  OwnerOutputIndex,
  SharedOutputStore,
  UsageStore,
} from './state/stores.js';
import type { VirtualKeyLookup } from './team/team-keys.js';
import type { OwnerBudget, OwnerProofs } from './team/owner-ledger.js';
import type { UpstreamName } from './protocols/protocol.js';
import type { UpstreamUrls } from './upstream/upstreams.js';
import type { ClientKind } from './usage/usage-record.js';
import { MCP_SERVER_NAME, MCP_TOOL_NAME } from './server/mcp-endpoint.js';

export interface GatewayOptions {
  /** Where decisions, usage records and offloaded outputs live. */
  stateDir: string;
  upstreams?: Partial<UpstreamUrls>;
  /**
   * The masking settings file read for every request: a settings.json (its
   * `experimental.toolOutputMasking`) or a `toolmask.json` (keys at its top level). Default:
   * per request's client, its file in `clientSettingsFiles` when it holds masking settings, else
   * gemini-cli's user file (pipeline/masking-settings.ts).
   */
  settingsFile?: string;
  /** Each client's own masking settings file (`claude-code`: `~/.claude/toolmask.json`, ...). */
  clientSettingsFiles?: Partial<Record<ClientKind, string>>;
  /** Largest request body accepted. @default 64 MiB */
  maxBodyBytes?: number;
  /**
   * Bytes of request bodies held at once, across requests, from their first byte (or their
   * declared length) until their answer ends; a request past it is answered 503 `BUSY` with
   * `Retry-After`, its body not kept. Never less than `maxBodyBytes`, so that a body the gateway
   * accepts can always pass alone. @default maxBodyBytes: one largest body, or many usual ones
   * (1–4 MB) at once. A body being masked takes about 3.5 times its size, on top of the history
   * conversations keep (`maxRetainedBytes`): twelve concurrent 49 MiB bodies peaked at 352 MB RSS
   * with this default, 441 MB with twice it (docs/reliability.md, section 7).
   */
  maxInFlightBodyBytes?: number;
  /**
   * Masking steps (decode, pass, write back) run at once across conversations; the next requests
   * wait their turn in order. They share one thread, so more at once adds memory, not speed.
   * @default 2
   */
  maxConcurrentPasses?: number;
  /** Required of every client when set (see the module comment). */
  authToken?: string;
  /**
   * Required on what reads outputs or state (`/mcp`, `/api`, the dashboard), unless the auth token
   * is given: server/access.ts. `listenGateway` keeps one in the state folder
   * (state/access-secret.ts). @default a random one for this gateway (`Gateway.accessSecret`)
   */
  accessSecret?: string;
  /**
   * Serve the gateway's own endpoints (`/mcp`, `/api`, `/metrics`, the dashboard) only to requests
   * addressed to a loopback name, so a web page cannot reach them by DNS rebinding. `listenGateway`
   * sets it when bound to loopback. @default false
   */
  loopbackOnly?: boolean;
  /**
   * With `loopbackOnly`, the names besides loopback ones a request may address: those a proxy on
   * the same machine passes on (a team replica behind HAProxy: `--public-host`). @default none
   */
  allowedHosts?: readonly string[];
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
  /**
   * Another host's saved-output folders that `/mcp`'s read-back and search reach beside the
   * gateway's own outputs: Claude Code's `projects` folder (`~/.claude/projects`), whose
   * `<persisted-output>` files its previews name (core storage/hostOutputs.ts). A person's own
   * gateway only: a team replica ignores it. @default none
   */
  hostOutputRoots?: readonly string[];
  /** Debug and warning lines (never a header or a body). @default none */
  log?: (line: string) => void;
  /** Alternative state stores (shared storage); default the file system under `stateDir`. */
  stores?: { conversations?: ConversationStore; usage?: UsageStore; outputs?: ToolOutputStore };
  /**
   * A team gateway, one of several replicas sharing `stores` (docs/team.md): every request
   * belongs to the owner its key names, outputs are saved to and read back from `outputs`, and
   * `/mcp`, `/api` and the dashboard answer each owner about their own state only.
   */
  team?: TeamOptions;
  /** Test seams: `dispatcher` takes the upstream requests (an undici `MockAgent`). */
  _internal?: {
    dispatcher?: Dispatcher;
    now?: () => number;
    /** Bytes the output write queue holds (state/outputs/queued-output-store.ts); 0: none. */
    outputQueueBytes?: number;
  };
}

export interface TeamOptions {
  /** Where outputs go: every replica names them alike (`<root>/tool-outputs/...`). */
  outputs: SharedOutputStore;
  /** The team's virtual keys (`toolmask keys create`). */
  keys?: VirtualKeyLookup;
  /**
   * Sent upstream in place of a virtual key, by upstream (`--provider-key-env gemini=NAME,...`):
   * a virtual key on another upstream's route is refused (403 `WRONG_PROVIDER`), and on a path
   * that is no model call or model list (403 `NOT_FOR_VIRTUAL_KEYS`: team/virtual-key-paths.ts).
   */
  providerKeys?: Partial<Record<UpstreamName, string>>;
  /** Sees every owner's state (`--admin-key-env`). */
  adminKey?: string;
  /**
   * The secret the replicas share for dashboard cookies: from their environment, never from the
   * shared store (a copy of it must forge no cookie).
   */
  cookieSecret: () => Promise<string>;
  /** How long a dashboard cookie holds (team/team-cookie.ts). @default 12 hours */
  cookieLifetimeMs?: number;
  /** This replica's name, the `instance` label of its metrics. */
  instance?: string;
  /** What each owner may keep within a window (team/owner-ledger.ts). @default DEFAULT_OWNER_BUDGET */
  ownerBudget?: Partial<OwnerBudget>;
  /** Which owners the provider accepted, shared by the replicas; none: this replica's memory. */
  proofs?: OwnerProofs;
  /**
   * Which outputs each owner saved, shared by the replicas: with it, `/mcp` offers
   * `search_tool_outputs` over the asker's own outputs. @default none (no search)
   */
  ownerOutputs?: OwnerOutputIndex;
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
  /** What opens `/mcp`, `/api` and the dashboard (GatewayOptions.accessSecret). */
  readonly accessSecret: string;
  /** Requests being handled now. */
  readonly inFlight: number;
  /** Memory kept for conversations, for tests and the bench. */
  stats(): { conversations: number; retainedBytes: number };
}

/** gemini-cli names an MCP tool `mcp_<server>_<tool>`; the snippet names it that way. */
export const DEFAULT_READ_TOOL_NAME = `mcp_${MCP_SERVER_NAME}_${MCP_TOOL_NAME}`;

/** @default of `maxConcurrentPasses`. */
export const DEFAULT_MAX_CONCURRENT_PASSES = 2;

/** @default of `retentionDays`. */
export const DEFAULT_RETENTION_DAYS = 30;
