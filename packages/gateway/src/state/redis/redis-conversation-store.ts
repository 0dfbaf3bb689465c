/**
 * The `ConversationStore` of a team gateway, in Redis: per conversation (key names after the
 * client's prefix, `toolmask:` by default)
 *
 *   conversation:{<id>}:decisions   a list, one decision per element, compact JSON, in order
 *   conversation:{<id>}:meta        a string, the meta as JSON
 *   conversation:{<id>}:owner       a string, the first owner claimed
 *
 * The `{<id>}` hash tag keeps a conversation's keys in one slot, so its scripts would run
 * unchanged on a Redis Cluster. Conversation ids are hex digests, as in the file store; anything
 * else is refused before Redis is asked.
 *
 * Guarantees: an append with `expectedCount` is one script (count, compare, push), so of
 * replicas appending at once with the same count exactly one wins and the others append nothing
 * and get `DecisionConflictError` with the count they lost to; `since` and `load` read the
 * decisions and the meta in one transaction (one round trip, one consistent state). Retention is
 * Redis's own expiry: every write sets all three keys to expire `retentionDays` after it (0:
 * never), so a conversation goes `retentionDays` after its last write.
 */
import type { Redis } from 'ioredis';
import { DAY_MS } from '@toolmask/core/storage';
import {
  CONVERSATION_ID,
  DecisionConflictError,
  checkCount,
  isDecision,
  type ConversationMeta,
  type ConversationStore,
  type ConversationUpdate,
  type DecisionRecord,
  type StoredConversation,
} from '../stores.js';

export interface RedisConversationStoreOptions {
  /** Days a conversation is kept after its last write; 0 keeps it until removed by hand. */
  retentionDays: number;
  /** Records that cannot be read (written by something else than a gateway). */
  onWarning?: (message: string) => void;
}

/** RPUSH arguments per call inside a script (Lua's `unpack` has a stack limit of ~8000). */
const PUSH_BATCH = 1_000;

/** Sets every key of the script to expire in ARGV[1] ms, or never when it is 0. */
const REFRESH_TTL = `
local ttl = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) else redis.call('PERSIST', key) end
end
`;

/** KEYS: decisions, meta, owner. ARGV: ttl ms, expected count (-1: any), records… */
const APPEND_DECISIONS = `
local count = redis.call('LLEN', KEYS[1])
local expected = tonumber(ARGV[2])
if expected >= 0 and count ~= expected then return {0, count} end
for first = 3, #ARGV, ${PUSH_BATCH} do
  redis.call('RPUSH', KEYS[1], unpack(ARGV, first, math.min(first + ${PUSH_BATCH - 1}, #ARGV)))
end
${REFRESH_TTL}
return {1, count + #ARGV - 2}
`;

/** KEYS: decisions, meta, owner. ARGV: ttl ms, meta JSON. */
const SAVE_META = `
redis.call('SET', KEYS[2], ARGV[2])
${REFRESH_TTL}
return 1
`;

/** KEYS: decisions, meta, owner. ARGV: ttl ms, owner. Returns the owner recorded. */
const CLAIM_OWNER = `
local owner = redis.call('GET', KEYS[3])
if not owner then
  owner = ARGV[2]
  redis.call('SET', KEYS[3], owner)
end
${REFRESH_TTL}
return owner
`;

type Script = (...keysAndArgs: Array<string | number>) => Promise<unknown>;

interface ConversationScripts {
  toolmaskAppendDecisions: Script;
  toolmaskSaveMeta: Script;
  toolmaskClaimOwner: Script;
}

/** Registers the scripts on the client (sent once per connection, then run by their SHA-1). */
function defineScripts(client: Redis): ConversationScripts {
  client.defineCommand('toolmaskAppendDecisions', { numberOfKeys: 3, lua: APPEND_DECISIONS });
  client.defineCommand('toolmaskSaveMeta', { numberOfKeys: 3, lua: SAVE_META });
  client.defineCommand('toolmaskClaimOwner', { numberOfKeys: 3, lua: CLAIM_OWNER });
  return client as unknown as ConversationScripts;
}

export function createRedisConversationStore(
  client: Redis,
  options: RedisConversationStoreOptions,
): ConversationStore {
  return new RedisConversationStore(client, options);
}

class RedisConversationStore implements ConversationStore {
  private readonly ttlMs: number;
  private readonly onWarning: (message: string) => void;
  private readonly scripts: ConversationScripts;

  constructor(
    private readonly client: Redis,
    options: RedisConversationStoreOptions,
  ) {
    if (!(options.retentionDays >= 0) || !Number.isFinite(options.retentionDays)) {
      throw new RangeError(`retentionDays must be 0 or more: ${options.retentionDays}`);
    }
    this.ttlMs = Math.round(options.retentionDays * DAY_MS);
    this.onWarning = options.onWarning ?? (() => undefined);
    this.scripts = defineScripts(client);
  }

  async load(id: string): Promise<StoredConversation> {
    return this.read(id, 0);
  }

  async since(id: string, known: number): Promise<ConversationUpdate> {
    checkCount('known', known);
    return this.read(id, known);
  }

  async appendDecisions(
    id: string,
    records: readonly DecisionRecord[],
    expectedCount?: number,
  ): Promise<void> {
    const keys = keysOf(id);
    if (expectedCount === undefined && records.length === 0) return;
    if (expectedCount !== undefined) checkCount('expectedCount', expectedCount);
    const lines = records.map((record) => JSON.stringify(record));
    const reply = (await this.scripts.toolmaskAppendDecisions(
      ...keys,
      this.ttlMs,
      expectedCount ?? -1,
      ...lines,
    )) as [number, number];
    if (reply[0] !== 1) throw new DecisionConflictError(id, reply[1]);
  }

  async saveMeta(id: string, meta: ConversationMeta): Promise<void> {
    await this.scripts.toolmaskSaveMeta(...keysOf(id), this.ttlMs, JSON.stringify(meta));
  }

  async claimOwner(id: string, owner: string): Promise<string> {
    return String(await this.scripts.toolmaskClaimOwner(...keysOf(id), this.ttlMs, owner));
  }

  async ownerOf(id: string): Promise<string | undefined> {
    const [, , ownerKey] = keysOf(id);
    return (await this.client.get(ownerKey)) ?? undefined;
  }

  // Nothing to do: Redis expires a conversation `retentionDays` after its last write, which is
  // the retention rule. Unlike the file store, `keep` cannot hold one back: a conversation held
  // in memory but not written for that long expires all the same.
  async prune(): Promise<number> {
    return 0;
  }

  /** Decisions from position `from` on, and the meta, in one transaction. */
  private async read(id: string, from: number): Promise<ConversationUpdate> {
    const [decisionsKey, metaKey] = keysOf(id);
    const replies = await this.client.multi().lrange(decisionsKey, from, -1).get(metaKey).exec();
    const [decisions, meta] = (replies ?? []).map(([error, value]) => {
      if (error) throw error;
      return value;
    }) as [string[] | undefined, string | null | undefined];
    if (!Array.isArray(decisions)) throw new Error(`redis conversation ${id}: transaction aborted`);
    const update: ConversationUpdate = {
      decisions: decisions.map((text, index) => this.decisionOf(id, from + index, text)),
    };
    const parsedMeta = this.metaOf(id, meta ?? null);
    if (parsedMeta) update.meta = parsedMeta;
    return update;
  }

  /**
   * A stored decision. One that cannot be read still counts: replicas name decisions by position
   * (`since(id, known)`, `expectedCount`), so it becomes a "kept" decision about no output (an
   * empty key), which changes nothing, rather than shifting every position after it.
   */
  private decisionOf(id: string, position: number, text: string): DecisionRecord {
    try {
      const value: unknown = JSON.parse(text);
      if (isDecision(value)) return value;
    } catch {
      // reported below
    }
    this.onWarning(
      `redis conversation ${id}: decision ${position} is not a decision record; ignored`,
    );
    return { kind: 'kept', key: '', toolName: '', callId: '', at: 0 };
  }

  private metaOf(id: string, text: string | null): ConversationMeta | undefined {
    if (text === null) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === 'object') return value as ConversationMeta;
    } catch {
      // reported below
    }
    this.onWarning(`redis conversation ${id}: meta is not JSON; ignored`);
    return undefined;
  }
}

/** The conversation's three keys (one hash slot), or an error for an id that is no digest. */
function keysOf(id: string): [decisions: string, meta: string, owner: string] {
  if (!CONVERSATION_ID.test(id)) throw new Error(`not a conversation id: ${JSON.stringify(id)}`);
  const base = `conversation:{${id}}`;
  return [`${base}:decisions`, `${base}:meta`, `${base}:owner`];
}
