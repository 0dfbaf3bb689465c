/**
 * The gateway's state, behind small interfaces so that a team deployment can put it on shared
 * storage (Redis, an S3-compatible bucket) instead of the embedded default, the file system:
 *
 * - `ConversationStore`: per conversation, the masking decisions (appended before the request
 *   they change is forwarded, so a restart re-applies them byte for byte), a little metadata
 *   (when its last request ended, the provider's last usage report: the cold-cache signals) and,
 *   on a team gateway, its owner;
 * - `UsageStore`: one record per forwarded request (real usage next to toolmask's estimates),
 *   for `/api/sessions`, the dashboard and its history across restarts;
 * - offloaded outputs go through core's `ToolOutputStore` (`@toolmask/core/storage`).
 *
 * Both stores forget what is older than the gateway's retention (`retentionDays`,
 * state-retention.ts), so the state folder stays bounded.
 */
import type { NetState } from '../usage/net-billing.js';
import { ToolmaskError } from '@toolmask/core/errors';
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
      /**
       * How many tool outputs came after this one in the request that masked it. The decision
       * applies only where at least as many do: one session's history only grows, and a request
       * of another with the same key (same head, same outputs) never gets an output masked that
       * is newer there than it was here. Absent in records written before it: applies anywhere.
       */
      outputsAfter?: number;
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

/** Whether a stored value is a decision record (a store's line or entry may be anything). */
export function isDecision(value: unknown): value is DecisionRecord {
  const record = value as Partial<DecisionRecord> | null;
  if (!record || typeof record !== 'object' || typeof record.key !== 'string') return false;
  if (record.kind === 'kept') return true;
  return (
    record.kind === 'masked' &&
    typeof (record as { response?: { output?: unknown } }).response?.output === 'string'
  );
}

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
  /** What the conversation would have billed without masking, so far (usage/net-billing.ts). */
  net?: NetState;
}

export interface StoredConversation {
  decisions: DecisionRecord[];
  meta?: ConversationMeta;
}

/**
 * What a store tells a conversation it has in memory (a replica catching up with the others): the
 * decisions appended after the ones it knows, and the state after the last answer.
 */
export interface ConversationUpdate {
  /** Decisions after the first `known` ones, in the order they were appended. */
  decisions: DecisionRecord[];
  meta?: ConversationMeta;
}

/**
 * A conditional append lost: another writer (a replica) appended decisions to the conversation
 * first (it holds `count` now). The loser reads them (`since`) and runs its pass again over them.
 */
export class DecisionConflictError extends ToolmaskError<'DECISION_CONFLICT'> {
  constructor(
    readonly conversationId: string,
    readonly count: number,
  ) {
    super(
      'DECISION_CONFLICT',
      `conversation ${conversationId} holds ${count} decisions: another replica appended first`,
    );
  }
}

/** What every store takes for a conversation id (a hex digest); the stores refuse any other. */
export const CONVERSATION_ID = /^[0-9a-f]{8,64}$/;

/**
 * One contract for every conversation store, whoever else writes it: the file store (one gateway
 * writes it) and the shared stores (Redis; several replicas write them) implement every method,
 * and test-utils/conversation-store-contract.ts holds each of them to it. Decisions are named by
 * position (the first `known`, `expectedCount`), so every replica counts them alike. A
 * conversation's owner lives and expires with it (docs/team.md): the team's tenancy claims it, a
 * single person's gateway never asks.
 */
export interface ConversationStore {
  /** Everything known of a conversation; empty when it is new. */
  load(conversationId: string): Promise<StoredConversation>;
  /**
   * The decisions after the first `known` and the current meta, in one read (a `RangeError` for a
   * `known` that is no count). What a replica reads to catch up with the others.
   */
  since(conversationId: string, known: number): Promise<ConversationUpdate>;
  /**
   * Appends decisions (resolves once they would survive the gateway being killed or restarted).
   * With `expectedCount`, appends only when the conversation holds exactly that many decisions,
   * atomically, and otherwise rejects with `DecisionConflictError` and appends nothing: writers
   * serving one conversation at once agree on one set of decisions.
   */
  appendDecisions(
    conversationId: string,
    records: readonly DecisionRecord[],
    expectedCount?: number,
  ): Promise<void>;
  saveMeta(conversationId: string, meta: ConversationMeta): Promise<void>;
  /**
   * Records `owner` as the conversation's owner unless it has one, and returns the owner it has
   * (the first to claim it).
   */
  claimOwner(conversationId: string, owner: string): Promise<string>;
  /** The conversation's owner, undefined when none was recorded. */
  ownerOf(conversationId: string): Promise<string | undefined>;
  /**
   * Forgets conversations last active before `beforeMs`, except those in `keep` (in use);
   * returns how many went. A store that expires conversations on its own may do nothing.
   */
  prune(beforeMs: number, keep: ReadonlySet<string>): Promise<number>;
}

/** `known` checked to be a count of decisions (`since`), or a `RangeError`. */
export function checkCount(name: 'known' | 'expectedCount', value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a count of decisions: ${value}`);
  }
}

export interface UsageQuery {
  /** Records at or after this epoch ms. */
  sinceMs?: number;
  conversationId?: string;
  /** Only this owner's records (a team gateway: usage/usage-record.ts `owner`). */
  owner?: string;
}

export interface UsageStore {
  append(record: UsageRecord): Promise<void>;
  list(query?: UsageQuery): Promise<UsageRecord[]>;
  /** Removes records older than `beforeMs`; returns how many files or records went. */
  prune(beforeMs: number): Promise<number>;
}

/**
 * Offloaded outputs on shared storage (a team gateway: Redis, an S3 bucket). Core's pass saves
 * through `save(directory, fileName, text)` with `directory` under `root` (the gateway names
 * outputs `<root>/tool-outputs/<conversation>/<file>`, the same on every replica, so a snippet's
 * bytes do not depend on which replica made it); the store keeps each under its path relative to
 * `root` and returns the full path, as the file store does. Read-back fetches by that relative
 * path. Names are content-addressed: saving the same text again under the same name is harmless.
 */
/** Which outputs each owner saved, newest first (a team's search: state/redis/redis-owner-outputs.ts). */
export interface OwnerOutputIndex {
  /** `relativePath` (`tool-outputs/<conversation>/<file>`) was saved for `owner`. */
  add(owner: string, relativePath: string): Promise<void>;
  /** The owner's outputs saved last, at most `limit`, newest first. */
  list(owner: string, limit: number): Promise<string[]>;
  /** Every owner's outputs saved last, at most `limit` in all, newest first (the admin's search). */
  listAll(limit: number): Promise<string[]>;
}

export interface SharedOutputStore {
  /** The path every saved output is under (what snippets name); not a folder of this machine. */
  readonly root: string;
  save(directory: string, fileName: string, text: string, byteLength?: number): Promise<string>;
  /**
   * The output saved at `relativePath` (`tool-outputs/<conversation>/<file>`); undefined when
   * there is none (never saved, or expired).
   */
  read(relativePath: string): Promise<Buffer | undefined>;
  /** Removes outputs saved before `beforeMs` (a store with its own expiry may do nothing); returns how many went. */
  prune(beforeMs: number): Promise<number>;
  /** Closes what it holds open (a connection, a client); nothing for a store that holds none. */
  close(): Promise<void>;
}
