/**
 * Which outputs each owner of a team gateway saved, so that a search over `/mcp` can go through
 * the owner's outputs alone (issue 32): the shared output stores (Redis, S3, a folder) name an
 * output by its conversation, not its owner, and cannot list an owner's.
 *
 *   {owner-outputs}:<SHA-256 of the owner, 32 hex>   a sorted set: relative path → last save, ms
 *
 * Each owner keeps the `maxPerOwner` outputs saved last (older ones leave the index, not the
 * store) and the key expires `retentionDays` after the last save (0: never), as the outputs do.
 * The owner is hashed: key names hold no person's name. The admin's search lists every owner's
 * (`listAll`): the keys found by a bounded SCAN of the slot, each one's newest, merged by time.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DAY_MS } from '@toolmask/core/storage';
import type { OwnerOutputIndex } from '../stores.js';

/** Outputs an owner's search may go through, the newest first. */
export const OWNER_OUTPUTS_KEPT = 500;

const PREFIX = '{owner-outputs}:';
const keyOf = (owner: string) =>
  `${PREFIX}${createHash('sha256').update(owner).digest('hex').slice(0, 32)}`;
/** Owners' keys the admin's search looks at, at most (a team's people, with room). */
export const OWNERS_LISTED = 10_000;

export function createRedisOwnerOutputs(
  client: Redis,
  options: { retentionDays: number; maxPerOwner?: number },
): OwnerOutputIndex {
  const ttlMs = Math.round(options.retentionDays * DAY_MS);
  const kept = options.maxPerOwner ?? OWNER_OUTPUTS_KEPT;
  return {
    async add(owner, relativePath) {
      const key = keyOf(owner);
      const batch = client
        .multi()
        .zadd(key, Date.now(), relativePath)
        .zremrangebyrank(key, 0, -(kept + 1));
      if (ttlMs > 0) batch.pexpire(key, ttlMs);
      for (const [error] of (await batch.exec()) ?? []) if (error) throw error;
    },
    async list(owner, limit) {
      return client.zrevrange(keyOf(owner), 0, Math.max(0, Math.min(limit, kept) - 1));
    },
    async listAll(limit) {
      // SCAN matches and answers whole key names: the client's own prefix is not added for it.
      const clientPrefix = client.options.keyPrefix ?? '';
      const keys = new Set<string>();
      let cursor = '0';
      do {
        const [next, found] = await client.scan(
          cursor,
          'MATCH',
          `${clientPrefix}${PREFIX}*`,
          'COUNT',
          500,
        );
        cursor = next;
        for (const key of found) {
          if (keys.size < OWNERS_LISTED) keys.add(key.slice(clientPrefix.length));
        }
      } while (cursor !== '0' && keys.size < OWNERS_LISTED);
      const count = Math.max(0, Math.min(limit, kept));
      const all: { path: string; at: number }[] = [];
      for (const key of keys) {
        const flat = await client.zrevrange(key, 0, count - 1, 'WITHSCORES');
        for (let index = 0; index + 1 < flat.length; index += 2) {
          all.push({ path: flat[index] as string, at: Number(flat[index + 1]) });
        }
      }
      all.sort((a, b) => b.at - a.at);
      return all.slice(0, count).map((entry) => entry.path);
    },
  };
}
