import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import {
  redisAvailable,
  startRedisServer,
  type RedisServer,
} from '@toolmask/test-support/redis-server';
import { describeSharedOutputStore } from '../../test-utils/output-store-contract.js';
import { closeRedisConnection, openRedisConnection, redisReady } from './redis-connection.js';
import { READ_RANGE_BYTES, createRedisOutputStore } from './redis-output-store.js';

const DAY_MS = 86_400_000;
const ROOT = '/srv/toolmask';
const FOLDER = path.join(ROOT, 'tool-outputs', 'session-0123456789abcdef');
const FILE = 'run_shell_command.call-1.0123456789abcdef.txt';
const RELATIVE = `tool-outputs/session-0123456789abcdef/${FILE}`;

const available = redisAvailable('Redis output store tests');

let server: RedisServer;
const clients: Redis[] = [];
/** A connected client; outputs want a longer command timeout than the default 250 ms. */
async function connect(keyPrefix?: string): Promise<Redis> {
  const client = openRedisConnection(server.url, {
    commandTimeoutMs: 5_000,
    ...(keyPrefix !== undefined ? { keyPrefix } : {}),
  });
  clients.push(client);
  expect(await redisReady(client, 2_000)).toBe(true);
  return client;
}

if (available) {
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of clients) await closeRedisConnection(client);
    await server?.close();
  });
}

describe.skipIf(!available)('the Redis output store', () => {
  let client: Redis;
  let raw: Redis;

  beforeAll(async () => {
    client = await connect();
    raw = await connect('');
  });
  beforeEach(async () => {
    await raw.flushall();
  });

  it('keeps an output under its relative path, returns its full path, reads it back', async () => {
    const store = createRedisOutputStore(client, { root: ROOT, retentionDays: 30 });
    expect(store.root).toBe(ROOT);
    const text = 'total 48\nd  src\n— ünïcode 🎉\n';
    expect(await store.save(FOLDER, FILE, text)).toBe(path.join(FOLDER, FILE));
    expect((await store.read(RELATIVE))?.toString('utf8')).toBe(text);
    expect(await raw.getBuffer(`toolmask:output:${RELATIVE}`)).toEqual(Buffer.from(text, 'utf8'));
    expect(await raw.zscore('toolmask:outputs:saved', RELATIVE)).not.toBe(null);
    expect(await store.read(`tool-outputs/session-0123456789abcdef/other.txt`)).toBe(undefined);
  });

  it('round-trips a 5 MB output byte for byte', async () => {
    const store = createRedisOutputStore(client, { root: ROOT, retentionDays: 30 });
    const bytes = randomBytes(5 * 1024 * 1024 * 0.75).toString('base64');
    const text = `${bytes}\n日本語 ✓`;
    await store.save(FOLDER, FILE, text);
    const read = await store.read(RELATIVE);
    expect(read?.equals(Buffer.from(text, 'utf8'))).toBe(true);
  });

  it('reads an output a range per command, whatever its size (finding 8)', async () => {
    const store = createRedisOutputStore(client, { root: ROOT, retentionDays: 30 });
    const getranges = async () => {
      const stats = await raw.info('commandstats');
      return Number(/cmdstat_getrange:calls=(\d+)/.exec(stats)?.[1] ?? 0);
    };
    for (const size of [0, 1, READ_RANGE_BYTES - 1, READ_RANGE_BYTES, 3 * READ_RANGE_BYTES + 7]) {
      // 'é' is two bytes: ranges cut characters in two, the bytes still come back whole.
      const text = 'é'.repeat(Math.floor(size / 2)) + (size % 2 ? 'x' : '');
      await store.save(FOLDER, FILE, text);
      await raw.config('RESETSTAT');
      const read = await store.read(RELATIVE);
      expect(read?.equals(Buffer.from(text, 'utf8')), `${size} bytes`).toBe(true);
      // No command carries more than a range: a GET of the whole would hold up every read behind.
      expect(await getranges()).toBe(Math.max(1, Math.ceil(size / READ_RANGE_BYTES)));
    }
    await raw.config('RESETSTAT');
    expect(await store.read(`tool-outputs/session-0123456789abcdef/other.txt`)).toBe(undefined);
  });

  it('sets outputs (and the index) to expire retentionDays after their last save', async () => {
    const store = createRedisOutputStore(client, { root: ROOT, retentionDays: 3 });
    await store.save(FOLDER, FILE, 'text');
    for (const key of [`toolmask:output:${RELATIVE}`, 'toolmask:outputs:saved']) {
      const ttl = await raw.pttl(key);
      expect(ttl).toBeGreaterThan(3 * DAY_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(3 * DAY_MS);
    }
    await raw.pexpire(`toolmask:output:${RELATIVE}`, 5_000);
    await store.save(FOLDER, FILE, 'text');
    expect(await raw.pttl(`toolmask:output:${RELATIVE}`)).toBeGreaterThan(3 * DAY_MS - 60_000);

    const forever = createRedisOutputStore(client, { root: ROOT, retentionDays: 0 });
    await forever.save(FOLDER, FILE, 'text');
    expect(await raw.pttl(`toolmask:output:${RELATIVE}`)).toBe(-1);
  });

  it.each([
    ['outside root', '/elsewhere/tool-outputs/session-x', FILE],
    ['a .. segment', `${ROOT}/tool-outputs/session-x/../session-y`, FILE],
    ['a nested folder', `${ROOT}/tool-outputs/session-x/deeper`, FILE],
    ['a slash in the name', FOLDER, 'a/b.txt'],
    ['a .. name', FOLDER, '..'],
    ['a hidden name', FOLDER, '.hidden'],
  ])('refuses a save with %s, before asking Redis', async (_label, directory, fileName) => {
    const store = createRedisOutputStore(client, { root: ROOT, retentionDays: 30 });
    await expect(store.save(directory, fileName, 'text')).rejects.toMatchObject({
      code: 'EINVAL',
    });
    expect(await raw.keys('*')).toEqual([]);
  });

  it.each(['../x.txt', 'tool-outputs/a/../../x.txt', 'tool-outputs/a', `/${RELATIVE}`])(
    'refuses a read of %j',
    async (relative) => {
      const store = createRedisOutputStore(client, { root: ROOT, retentionDays: 30 });
      await expect(store.read(relative)).rejects.toMatchObject({ code: 'EINVAL' });
    },
  );

  it('refuses a root that is not absolute', () => {
    expect(() => createRedisOutputStore(client, { root: 'state', retentionDays: 30 })).toThrow(
      'absolute',
    );
  });

  it('prunes outputs last saved before a time; a save since then keeps one', async () => {
    const store = createRedisOutputStore(client, { root: ROOT, retentionDays: 30 });
    const names = Array.from(
      { length: 450 },
      (_, index) => `tool.call-${index}.0123456789abcdef.txt`,
    );
    await Promise.all(names.map((name) => store.save(FOLDER, name, name)));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const limit = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.save(FOLDER, names[7]!, names[7]!);
    expect(await store.prune(limit)).toBe(449);
    expect(await store.read(`tool-outputs/session-0123456789abcdef/${names[7]}`)).toBeDefined();
    expect(await store.read(`tool-outputs/session-0123456789abcdef/${names[8]}`)).toBe(undefined);
    expect(await raw.zcard('toolmask:outputs:saved')).toBe(1);
  });
});

if (available) {
  describeSharedOutputStore('redis', async () => {
    // A fresh key space per test: its own prefix.
    const client = await connect(`contract-${randomBytes(6).toString('hex')}:`);
    return {
      store: createRedisOutputStore(client, { root: ROOT, retentionDays: 30 }),
      cleanup: async () => {
        await closeRedisConnection(client);
        clients.splice(clients.indexOf(client), 1);
      },
    };
  });
}
