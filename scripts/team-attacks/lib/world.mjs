/**
 * The team the attacks run against, made of real parts on loopback: a `redis-server` in a
 * temporary folder, a fake provider that accepts only the keys it knows (any other: 401) and
 * records every request, `toolmask gateway --store redis://…` replicas started from the built CLI
 * (packages/cli/dist, which runs packages/gateway/dist) as the team e2e test starts them, and
 * HAProxy with the docs' configuration in front of two of them. Every replica's stdout and stderr
 * are kept (the leak checks read them) and its RSS sampled (the memory checks read the peak).
 */
import { spawn } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { startRedisServer } from '@toolmask/test-support/dist/redis-server.js';
import { startHaproxy } from '@toolmask/test-support/dist/haproxy.js';
import { freePort } from '@toolmask/test-support/dist/loopback-servers.js';
import { startProvider } from './provider.mjs';
import { aliceHistory } from './histories.mjs';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const CLI = path.join(REPO, 'packages/cli/dist/index.js');

export const TEAM_GEMINI_KEY = 'team-gemini-key-0f3a9c';
export const ADMIN_KEY = 'admin-key-7d1e55b0c2';
/** Provider keys of people who bring their own (the fake provider accepts them). */
export const ALICE_PROVIDER_KEY = 'alice-own-provider-key-91';
export const BOB_PROVIDER_KEY = 'bob-own-provider-key-42';

/**
 * Low thresholds, and `warmRule: 'floor'`: Alice's session is two turns, and the default rule
 * (`pay-back`, since 2026-12-03) masks nothing that early in a session.
 */
const SETTINGS = {
  experimental: {
    toolOutputMasking: {
      warmRule: 'floor',
      toolProtectionThreshold: 8_000,
      minPrunableTokensThreshold: 8_000,
    },
  },
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** VmRSS of a process in MB; undefined once it is gone. */
export function rssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One `toolmask gateway` replica process. `alive()` says whether the process started is still the
 * one running (a crash or a restart shows as not alive).
 */
export async function startReplica(world, name, options = {}) {
  const port = await freePort();
  const stateDir = path.join(world.root, `state-${name}`);
  const args = [
    CLI,
    'gateway',
    '--store',
    options.store ?? world.store,
    '--port',
    String(port),
    '--state-dir',
    stateDir,
    '--upstream',
    world.provider.url,
    '--openai-upstream',
    `${world.provider.url}/v1`,
    '--anthropic-upstream',
    world.provider.url,
    '--vertex-upstream',
    world.provider.url,
    '--code-assist-upstream',
    world.provider.url,
    '--settings',
    world.settingsFile,
    '--provider-key-env',
    'gemini=TEAM_GEMINI_KEY',
    '--admin-key-env',
    'TEAM_ADMIN_KEY',
    '--instance',
    name,
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      HOME: world.root,
      TEAM_GEMINI_KEY,
      TEAM_ADMIN_KEY: options.adminKey ?? ADMIN_KEY,
      ...(options.env ?? {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const replica = {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stateDir,
    child,
    args,
    log: '',
    peakRssMb: 0,
    exit: undefined,
    alive: () => replica.exit === undefined && rssMb(child.pid) !== undefined,
    stoppedOnPurpose: false,
    async stop(signal = 'SIGTERM') {
      replica.stoppedOnPurpose = true;
      if (replica.exit !== undefined) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await Promise.race([exited, sleep(5_000).then(() => child.kill('SIGKILL'))]);
    },
  };
  const keep = (chunk) => {
    replica.log += chunk.toString('utf8');
    if (replica.log.length > 4_000_000) replica.log = replica.log.slice(-2_000_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.once('exit', (code, signal) => (replica.exit = signal ?? code));
  // However the run ends (an attack that throws, Ctrl-C), no replica outlives it.
  process.once('exit', () => child.kill('SIGKILL'));
  world.replicas.push(replica);
  const deadline = Date.now() + 30_000;
  while (!replica.log.includes('listening on')) {
    if (replica.exit !== undefined) throw new Error(`replica ${name} exited: ${replica.log}`);
    if (Date.now() > deadline) throw new Error(`replica ${name} did not start: ${replica.log}`);
    await sleep(50);
  }
  return replica;
}

/** `toolmask keys <verb> --store … --name …`; resolves with stdout (the key for `create`). */
export async function keys(store, verb, name, env = {}) {
  const child = spawn(process.execPath, [CLI, 'keys', verb, '--store', store, '--name', name], {
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`toolmask keys ${verb} ${name}: exit ${code}: ${stderr}`);
  return { stdout: stdout.trim(), stderr, cmdline: child.spawnargs.join(' ') };
}

/** Every masked output's path named in a body the provider received. */
export function filesIn(text) {
  return [...new Set(text.match(/\/toolmask-team\/tool-outputs\/[^"\\\s]+/g) ?? [])];
}

/**
 * Starts the team: Redis, the provider, replicas r1 and r2 behind HAProxy, keys for Alice, Bob
 * and Carol (Carol's is revoked by the cookie attacks), and Alice's first session (its masked
 * outputs are what Bob tries to read).
 */
export async function startWorld() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-attacks-'));
  const world = { root, replicas: [], cleanups: [], secrets: {} };
  world.settingsFile = path.join(root, 'settings.json');
  await fs.writeFile(world.settingsFile, JSON.stringify(SETTINGS));
  world.redis = await startRedisServer();
  world.cleanups.push(() => world.redis.close());
  world.store = `${world.redis.url}/0`;
  world.redisClient = new Redis(world.store, { lazyConnect: false, maxRetriesPerRequest: 1 });
  world.cleanups.push(() => world.redisClient.disconnect());
  world.provider = await startProvider(
    new Set([TEAM_GEMINI_KEY, ALICE_PROVIDER_KEY, BOB_PROVIDER_KEY]),
  );
  world.cleanups.push(() => world.provider.close());

  const [alice, bob, carol] = await Promise.all(
    ['alice', 'bob', 'carol'].map(async (name) => (await keys(world.store, 'create', name)).stdout),
  );
  world.keys = { alice, bob, carol };
  world.r1 = await startReplica(world, 'r1');
  world.r2 = await startReplica(world, 'r2');
  world.haproxy = await startHaproxy({
    backends: [world.r1, world.r2].map((replica) => ({ name: replica.name, port: replica.port })),
  });
  world.cleanups.push(() => world.haproxy.stop());

  // RSS of every replica, sampled every 200 ms for the whole run.
  const sampler = setInterval(() => {
    for (const replica of world.replicas) {
      const rss = rssMb(replica.pid);
      if (rss !== undefined && rss > replica.peakRssMb) replica.peakRssMb = rss;
    }
  }, 200);
  world.cleanups.push(() => clearInterval(sampler));

  // Alice's session: a history with bulky outputs, sent twice (masked from the first).
  const body = aliceHistory();
  for (let turn = 0; turn < 2; turn++) {
    const answer = await fetch(`${world.r1.url}${GEMINI_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': alice },
      body,
    });
    await answer.arrayBuffer();
    if (answer.status !== 200) throw new Error(`Alice's session: ${answer.status}`);
  }
  const sent = world.provider.requests.filter((request) =>
    request.path.includes('generateContent'),
  );
  world.aliceFiles = filesIn(sent.at(-1)?.raw.toString('utf8') ?? '');
  if (world.aliceFiles.length === 0)
    throw new Error("Alice's session masked nothing: no file to attack");
  return world;
}

export const GEMINI_PATH = '/v1beta/models/gemini-2.5-flash:generateContent';

export async function stopWorld(world) {
  for (const replica of world.replicas) await replica.stop().catch(() => undefined);
  for (const cleanup of world.cleanups.reverse()) {
    await Promise.resolve()
      .then(cleanup)
      .catch(() => undefined);
  }
  await fs.rm(world.root, { recursive: true, force: true });
}
