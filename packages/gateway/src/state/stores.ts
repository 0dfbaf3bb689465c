/**
 * The gateway's state, behind small interfaces so that a team deployment can put it on shared
 * storage (Redis, an S3-compatible bucket) instead of the embedded default, the file system:
 *
 * - `ConversationStore`: per conversation, the masking decisions (appended before the request
 *   they change is forwarded, so a restart re-applies them byte for byte) and a little metadata
 *   (when its last request ended, the provider's last usage report: the cold-cache signals);
 * - `UsageStore`: one record per forwarded request (real usage next to toolmask's estimates),
 *   for `/api/sessions`, the dashboard and its history across restarts;
 * - offloaded outputs go through core's `ToolOutputStore` (`@toolmask/core/storage`).
 *
 * Both stores forget what is older than the gateway's retention (`retentionDays`,
 * state-retention.ts), so the state folder stays bounded.
 */
import type { UsageRecord } from '../usage/usage-record.js';

/** One masking decision about one tool output of a conversation. */
export type DecisionRecord =
  | {
      kind: 'masked';
      /** Identifies the output across requests (outputKey in conversation/output-key.ts). */
      key: string;
      toolName: string;
      callId: string;
      /** The masked response, exactly as sent: `{ output: <snippet> }`. */
      response: { output: string };
      filePath: string;
      bytes: number;
      tokensBefore: number;
      tokensAfter: number;
      /** Epoch ms. */
      at: number;
    }
  | {
      kind: 'kept';
      key: string;
      toolName: string;
      callId: string;
      at: number;
    };

/** What the gateway remembers of a conversation between requests and restarts. */
export interface ConversationMeta {
  /** Epoch ms of the first request seen. */
  startedAt: number;
  /** Epoch ms when the answer to the last request ended. */
  lastEndedAt?: number;
  /** The provider's usage report of the last answer. */
  lastPromptTokens?: number;
  lastCachedTokens?: number;
  client: string;
  model: string;
}

export interface StoredConversation {
  decisions: DecisionRecord[];
  meta?: ConversationMeta;
}

export interface ConversationStore {
  /** Everything known of a conversation; empty when it is new. */
  load(conversationId: string): Promise<StoredConversation>;
  /** Appends decisions (resolves once they would survive the gateway being killed or restarted). */
  appendDecisions(conversationId: string, records: readonly DecisionRecord[]): Promise<void>;
  saveMeta(conversationId: string, meta: ConversationMeta): Promise<void>;
  /**
   * Forgets conversations last active before `beforeMs`, except those in `keep` (in use);
   * returns how many went.
   */
  prune(beforeMs: number, keep: ReadonlySet<string>): Promise<number>;
}

export interface UsageQuery {
  /** Records at or after this epoch ms. */
  sinceMs?: number;
  conversationId?: string;
}

export interface UsageStore {
  append(record: UsageRecord): Promise<void>;
  list(query?: UsageQuery): Promise<UsageRecord[]>;
  /** Removes records older than `beforeMs`; returns how many files or records went. */
  prune(beforeMs: number): Promise<number>;
}
