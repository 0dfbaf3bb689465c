/**
 * A copy of the team's store lets no one in (issue 33, finding 4): the secret that signs the
 * dashboard cookies comes from each replica's environment, never from Redis. Two replicas that
 * share the store but not the environment (different admin keys, no `--cookie-secret-env`) play
 * someone with a copy of Redis: whatever the store holds, one replica's cookie opens nothing on
 * the other. When the secret lived in Redis, both read the same one and the cookie passed.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '@toolmask/test-support/loopback-servers';
import { redisAvailable, startRedisServer } from '@toolmask/test-support/redis-server';
import { runCli } from '../../program.js';
import { runCliCaptured } from '../../test-data/run-cli.js';

interface Replica {
  url: string;
  stop(): Promise<void>;
}

/** `toolmask gateway --store` in this process, its admin key from its own environment. */
async function startReplica(store: string, folder: string, adminKey: string): Promise<Replica> {
  const port = await freePort();
  let stop!: () => void;
  const stopped = new Promise<'SIGTERM'>((resolve) => (stop = () => resolve('SIGTERM')));
  let stderr = '';
  const running = runCli(
    [
      ...['gateway', '--port', String(port), '--state-dir', folder, '--allow-second'],
      ...['--store', store, '--admin-key-env', 'TEAM_ADMIN_KEY'],
    ],
    {
      stdout: { write: () => true },
      stderr: { write: (text: string) => ((stderr += text), true) },
      env: { TEAM_ADMIN_KEY: adminKey },
      cwd: process.cwd(),
      shutdownSignal: () => stopped,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    const up = await fetch(`${url}/healthz`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (up) break;
    if (attempt > 200) throw new Error(`the replica did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    stop: async () => {
      stop();
      expect(await running, stderr).toBe(0);
    },
  };
}

describe.skipIf(!redisAvailable('the team cookie secret test'))(
  'the team cookie secret (issue 33, finding 4)',
  () => {
    it("is not in the store: a replica with the store and another environment takes no other replica's cookie", async () => {
      const redis = await startRedisServer();
      const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-cookie-secret-'));
      const replicas: Replica[] = [];
      try {
        const created = await runCliCaptured([
          'keys',
          'create',
          '--store',
          redis.url,
          '--name',
          'alice',
        ]);
        expect(created.code, created.stderr).toBe(0);
        const aliceKey = created.stdout.trim();
        replicas.push(await startReplica(redis.url, path.join(folder, 'one'), 'admin-key-one'));
        replicas.push(await startReplica(redis.url, path.join(folder, 'two'), 'admin-key-two'));
        const [one, two] = replicas as [Replica, Replica];
        const signIn = await fetch(`${one.url}/?token=${aliceKey}`, { redirect: 'manual' });
        expect(signIn.status).toBe(303);
        const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
        const sessions = (url: string) =>
          fetch(`${url}/api/sessions`, { headers: { cookie } }).then((answer) => answer.status);
        // Alice's cookie opens her sessions where it was signed; the other replica knows the whole
        // store, Alice's key included, and still cannot check (or forge) it.
        expect(await sessions(one.url)).toBe(200);
        expect(await sessions(two.url)).toBe(401);
      } finally {
        for (const replica of replicas) await replica.stop();
        await redis.close();
        await fs.rm(folder, { recursive: true, force: true });
      }
    }, 60_000);
  },
);
