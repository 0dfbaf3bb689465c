import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import {
  redisAvailable,
  startRedisServer,
  type RedisServer,
} from '@toolmask/test-support/redis-server';
import type { UsageRecord } from '../../usage/usage-record.js';
import { closeRedisConnection, openRedisConnection, redisReady } from './redis-connection.js';
import { createRedisUsageStore } from './redis-usage-store.js';

const DAY_MS = 86_400_000;
const T0 = Date.UTC(2026, 0, 10, 12);

const record = (at: number, extra: Partial<UsageRecord> = {}): UsageRecord => ({
  at,
  conversationId: 'c1',
  client: 'gemini-cli',
  front: 'gemini-api',
  model: 'gemini-2.5-pro',
  status: 200,
  promptTokens: 40_000,
  cachedTokens: 30_000,
  outputTokens: 900,
  maskedOutputs: 2,
  newlyMasked: 1,
  tokensKeptOut: 18_000,
  bytesOffloaded: 70_000,
  failures: 0,
  cacheLikelyCold: false,
  gatewayMs: 3,
  ...extra,
});

describe.skipIf(!redisAvailable('Redis usage store tests'))('the Redis usage store', () => {
  let server: RedisServer;
  let client: Redis;
  let raw: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    // A generous command timeout: these tests are not about time.
    client = openRedisConnection(server.url, { commandTimeoutMs: 2_000 });
    raw = openRedisConnection(server.url, { commandTimeoutMs: 2_000, keyPrefix: '' });
    expect(await redisReady(client, 2_000)).toBe(true);
    expect(await redisReady(raw, 2_000)).toBe(true);
  });
  beforeEach(async () => {
    await raw.flushall();
  });
  afterAll(async () => {
    if (client) await closeRedisConnection(client);
    if (raw) await closeRedisConnection(raw);
    await server?.close();
  });

  it('lists records oldest first, whatever order they were appended in', async () => {
    const store = createRedisUsageStore(client, { retentionDays: 30 });
    const records = [record(T0 + 2_000), record(T0), record(T0 + 1_000, { side: true })];
    for (const each of records) await store.append(each);
    expect(await store.list()).toEqual([records[1], records[2], records[0]]);
    expect(await store.list({})).toHaveLength(3);
  });

  it('keeps identical records apart', async () => {
    const store = createRedisUsageStore(client, { retentionDays: 30 });
    const same = record(T0, { owner: 'user:alice' });
    await Promise.all([store.append(same), store.append(same), store.append(same)]);
    expect(await store.list()).toEqual([same, same, same]);
    expect(await store.list({ owner: 'user:alice' })).toHaveLength(3);
    expect(await store.list({ conversationId: 'c1' })).toHaveLength(3);
  });

  it('answers by owner, conversation and time, alone or together', async () => {
    const store = createRedisUsageStore(client, { retentionDays: 30 });
    const alice1 = record(T0, { owner: 'user:alice', conversationId: 'c1' });
    const bob = record(T0 + 1_000, {
      owner: 'key:0123456789abcdef0123456789abcdef',
      conversationId: 'c2',
    });
    const alice2 = record(T0 + 2_000, { owner: 'user:alice', conversationId: 'c2' });
    const nobody = record(T0 + 3_000, { conversationId: 'c1' });
    for (const each of [alice2, nobody, alice1, bob]) await store.append(each);

    expect(await store.list({ owner: 'user:alice' })).toEqual([alice1, alice2]);
    expect(await store.list({ owner: 'user:nobody' })).toEqual([]);
    expect(await store.list({ conversationId: 'c2' })).toEqual([bob, alice2]);
    expect(await store.list({ conversationId: 'c1' })).toEqual([alice1, nobody]);
    // sinceMs is inclusive.
    expect(await store.list({ sinceMs: T0 + 1_000 })).toEqual([bob, alice2, nobody]);
    expect(await store.list({ sinceMs: T0 + 1_001 })).toEqual([alice2, nobody]);
    expect(await store.list({ owner: 'user:alice', conversationId: 'c2' })).toEqual([alice2]);
    expect(await store.list({ owner: 'user:alice', sinceMs: T0 + 1 })).toEqual([alice2]);
    expect(await store.list({ conversationId: 'c1', sinceMs: T0 + 10_000 })).toEqual([]);
  });

  it('keeps its sets under the {usage} hash tag, expiring retentionDays after the last append', async () => {
    const store = createRedisUsageStore(client, { retentionDays: 7 });
    await store.append(record(T0, { owner: 'user:alice' }));
    const keys = [
      'toolmask:{usage}:all',
      'toolmask:{usage}:owner:user:alice',
      'toolmask:{usage}:conversation:c1',
    ];
    expect((await raw.keys('*')).sort()).toEqual([...keys].sort());
    for (const key of keys) {
      const ttl = await raw.pttl(key);
      expect(ttl).toBeGreaterThan(7 * DAY_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(7 * DAY_MS);
      expect(await raw.zcard(key)).toBe(1);
    }
    const forever = createRedisUsageStore(client, { retentionDays: 0 });
    await forever.append(record(T0 + 1, { owner: 'user:alice' }));
    for (const key of keys) expect(await raw.pttl(key)).toBe(-1);
  });

  it('prunes records before a time from every set, and says how many went', async () => {
    const store = createRedisUsageStore(client, { retentionDays: 30 });
    const old = [
      record(T0 - 3 * DAY_MS, { owner: 'user:alice' }),
      record(T0 - 2 * DAY_MS, { owner: 'user:bob', conversationId: 'c2' }),
      record(T0 - 1, { conversationId: 'c3' }),
    ];
    const recent = [record(T0, { owner: 'user:alice' }), record(T0 + 5, { conversationId: 'c2' })];
    for (const each of [...old, ...recent]) await store.append(each);

    expect(await store.prune(T0)).toBe(3);
    expect(await store.list()).toEqual(recent);
    expect(await store.list({ owner: 'user:alice' })).toEqual([recent[0]]);
    expect(await store.list({ owner: 'user:bob' })).toEqual([]);
    expect(await store.list({ conversationId: 'c2' })).toEqual([recent[1]]);
    // Nothing is left behind in the owner and conversation sets.
    expect(await raw.zcard('toolmask:{usage}:owner:user:bob')).toBe(0);
    expect(await raw.zcard('toolmask:{usage}:conversation:c3')).toBe(0);
    expect(await store.prune(T0)).toBe(0);
  });

  it('prunes more records than one round reads', async () => {
    const store = createRedisUsageStore(client, { retentionDays: 30 });
    const many = Array.from({ length: 2_300 }, (_, index) =>
      record(T0 - DAY_MS + index, { owner: `user:u${index % 5}`, conversationId: `c${index % 7}` }),
    );
    // A hundred at a time: thousands at once would wait in line past the command timeout.
    for (let at = 0; at < many.length; at += 100) {
      await Promise.all(many.slice(at, at + 100).map((each) => store.append(each)));
    }
    await store.append(record(T0));
    expect(await store.prune(T0)).toBe(2_300);
    expect(await store.list()).toEqual([record(T0)]);
    expect(await store.list({ owner: 'user:u3' })).toEqual([]);
  });

  it('refuses a record without a time', async () => {
    const store = createRedisUsageStore(client, { retentionDays: 30 });
    await expect(store.append(record(Number.NaN))).rejects.toThrow(RangeError);
  });
});
