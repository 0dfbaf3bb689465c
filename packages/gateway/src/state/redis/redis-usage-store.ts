/**
 * The `UsageStore` of a team gateway, in Redis: sorted sets scored by each record's `at` (key
 * names after the client's prefix)
 *
 *   {usage}:all                     every record
 *   {usage}:owner:<owner>           the records of one owner
 *   {usage}:conversation:<id>       the records of one conversation
 *
 * so a query by owner, conversation or time reads only what it returns (one ZRANGEBYSCORE),
 * oldest first. A member is the record's JSON, a newline and a random suffix, so identical
 * records (same millisecond, same figures) stay apart. Records of the same millisecond come back
 * in no particular order.
 *
 * The `{usage}` hash tag keeps all usage in one slot, so an append (three sets in one MULTI)
 * stays one transaction on a Redis Cluster too; usage is small next to conversations and
 * outputs. Each append sets its sets to expire `retentionDays` later (an owner or a conversation
 * idle that long leaves nothing behind); `prune` removes old records from the sets they are in.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DAY_MS } from '@toolmask/core/storage';
import type { UsageRecord } from '../../usage/usage-record.js';
import type { UsageQuery, UsageStore } from '../stores.js';

export interface RedisUsageStoreOptions {
  /** Days records are kept; 0 keeps them until `prune` removes them. */
  retentionDays: number;
}

const ALL = '{usage}:all';
const ownerKey = (owner: string) => `{usage}:owner:${owner}`;
const conversationKey = (id: string) => `{usage}:conversation:${id}`;
/** Old records read per round of `prune`. */
const PRUNE_BATCH = 1_000;

function recordOf(member: string): UsageRecord | undefined {
  try {
    const value: unknown = JSON.parse(member.slice(0, member.lastIndexOf('\n')));
    const record = value as Partial<UsageRecord> | null;
    if (record && typeof record === 'object' && typeof record.at === 'number') {
      return record as UsageRecord;
    }
  } catch {
    // not ours: skipped
  }
  return undefined;
}

export function createRedisUsageStore(client: Redis, options: RedisUsageStoreOptions): UsageStore {
  if (!(options.retentionDays >= 0) || !Number.isFinite(options.retentionDays)) {
    throw new RangeError(`retentionDays must be 0 or more: ${options.retentionDays}`);
  }
  const ttlMs = Math.round(options.retentionDays * DAY_MS);

  return {
    async append(record) {
      if (!Number.isFinite(record.at)) throw new RangeError(`not a time: ${record.at}`);
      // JSON never holds a raw newline, so the last one starts the suffix.
      const member = `${JSON.stringify(record)}\n${randomBytes(6).toString('base64url')}`;
      const keys = [ALL, conversationKey(record.conversationId)];
      if (record.owner !== undefined) keys.push(ownerKey(record.owner));
      const transaction = client.multi();
      for (const key of keys) {
        transaction.zadd(key, record.at, member);
        if (ttlMs > 0) transaction.pexpire(key, ttlMs);
        else transaction.persist(key);
      }
      for (const [error] of (await transaction.exec()) ?? []) if (error) throw error;
    },

    async list(query: UsageQuery = {}) {
      // The narrowest set the query names; the other conditions are checked on each record.
      const key =
        query.conversationId !== undefined
          ? conversationKey(query.conversationId)
          : query.owner !== undefined
            ? ownerKey(query.owner)
            : ALL;
      const members = await client.zrangebyscore(key, query.sinceMs ?? '-inf', '+inf');
      const records: UsageRecord[] = [];
      for (const member of members) {
        const record = recordOf(member);
        if (!record) continue;
        if (query.owner !== undefined && record.owner !== query.owner) continue;
        if (query.conversationId !== undefined && record.conversationId !== query.conversationId) {
          continue;
        }
        records.push(record);
      }
      return records;
    },

    async prune(beforeMs) {
      const before = `(${beforeMs}`;
      let removed = 0;
      for (;;) {
        const members = await client.zrangebyscore(ALL, '-inf', before, 'LIMIT', 0, PRUNE_BATCH);
        if (members.length === 0) break;
        // The owner and conversation sets these records are in lose their old records too.
        const indexes = new Set<string>();
        for (const member of members) {
          const record = recordOf(member);
          if (!record) continue;
          indexes.add(conversationKey(record.conversationId));
          if (record.owner !== undefined) indexes.add(ownerKey(record.owner));
        }
        const transaction = client.multi().zrem(ALL, ...members);
        for (const key of indexes) transaction.zremrangebyscore(key, '-inf', before);
        const replies = (await transaction.exec()) ?? [];
        for (const [error] of replies) if (error) throw error;
        removed += Number(replies[0]?.[1] ?? 0);
        if (members.length < PRUNE_BATCH) break;
      }
      return removed;
    },
  };
}
