import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import {
  redisAvailable,
  startRedisServer,
  type RedisServer,
} from '@toolmask/test-support/redis-server';
import { closeRedisConnection, openRedisConnection, redisReady } from './redis-connection.js';
import { PROOF_TTL_SECONDS, createRedisOwnerProofs } from './redis-owner-proofs.js';

describe.skipIf(!redisAvailable('Redis owner proof tests'))('owner proofs in Redis', () => {
  let server: RedisServer;
  let client: Redis;
  let raw: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    client = openRedisConnection(server.url, { commandTimeoutMs: 2_000 });
    raw = openRedisConnection(server.url, { commandTimeoutMs: 2_000, keyPrefix: '' });
    expect(await redisReady(client, 2_000)).toBe(true);
    expect(await redisReady(raw, 2_000)).toBe(true);
  });
  afterAll(async () => {
    if (client) await closeRedisConnection(client);
    if (raw) await closeRedisConnection(raw);
    await server?.close();
  });

  it('a proof is one key that expires, read by every replica, and forgotten on demand', async () => {
    const proofs = createRedisOwnerProofs(client);
    const owner = 'key:0123456789abcdef0123456789abcdef';
    expect(await proofs.has(owner)).toBe(false);
    expect(await raw.keys('*')).toEqual([]);
    await proofs.prove(owner);
    // Another replica's connection reads it.
    const other = openRedisConnection(server.url, { commandTimeoutMs: 2_000 });
    expect(await redisReady(other, 2_000)).toBe(true);
    expect(await createRedisOwnerProofs(other).has(owner)).toBe(true);
    await closeRedisConnection(other);
    expect(await raw.keys('*')).toEqual([`toolmask:{proofs}:owner:${owner}`]);
    const ttl = await raw.ttl(`toolmask:{proofs}:owner:${owner}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(PROOF_TTL_SECONDS);
    await proofs.forget(owner);
    expect(await proofs.has(owner)).toBe(false);
  });
});
