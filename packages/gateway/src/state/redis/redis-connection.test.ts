import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import {
  redisAvailable,
  startRedisServer,
  type RedisServer,
} from '@toolmask/test-support/redis-server';
import {
  RedisSettingError,
  closeRedisConnection,
  openRedisConnection,
  parseRedisUrl,
  redisReady,
} from './redis-connection.js';

describe('parseRedisUrl', () => {
  it.each([
    ['redis://localhost:6379', { tls: false, host: 'localhost', port: 6379, db: 0 }],
    ['redis://10.0.0.5:6380/2', { tls: false, host: '10.0.0.5', port: 6380, db: 2 }],
    ['redis://cache.internal', { tls: false, host: 'cache.internal', port: 6379, db: 0 }],
    [
      'rediss://cache.example.com:6380/1',
      { tls: true, host: 'cache.example.com', port: 6380, db: 1 },
    ],
    ['redis://[::1]:7000/', { tls: false, host: '::1', port: 7000, db: 0 }],
  ])('%s', (url, expected) => {
    const address = parseRedisUrl(url);
    expect(address).toMatchObject(expected);
    expect(address.username).toBe(undefined);
    expect(address.password).toBe(undefined);
  });

  it('takes a user and a password, decoded, and never shows the password', () => {
    const address = parseRedisUrl('rediss://gateway:s3cr%40t@cache.example.com:6380/3');
    expect(address).toMatchObject({ username: 'gateway', password: 's3cr@t', db: 3 });
    expect(address.display).toBe('rediss://gateway:***@cache.example.com:6380/3');
    const passwordOnly = parseRedisUrl('redis://:hunter2@localhost:6379');
    expect(passwordOnly.username).toBe(undefined);
    expect(passwordOnly.password).toBe('hunter2');
    expect(passwordOnly.display).toBe('redis://:***@localhost:6379/0');
  });

  it.each([
    ['localhost:6379', 'the scheme must be redis: or rediss:'],
    ['http://localhost:6379', 'the scheme must be redis: or rediss:'],
    ['not a url', 'not a URL'],
    ['redis://', 'no host'],
    ['redis://localhost:0', 'the port must be 1 to 65535'],
    ['redis://localhost:6379/cache', 'the path must be a database number'],
    ['redis://localhost:6379/1/2', 'the path must be a database number'],
    ['redis://localhost:6379?db=1', 'no query or fragment'],
    ['redis://u:hunter2@localhost:6379/x', 'the path must be a database number'],
  ])('refuses %j, naming --store and the expected form', (url, why) => {
    let thrown: unknown;
    try {
      parseRedisUrl(url);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RedisSettingError);
    const error = thrown as RedisSettingError;
    expect(error.code).toBe('BAD_STORE_URL');
    expect(error.message).toContain('--store');
    expect(error.message).toContain(why);
    expect(error.message).toContain('redis://HOST:PORT[/DB]');
    expect(error.message).not.toContain('hunter2');
  });

  it('refuses a key prefix with braces (they would take the hash tags’ place)', () => {
    expect(() => openRedisConnection('redis://localhost:6379', { keyPrefix: '{team}:' })).toThrow(
      expect.objectContaining({ code: 'BAD_KEY_PREFIX' }),
    );
  });
});

const elapsedOf = async (run: () => Promise<unknown>) => {
  const started = performance.now();
  const outcome = await run().then(
    () => 'resolved',
    (error: unknown) => error,
  );
  return { outcome, ms: performance.now() - started };
};

async function eventually(check: () => Promise<unknown>, withinMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    try {
      await check();
      return performance.now() - started;
    } catch (error) {
      if (performance.now() - started > withinMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

describe.skipIf(!redisAvailable('Redis connection tests'))('a connection to a real Redis', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  /** A client, connected; with a generous command timeout unless the test is about it. */
  const open = async (url: string, options: Parameters<typeof openRedisConnection>[1] = {}) => {
    const client = openRedisConnection(url, { commandTimeoutMs: 2_000, ...options });
    clients.push(client);
    await redisReady(client, 2_000);
    return client;
  };

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await closeRedisConnection(client);
    if (server.pid === undefined) await server.restart();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('prefixes every key (toolmask: by default)', async () => {
    const client = await open(server.url);
    const other = await open(server.url, { keyPrefix: 'team-b:' });
    const raw = await open(server.url, { keyPrefix: '' });
    await client.set('probe', 'a');
    await other.set('probe', 'b');
    expect(await raw.get('toolmask:probe')).toBe('a');
    expect(await raw.get('team-b:probe')).toBe('b');
  });

  it('authenticates with the password of the URL, and never reports it', async () => {
    const guarded = await startRedisServer({ password: 'hunter2' });
    try {
      const url = `redis://:hunter2@127.0.0.1:${guarded.port}`;
      const client = await open(url);
      await eventually(() => client.ping(), 2_000);
      expect(await client.ping()).toBe('PONG');

      const errors: string[] = [];
      const wrong = openRedisConnection(`redis://default:wrong-hunter2@127.0.0.1:${guarded.port}`, {
        onError: (message) => errors.push(message),
      });
      clients.push(wrong);
      await eventually(async () => expect(errors.length).toBeGreaterThan(0), 2_000);
      await expect(wrong.ping()).rejects.toThrow();
      expect(errors.join('\n')).toMatch(/WRONGPASS|invalid/i);
      expect(errors.join('\n')).not.toContain('hunter2');
      expect(errors[0]).toContain(`redis://default:***@127.0.0.1:${guarded.port}/0`);
    } finally {
      for (const client of clients.splice(0)) await closeRedisConnection(client);
      await guarded.close();
    }
  });

  it('rejects at once while Redis is down, then works again, same client, once it is back', async () => {
    const errors: string[] = [];
    const client = await open(server.url, {
      commandTimeoutMs: 250,
      onError: (message) => errors.push(message),
    });
    await client.set('before', '1');
    await server.stop();

    for (let attempt = 0; attempt < 5; attempt++) {
      const { outcome, ms } = await elapsedOf(() => client.set('during', '1'));
      expect(outcome).toBeInstanceOf(Error);
      // At once, give or take a loaded machine: never the wait for a reconnection.
      expect(ms).toBeLessThan(1_000);
    }
    // Nothing was queued for later: the commands above never reach Redis.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.restart();
    const backAfter = await eventually(() => client.ping(), 3_000);
    expect(backAfter).toBeLessThan(2_000);
    expect(await client.get('during')).toBe(null);
    await client.set('after', '1');
    expect(await client.get('after')).toBe('1');
    expect(errors.length).toBeGreaterThan(0);
    // One line for a run of the same error, not one per reconnection attempt.
    expect(new Set(errors).size).toBe(errors.length);
  });

  it('times a command out after commandTimeoutMs when Redis answers nothing', async () => {
    const client = await open(server.url, { commandTimeoutMs: 250 });
    await client.ping();
    server.pause();
    try {
      const { outcome, ms } = await elapsedOf(() => client.get('anything'));
      expect(String(outcome)).toMatch(/timed out/i);
      expect(ms).toBeGreaterThanOrEqual(240);
      expect(ms).toBeLessThan(1_000);
    } finally {
      server.resume();
    }
    await eventually(() => client.ping(), 2_000);
    await client.set('after-pause', 'yes');
    expect(await client.get('after-pause')).toBe('yes');
  });

  it('closes promptly even while Redis is down', async () => {
    const client = openRedisConnection(server.url);
    expect(await redisReady(client, 2_000)).toBe(true);
    await server.stop();
    const { ms } = await elapsedOf(() => closeRedisConnection(client));
    expect(ms).toBeLessThan(1_000);
    // It stops trying: with Redis back, it stays disconnected.
    await server.restart();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(client.status).not.toBe('ready');
    await expect(client.ping()).rejects.toThrow();
  });
});
