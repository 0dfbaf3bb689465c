/**
 * What counts as a frozen Redis (redis-liveness.ts), on a real `redis-server`: a command that
 * timed out because the replica's own event loop was busy (a large body parsed) is not a frozen
 * Redis, and must not make every later command fail (issue 33: under strangers' load, 865 of
 * 1,000 requests were refused 503 so); a Redis that really stopped answering still is.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { redisAvailable, startRedisServer } from '@toolmask/test-support/redis-server';
import { StoreUnavailableError } from '../../errors.js';
import { watchLiveness } from './redis-liveness.js';

const cleanups = cleanUpAfterEach();
const runs = redisAvailable('Redis liveness tests');
const LIMIT_MS = 250;

async function watchedClient() {
  const redis = await startRedisServer();
  cleanups.push(() => redis.close());
  const client = new Redis(redis.url, { commandTimeout: LIMIT_MS, maxRetriesPerRequest: 0 });
  cleanups.push(async () => void client.disconnect());
  await client.ping();
  return {
    redis,
    client,
    liveness: watchLiveness(client, { commandTimeoutMs: LIMIT_MS, what: 'Redis' }),
  };
}

/** Keeps this process's event loop busy for `ms`, as a large body's parse does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe.runIf(runs)('Redis liveness', () => {
  it('a command timed out by a busy event loop leaves Redis answering: the next commands go through', async () => {
    const { client, liveness } = await watchedClient();
    const late = client.set('k', 'v').catch((error: unknown) => error);
    busy(LIMIT_MS * 2);
    // The command's timer fired before its answer was read: it timed out, Redis did not.
    expect(String(await late)).toContain('Command timed out');
    expect(await client.get('k')).toBe('v');
    expect(liveness.answering).toBe(true);
  });

  it('a PING timed out by a busy event loop is sent again before Redis counts as stopped', async () => {
    const { client, liveness } = await watchedClient();
    const probe = liveness.probe();
    busy(LIMIT_MS * 2);
    // Its timer fired past its limit, before its answer was read: not proof of a frozen Redis.
    expect(await probe).toBe(false);
    expect(liveness.answering).toBe(true);
    await client.set('k', 'v');
    expect(await client.get('k')).toBe('v');
    await expect.poll(() => liveness.answering, { timeout: 5_000 }).toBe(true);
  });

  it('a Redis that stops answering is found out: later commands fail at once', async () => {
    const { redis, client, liveness } = await watchedClient();
    redis.pause();
    cleanups.push(async () => redis.resume());
    await expect(client.get('k')).rejects.toThrow('Command timed out');
    // The PING that confirms it times out too; then commands fail without waiting.
    await expect.poll(() => liveness.answering, { timeout: 5_000 }).toBe(false);
    const started = performance.now();
    await expect(client.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(performance.now() - started).toBeLessThan(LIMIT_MS);
    redis.resume();
    await expect.poll(() => liveness.answering, { timeout: 5_000 }).toBe(true);
    expect(await client.get('k')).toBe(null);
  });
});
