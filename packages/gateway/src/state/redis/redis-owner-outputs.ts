/**
 * Which outputs each owner of a team gateway saved, so that a search over `/mcp` can go through
 * the owner's outputs alone (issue 32): the shared output stores (Redis, S3, a folder) name an
 * output by its conversation, not its owner, and cannot list an owner's.
 *
 *   {owner-outputs}:<SHA-256 of the owner, 32 hex>   a sorted set: relative path → last save, ms
 *
 * Each owner keeps the `maxPerOwner` outputs saved last (older ones leave the index, not the
 * store) and the key expires `retentionDays` after the last save (0: never), as the outputs do.
 * The owner is hashed: key names hold no person's name.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DAY_MS } from '@toolmask/core/storage';
import type { OwnerOutputIndex } from '../stores.js';

/** Outputs an owner's search may go through, the newest first. */
export const OWNER_OUTPUTS_KEPT = 500;

const keyOf = (owner: string) =>
  `{owner-outputs}:${createHash('sha256').update(owner).digest('hex').slice(0, 32)}`;

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
  };
}
