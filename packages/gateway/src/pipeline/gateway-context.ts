/** What every model request of one gateway shares. */
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import type { Dispatcher } from 'undici';
import type { ConversationRegistry } from '../conversation/conversation-registry.js';
import type { UsageStore } from '../state/stores.js';
import type { GatewayTelemetry } from '../usage/gateway-telemetry.js';
import type { UpstreamUrls } from '../upstream/upstreams.js';
import type { UsageRecord } from '../usage/usage-record.js';

export interface GatewayContext {
  upstreams: UpstreamUrls;
  conversations: ConversationRegistry;
  usage: UsageStore;
  telemetry: GatewayTelemetry;
  /** Where upstream requests go through; undici's global dispatcher when undefined. */
  dispatcher?: Dispatcher;
  now: () => number;
  maxBodyBytes: number;
  disableClientMasking: boolean;
  /** The masking settings now (the file is read again when it changes). */
  maskingConfig(): Promise<ToolOutputMaskingConfig>;
  log: (line: string) => void;
  /** Appends a usage record; a failure is logged, never thrown. */
  recordUsage(record: UsageRecord): Promise<void>;
}
