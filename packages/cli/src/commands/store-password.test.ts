/**
 * The Redis password off the command line (issue 33, finding 12): `toolmask keys` (and the
 * gateway, through the same function) takes it from REDIS_PASSWORD or REDIS_PASSWORD_FILE, and
 * warns when `--store` carries it where `ps` shows it.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  redisAvailable,
  startRedisServer,
  type RedisServer,
} from '@toolmask/test-support/redis-server';
import { runCliCaptured } from '../test-data/run-cli.js';

const PASSWORD = 'p@ss word/with:colons';

describe.skipIf(!redisAvailable('the Redis password test'))('a team store password', () => {
  let redis: RedisServer;
  let folder: string;

  beforeAll(async () => {
    redis = await startRedisServer({ password: PASSWORD });
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-password-'));
  });
  afterAll(async () => {
    await redis?.close();
    if (folder) await fs.rm(folder, { recursive: true, force: true });
  });

  const create = (name: string, env: Record<string, string>, store = redis.url) =>
    runCliCaptured(['keys', 'create', '--store', store, '--name', name], { env });

  it('comes from REDIS_PASSWORD or REDIS_PASSWORD_FILE, never the command line', async () => {
    const fromEnv = await create('alice', { REDIS_PASSWORD: PASSWORD });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(fromEnv.stdout).toMatch(/^tmk_/);
    const file = path.join(folder, 'redis-password');
    await fs.writeFile(file, `${PASSWORD}\n`, { mode: 0o600 });
    const fromFile = await create('bob', { REDIS_PASSWORD_FILE: file });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const without = await create('carol', {});
    expect(without.code).not.toBe(0);
    for (const run of [fromEnv, fromFile, without]) expect(run.stderr).not.toContain(PASSWORD);
  });

  it('given in --store, still works, with a warning that ps shows it', async () => {
    const url = new URL(redis.url);
    url.password = encodeURIComponent(PASSWORD);
    const run = await create('dave', {}, url.toString());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('visible to every local account');
  });
});
