/**
 * What differs between a single person's gateway and one replica of a team's, as one value that
 * `createGateway` composes the rest with (gateway.ts): the stores, how a conversation agrees with
 * the other writers of its store, the tenancy (who owns each request: server/tenancy.ts), where
 * `read_tool_output` reads, and what the dashboard adds. local-wiring.ts and team-wiring.ts make
 * one each; a third deployment (another shared store) is a third such file.
 */
import type { DashboardSource } from '../dashboard/dashboard-source.js';
import type { ConversationSync } from '../conversation/conversation-sync.js';
import type { GatewayOptions } from '../gateway-options.js';
import type { ReadBack, SearchBack } from '../server/mcp-endpoint.js';
import type { Tenancy } from '../server/tenancy.js';
import { countingFailures, type StoreName } from '../state/failure-counting.js';
import { openStores, type GatewayStores } from '../state/open-stores.js';
import type { QueuedOutputStore } from '../state/outputs/queued-output-store.js';
import type { SharedOutputStore } from '../state/stores.js';

export interface Wiring {
  /** Conversations, usage (their writes ordered: state/ordered-stores.ts) and the pass's outputs. */
  stores: GatewayStores;
  /**
   * `stores.outputs` when its writes are queued off the request path (a single gateway:
   * state/outputs/queued-output-store.ts); absent: every write comes before its mask.
   */
  queuedOutputs?: QueuedOutputStore;
  /** Where the pass names outputs: every snippet's path starts there. */
  outputsDir: string;
  sync: ConversationSync;
  tenancy: Tenancy;
  /** `read_tool_output` over `/mcp`. */
  readBack: ReadBack;
  /**
   * `search_tool_outputs` over `/mcp`, scoped as `readBack`. A team's shared stores cannot list
   * an owner's outputs yet, so a team replica offers no search (the tool is not listed).
   */
  searchBack?: SearchBack;
  /** What a browser that has not said who it is gets (dashboard/sign-in-pages.ts). */
  signInPage: string;
  /** The dashboard's reads of an output that is no file under the state folder. */
  openOutput?: DashboardSource['openOutput'];
  /** Outputs kept elsewhere than the state folder, swept by age (state/state-retention.ts). */
  sharedOutputs: SharedOutputStore[];
}

/** What every wiring is given by `createGateway`. */
export interface WiringBasics {
  /** The state folder, resolved. */
  stateDir: string;
  /** Opens what reads outputs or state (GatewayOptions.accessSecret, or a random one). */
  accessSecret: string;
  log: (line: string) => void;
  /** Counts a store's failed calls (`/metrics`), the store otherwise unchanged. */
  recordStoreFailure: (store: StoreName, operation: string) => void;
  /** Counts a request whose owner's budget was spent (`/metrics`; a team's: team/owner-ledger.ts). */
  recordBudgetRefusal: (resource: string) => void;
}

/** `store` with its failed calls counted under `name`. */
export function counted<T extends object>(basics: WiringBasics, store: T, name: StoreName): T {
  return countingFailures(store, name, basics.recordStoreFailure);
}

/**
 * The gateway's stores: the ones it was given (shared storage: their failures counted, the
 * requests go on), else the file system under its state folder.
 */
export function openGivenStores(options: GatewayOptions, basics: WiringBasics): GatewayStores {
  const given = options.stores && {
    ...options.stores,
    conversations:
      options.stores.conversations &&
      counted(basics, options.stores.conversations, 'conversations'),
    usage: options.stores.usage && counted(basics, options.stores.usage, 'usage'),
  };
  return openStores(basics.stateDir, given, basics.log);
}
