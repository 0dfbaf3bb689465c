/** What every model request of one gateway shares. */
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import type { Dispatcher } from 'undici';
import type { ConversationRegistry } from '../conversation/conversation-registry.js';
import type { Tenancy } from '../server/tenancy.js';
import type { UsageStore } from '../state/stores.js';
import type { BodyBudget, PassSlots } from './request-bounds.js';
import type { GatewayTelemetry } from '../usage/gateway-telemetry.js';
import type { UpstreamUrls } from '../upstream/upstreams.js';
import type { ClientKind, UsageRecord } from '../usage/usage-record.js';

export interface GatewayContext {
  upstreams: UpstreamUrls;
  /** Who owns each request, and which key goes upstream (asked once, at the edge). */
  tenancy: Tenancy;
  conversations: ConversationRegistry;
  usage: UsageStore;
  telemetry: GatewayTelemetry;
  /** Where upstream requests go through; undici's global dispatcher when undefined. */
  dispatcher?: Dispatcher;
  now: () => number;
  maxBodyBytes: number;
  /** Bytes of request bodies held at once, across requests (503 `BUSY` past it). */
  bodyBudget: BodyBudget;
  /** Masking steps run at once, across conversations. */
  passSlots: PassSlots;
  /**
   * Holds the queued output writes while a pass runs (state/outputs/queued-output-store.ts); the
   * function returned lets go. A gateway whose writes are not queued holds nothing.
   */
  holdOutputWrites(): () => void;
  disableClientMasking: boolean;
  /** The masking settings now for a request of this client (a file is read again when it changes). */
  maskingConfig(client?: ClientKind): Promise<ToolOutputMaskingConfig>;
  log: (line: string) => void;
  /** Appends a usage record; a failure is logged, never thrown. */
  /**
   * Keeps a usage record; `clientSession`, the client's own session id, is kept in memory only
   * (the run's summary names it for the resume command), never written.
   */
  recordUsage(record: UsageRecord, clientSession?: string): Promise<void>;
}
