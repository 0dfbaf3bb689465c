import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import {
  redisAvailable,
  startRedisServer,
  type RedisServer,
} from '@toolmask/test-support/redis-server';
import { closeRedisConnection, openRedisConnection, redisReady } from './redis-connection.js';
import { VirtualKeyError, createVirtualKeys } from './redis-virtual-keys.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.skipIf(!redisAvailable('Redis virtual key tests'))('team virtual keys in Redis', () => {
  let server: RedisServer;
  let client: Redis;
  let raw: Redis;
  let clock = 1_760_000_000_000;
  const now = () => clock;

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

  it('looks a key up by its SHA-256 (a dashboard cookie), and not once revoked', async () => {
    const keys = createVirtualKeys(client, { now });
    const key = await keys.create('alice');
    expect(await keys.lookupDigest(sha256(key))).toEqual({ name: 'alice' });
    expect(await keys.lookupDigest('not-a-digest')).toBeUndefined();
    await keys.revoke('alice');
    expect(await keys.lookupDigest(sha256(key))).toBeUndefined();
  });

  it('makes a key shown once, and stores only its SHA-256', async () => {
    const keys = createVirtualKeys(client, { now });
    const key = await keys.create('alice');
    expect(key).toMatch(/^tmk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(4), 'base64url')).toHaveLength(32);
    expect((await raw.keys('*')).sort()).toEqual([
      `toolmask:{vkeys}:key:${sha256(key)}`,
      'toolmask:{vkeys}:names',
    ]);
    expect(await raw.get(`toolmask:{vkeys}:key:${sha256(key)}`)).toBe(
      JSON.stringify({ name: 'alice', createdAt: clock }),
    );
    expect(await raw.hgetall('toolmask:{vkeys}:names')).toEqual({ alice: sha256(key) });
    // Nowhere in Redis is the key itself, nor its random part.
    const dump =
      JSON.stringify(await raw.keys('*')) + (await raw.get(`toolmask:{vkeys}:key:${sha256(key)}`));
    expect(dump).not.toContain(key.slice(4));
    expect(await raw.pttl('toolmask:{vkeys}:names')).toBe(-1);
  });

  it('looks a key up by its hash, and refuses anything else', async () => {
    const keys = createVirtualKeys(client, { now });
    const alice = await keys.create('alice');
    const bob = await keys.create('bob.smith');
    expect(await keys.lookup(alice)).toEqual({ name: 'alice' });
    expect(await keys.lookup(bob)).toEqual({ name: 'bob.smith' });
    const unknown = `tmk_${Buffer.alloc(32, 7).toString('base64url')}`;
    for (const other of [unknown, alice.slice(0, -1), `${alice}x`, alice.slice(4), '', 'sk-123']) {
      expect(await keys.lookup(other)).toBe(undefined);
    }
  });

  it('lists names and creation times by name, never keys', async () => {
    const keys = createVirtualKeys(client, { now });
    await keys.create('zed');
    clock += 1_000;
    await keys.create('amy');
    clock += 1_000;
    await keys.create('max-2');
    const listed = await keys.list();
    expect(listed).toEqual([
      { name: 'amy', createdAt: clock - 1_000 },
      { name: 'max-2', createdAt: clock },
      { name: 'zed', createdAt: clock - 2_000 },
    ]);
    expect(JSON.stringify(listed)).not.toContain('tmk_');
    expect(await createVirtualKeys(client).list()).toHaveLength(3);
  });

  it('refuses a second key of the same name, even made at once', async () => {
    const keys = createVirtualKeys(client, { now });
    const first = await keys.create('alice');
    await expect(keys.create('alice')).rejects.toMatchObject({ code: 'DUPLICATE_NAME' });
    expect(await keys.lookup(first)).toEqual({ name: 'alice' });

    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => keys.create('bob')));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(VirtualKeyError);
    }
    // The losers left no key behind.
    expect(await raw.keys('toolmask:{vkeys}:key:*')).toHaveLength(2);
  });

  it('revokes a key by name', async () => {
    const keys = createVirtualKeys(client, { now });
    const alice = await keys.create('alice');
    const bob = await keys.create('bob');
    expect(await keys.revoke('alice')).toBe(true);
    expect(await keys.lookup(alice)).toBe(undefined);
    expect(await keys.lookup(bob)).toEqual({ name: 'bob' });
    expect(await keys.revoke('alice')).toBe(false);
    expect(await keys.revoke('carol')).toBe(false);
    expect((await keys.list()).map((info) => info.name)).toEqual(['bob']);
    // The name is free again, with a new key; the old one stays dead.
    const again = await keys.create('alice');
    expect(again).not.toBe(alice);
    expect(await keys.lookup(again)).toEqual({ name: 'alice' });
    expect(await keys.lookup(alice)).toBe(undefined);
  });

  it.each(['', 'Alice', '-alice', '.alice', 'al ice', 'al/ice', 'a'.repeat(65), 'ålice'])(
    'refuses the name %j',
    async (name) => {
      const keys = createVirtualKeys(client, { now });
      await expect(keys.create(name)).rejects.toMatchObject({ code: 'BAD_NAME' });
      await expect(keys.create(name)).rejects.toThrow('not a key name');
      await expect(keys.revoke(name)).rejects.toMatchObject({ code: 'BAD_NAME' });
      expect(await raw.keys('*')).toEqual([]);
    },
  );

  it('takes names of 1 and 64 characters', async () => {
    const keys = createVirtualKeys(client, { now });
    await keys.create('a');
    await keys.create(`9${'a._-'.repeat(15)}abc`);
    expect(await keys.list()).toHaveLength(2);
  });
});
