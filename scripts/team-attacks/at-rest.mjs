/**
 * After every other attack: is any key anywhere it must not be (every replica's log, HAProxy's
 * log, /metrics, every Redis value and key name, every file of the replicas' state folders), did
 * any replica die that was not stopped on purpose, and how high did each one's RSS go.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { metricsText } from './lib/probes.mjs';
import { ADMIN_KEY, ALICE_PROVIDER_KEY, BOB_PROVIDER_KEY, TEAM_GEMINI_KEY } from './lib/world.mjs';
import { allKeys } from './store.mjs';

const RSS_BOUND_MB = 500;

/** Every value in database `db` of the world's Redis, as text, with its key. */
async function* redisValues(url) {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    for (const key of await allKeys(redis)) {
      const type = await redis.type(key);
      let parts = [];
      if (type === 'string') parts = [await redis.getBuffer(key)];
      else if (type === 'hash') parts = Object.entries(await redis.hgetallBuffer(key)).flat();
      else if (type === 'list') parts = await redis.lrangeBuffer(key, 0, -1);
      else if (type === 'set') parts = await redis.smembersBuffer(key);
      else if (type === 'zset') parts = await redis.zrangeBuffer(key, 0, -1);
      else if (type === 'stream')
        parts = [Buffer.from(JSON.stringify(await redis.xrange(key, '-', '+')))];
      yield [
        key,
        Buffer.concat(
          parts.map((part) => (Buffer.isBuffer(part) ? part : Buffer.from(String(part)))),
        ),
      ];
    }
  } finally {
    redis.disconnect();
  }
}

async function* stateFiles(folder) {
  for (const entry of await fs.readdir(folder, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) yield* stateFiles(full);
    else if (entry.isFile()) {
      const stat = await fs.stat(full);
      if (stat.size < 64 * 1024 * 1024) yield [full, await fs.readFile(full)];
    }
  }
}

const keysAtRest = {
  title: 'every key used in the run, looked for in logs, /metrics, Redis and the state folders',
  property:
    'no key is ever written to a log, /metrics, Redis or disk: virtual keys, the admin key (old and rotated), the team key, provider keys and made-up keys appear nowhere',
  async run(world, evidence) {
    const secrets = [
      ...Object.entries(world.keys).map(([name, key]) => [`${name}'s virtual key`, key]),
      ['the admin key', ADMIN_KEY],
      ['the rotated admin key', 'rotated-admin-key-5c1d'],
      ["the team's Gemini key", TEAM_GEMINI_KEY],
      ["Alice's provider key", ALICE_PROVIDER_KEY],
      ["Bob's provider key", BOB_PROVIDER_KEY],
      ['the Redis password', 'redis-password-3e9b1'],
      ['made-up provider keys', 'sk-made-up'],
      ['made-up Gemini keys', 'AIza-made-up'],
      ['made-up virtual keys', 'tmk_made_up'],
      ['made-up virtual keys (flood)', 'tmk_madeup'],
      ['made-up feed keys', 'feed-made-up'],
    ];
    const places = new Map();
    // Alice's output text is stored on purpose: finding it shows the scan sees stored values.
    secrets.push(['canary', 'ALICESECRET-1 line']);
    const look = (place, buffer) => {
      for (const [what, secret] of secrets) {
        if (buffer.includes(secret)) places.set(what, [...(places.get(what) ?? []), place]);
      }
    };
    let scanned = { logs: 0, redis: 0, files: 0 };
    for (const replica of world.replicas) {
      look(`${replica.name}'s log`, Buffer.from(replica.log));
      scanned.logs += replica.log.length;
    }
    look("HAProxy's log", Buffer.from(world.haproxy.output()));
    for (const replica of [world.r1, world.r2]) {
      look(`${replica.name}'s /metrics`, Buffer.from((await metricsText(replica)).text));
    }
    for (const db of [0, 2]) {
      for await (const [key, value] of redisValues(`${world.redis.url}/${db}`)) {
        look(`Redis db ${db} ${key.slice(0, 60)}`, Buffer.concat([Buffer.from(key), value]));
        scanned.redis += value.length;
      }
    }
    for (const replica of world.replicas) {
      for await (const [file, content] of stateFiles(replica.stateDir)) {
        look(file.slice(world.root.length), content);
        scanned.files += content.length;
      }
    }
    for await (const [file, content] of stateFiles(path.join(world.root, 'shared-outputs'))) {
      look(file.slice(world.root.length), content);
      scanned.files += content.length;
    }
    evidence.note(
      `scanned ${(scanned.logs / 1e6).toFixed(1)} MB of replica logs (${world.replicas.length} replicas), HAProxy's log, /metrics of r1 and r2, ${(scanned.redis / 1e6).toFixed(1)} MB of Redis values, ${(scanned.files / 1e6).toFixed(1)} MB of state files`,
    );
    evidence.check(
      places.has('canary'),
      `the scan reads stored text: Alice's output lines found in ${places.get('canary')?.length ?? 0} places`,
    );
    places.delete('canary');
    for (const [what] of secrets.filter(([name]) => name !== 'canary')) {
      const found = places.get(what) ?? [];
      evidence.check(
        found.length === 0,
        `${what}: ${found.length ? `found in ${found.slice(0, 3).join('; ')}` : 'nowhere'}`,
      );
    }
  },
};

const noneDied = {
  title: 'after the run: every replica that was not stopped on purpose, and the peak RSS of each',
  property: `a stranger cannot crash a replica, and RSS stays under ${RSS_BOUND_MB} MB: every replica still runs as the process it started as`,
  async run(world, evidence) {
    for (const replica of world.replicas) {
      if (!replica.stoppedOnPurpose) {
        evidence.check(
          replica.alive(),
          `${replica.name} (pid ${replica.pid}): ${replica.alive() ? 'running' : `exited ${replica.exit}`}`,
        );
      }
      evidence.check(
        replica.peakRssMb < RSS_BOUND_MB,
        `${replica.name}: peak RSS ${replica.peakRssMb.toFixed(0)} MB`,
      );
    }
  },
};

export default [keysAtRest, noneDied];
