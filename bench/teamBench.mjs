/**
 * Section 5 of `npm run bench`: what a team gateway (`toolmask gateway --store redis://...`,
 * state in Redis, replicas behind HAProxy) costs next to today's single gateway with its state in
 * files, all measured in one run, with the discipline of section 4 (bench/gatewayBench.mjs): every
 * server in a child process of its own, the client in this one, each request sent to every path in
 * turn (here with a pause after each, PAUSE_MS), percentiles of 200 timed requests.
 *
 *   5a. added latency of the ~1.2 MB growing conversations of section 4a, with a provider key on
 *       every request (a team gateway asks each request for one; its owner is the key's SHA-256),
 *       through: direct to the fake upstream; the bare Node proxy (bench/bareProxy.mjs); one
 *       gateway with the file store; one replica with `--store redis://`; three replicas sharing
 *       one Redis behind HAProxy (round robin, docs/team/haproxy.cfg); and three bare proxies
 *       behind the same HAProxy configuration, the floor of the balancer. The Redis round trips
 *       are the one-replica gateway's added p50 minus the file gateway's (goal: under 1 ms);
 *   5b. requests per second with 50 concurrent conversations, through the same paths;
 *   5c. Redis memory per conversation, from `INFO memory` and `MEMORY USAGE` (SAMPLES 0) of every
 *       key before and after each phase of the replicas' Redis: state (decisions, meta and owner,
 *       usage records) per conversation, outputs per MB offloaded;
 *   5d. the first request of an unseen 2.5 MB conversation: through a replica that never saw it
 *       (another replica made its state in Redis) and through the file gateway after a restart;
 *   5e. today's single gateway in this run next to the figures of an independent measurement.
 *
 * Needs `npm run build`, `redis-server` on PATH and /usr/sbin/haproxy; skipped with a note
 * without them. Every process it starts (Redis, HAProxy, gateways, proxies, the fake) is stopped
 * when it ends, fails, or is interrupted (SIGINT, SIGTERM).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  percentile,
  startFakeUpstream,
  startGatewayProcess,
  startListening,
} from './childProcess.mjs';
import {
  WARM_UP,
  createGatewayClient,
  fmt,
  growingConversation,
  over,
  timedSizes,
} from './gatewayClient.mjs';
import { HAPROXY_PATH, startHaproxy } from './haproxy.mjs';
import { redisServerPath, startRedisServer } from './redisServer.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = path.join(root, 'packages/cli/examples/long-session.json');

/** The key every request carries: a provider key (any), so its owner is its SHA-256. */
const CLIENT_KEY = 'bench-client-provider-key';
/** The replicas' own keys, passed by environment variable as a team passes them. */
const TEAM_ENV = {
  TOOLMASK_BENCH_PROVIDER_KEY: 'bench-team-provider-key',
  TOOLMASK_BENCH_ADMIN_KEY: 'bench-team-admin-key',
};
const REPLICAS = 3;
/**
 * Milliseconds between two requests of 5a and 5d: what a server does after its answer has ended
 * (the file gateway writes its state then, a replica before) must not fall into the next path's
 * request, since in use a client's next request comes seconds later. Without it the Redis
 * replica's p50 over the file gateway's moved between 1.3 and 2.9 ms from run to run.
 */
const PAUSE_MS = 10;
/** Rounds of 5b, each path in turn in each. */
const THROUGHPUT_ROUNDS = 3;
/** Requests of an "unseen" conversation sent (elsewhere) before its timed first one. */
const SEEN_BEFORE = 3;
/**
 * Where an unseen conversation starts. The example's 780 KB output takes its conversations from
 * 1.87 MB to 2.65 MB in one exchange: its requests are 2.65–2.67 MB, the nearest it gives.
 */
const UNSEEN_BYTES = 2_500_000;
/** What a gateway prints on stderr when it starts (not a message about the run). */
const BANNER = /^toolmask gateway: (a team replica|dashboard at)/;

/** The paths, in the order each request visits them. */
const PATH = {
  direct: 'direct',
  bare: 'bare Node proxy',
  file: 'gateway, file store',
  redis: 'gateway, Redis (1 replica)',
  haBare: 'HAProxy → 3 bare proxies',
  haTeam: 'HAProxy → 3 replicas, Redis',
  haSingle: 'HAProxy → 1 replica, Redis',
};

/** The single gateway's figures as an independent measurement found them, printed beside ours. */
const REFERENCE = {
  maskingP50: '5.7–7.1',
  maskingP99: '17–23',
  bareP50: '2.5',
  bareP99: '13–15',
  maskingRps: '412–469',
  bareRps: '1,172–1,342',
  unseenMs: '29–50',
};

/**
 * Every process the section starts, stopped at its end; killed outright should this process
 * exit early or be told to stop (then `onKill` runs too).
 */
function processGroup(onKill) {
  const open = new Set();
  const killAll = () => {
    for (const handle of open) {
      try {
        process.kill(handle.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  };
  const onSignal = (signal) => {
    killAll();
    onKill();
    process.exit(128 + os.constants.signals[signal]);
  };
  process.on('exit', killAll);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const stop = async (handle) => {
    open.delete(handle);
    let timer;
    const timeout = new Promise((resolve) => (timer = setTimeout(resolve, 5_000, 'timeout')));
    const outcome = await Promise.race([handle.close(), timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      try {
        process.kill(handle.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  };
  return {
    /** Resolves with what `starting` starts, kept to be stopped. */
    async add(starting) {
      const handle = await starting;
      open.add(handle);
      return handle;
    },
    stop,
    async stopAll() {
      await Promise.allSettled([...open].map(stop));
      process.off('exit', killAll);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * The status codes in HAProxy's logs (`option httplog`: `... 200 370 - - ---- 1/1/0/0/0 0/0 ...`, the
 * last connection count the retries, `+N` when redispatched), to tell a failed or retried request from a slow one.
 */
function haproxyStatuses(proxies) {
  const statuses = {};
  let retried = 0;
  for (const proxy of proxies) {
    for (const line of proxy.log().split('\n')) {
      if (!line.includes(' gateways/')) continue;
      const match = / (-?\d+) \d+ \S+ \S+ \S{4} \d+\/\d+\/\d+\/\d+\/(\+?\d+) /.exec(line);
      const status = match?.[1] ?? /is (UP|DOWN)/.exec(line)?.[0] ?? 'unread';
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (match && match[2] !== '0') retried++;
    }
  }
  return { statuses, retried };
}

/** Starts every `starting` at once; all that started are kept even when one fails. */
async function all(startings) {
  const settled = await Promise.allSettled(startings);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => result.value);
}

/**
 * Every key of the Redis at `redis` with its `MEMORY USAGE` (SAMPLES 0: every element counted),
 * its type and length (a string's bytes, a list's or a sorted set's elements), and `used_memory`.
 */
async function redisSnapshot(redis) {
  const keys = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.client.scan(cursor, 'COUNT', 1_000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  const first = redis.client.pipeline();
  for (const key of keys) first.call('MEMORY', 'USAGE', key, 'SAMPLES', '0').type(key);
  const replies = (await first.exec()).map(([error, value]) => {
    if (error) throw error;
    return value;
  });
  const lengths = redis.client.pipeline();
  keys.forEach((key, index) => {
    const type = replies[index * 2 + 1];
    if (type === 'string') lengths.strlen(key);
    else if (type === 'list') lengths.llen(key);
    else if (type === 'zset') lengths.zcard(key);
    else lengths.exists(key);
  });
  const counts = (await lengths.exec()).map(([error, value]) => {
    if (error) throw error;
    return Number(value);
  });
  const byKey = new Map(
    keys.map((key, index) => [key, { bytes: Number(replies[index * 2]), length: counts[index] }]),
  );
  const usedMemory = Number((await redis.info('memory')).used_memory);
  return { usedMemory, byKey };
}

/** What a key of the team's Redis holds (the gateway's `toolmask:` prefix removed). */
function kindOf(key) {
  const name = key.replace(/^toolmask:/, '');
  if (/^conversation:\{[0-9a-f]+\}:decisions$/.test(name)) return 'decisions';
  if (/^conversation:\{[0-9a-f]+\}:(meta|owner)$/.test(name)) return 'meta';
  if (name.startsWith('{usage}:')) return 'usage';
  if (name.startsWith('output:') || name === 'outputs:saved') return 'outputs';
  return 'other';
}

/** What the Redis gained between two snapshots, by kind of key. */
function redisGrowth(before, after) {
  const sum = (snapshot, kind, field, only = () => true) => {
    let total = 0;
    for (const [key, entry] of snapshot.byKey) {
      if (kindOf(key) === kind && only(key)) total += entry[field];
    }
    return total;
  };
  const grown = (kind, field = 'bytes', only) =>
    sum(after, kind, field, only) - sum(before, kind, field, only);
  const isOutput = (key) => key.includes(':output:');
  const isAllUsage = (key) => key.endsWith('{usage}:all');
  const isMeta = (key) => key.endsWith(':meta');
  return {
    usedMemory: after.usedMemory - before.usedMemory,
    newConversations: countNew(before, after, isMeta),
    decisionsBytes: grown('decisions'),
    decisions: grown('decisions', 'length'),
    metaBytes: grown('meta'),
    usageBytes: grown('usage'),
    usageRecords: grown('usage', 'length', isAllUsage),
    outputsBytes: grown('outputs'),
    outputs: countNew(before, after, isOutput),
    offloadedBytes: grown('outputs', 'length', isOutput),
  };
}

/** Keys in `after` and not in `before` that `only` accepts. */
function countNew(before, after, only) {
  let count = 0;
  for (const key of after.byKey.keys()) if (only(key) && !before.byKey.has(key)) count++;
  return count;
}

/** Milliseconds of `count` PINGs to `redis`, one after another, from this process. */
async function pingTimes(redis, count) {
  const times = [];
  for (let index = 0; index < count; index++) {
    const started = process.hrtime.bigint();
    await redis.client.ping();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times;
}

/** Commands, their calls and Redis's CPU seconds so far (for a difference over a phase). */
async function redisWork(redis) {
  const commands = await redis.info('commandstats');
  const cpu = await redis.info('cpu');
  const calls = {};
  for (const [field, value] of Object.entries(commands)) {
    const name = field.replace(/^cmdstat_/, '');
    if (name === 'info') continue;
    calls[name] = Number(/calls=(\d+)/.exec(value)?.[1] ?? 0);
  }
  return { calls, cpuSeconds: Number(cpu.used_cpu_user) + Number(cpu.used_cpu_sys) };
}

function workBetween(before, after, requests) {
  const perRequest = Object.entries(after.calls)
    .map(([name, calls]) => [name, (calls - (before.calls[name] ?? 0)) / requests])
    .filter(([, calls]) => calls > 0)
    .sort((a, b) => b[1] - a[1]);
  return {
    perRequest,
    commands: perRequest.reduce((sum, [, calls]) => sum + calls, 0),
    cpuMs: ((after.cpuSeconds - before.cpuSeconds) * 1000) / requests,
  };
}

export async function runTeamBench({ quick = false } = {}) {
  const missing = [
    redisServerPath() ? undefined : 'redis-server (not on PATH)',
    fs.existsSync(HAPROXY_PATH) ? undefined : HAPROXY_PATH,
  ].filter(Boolean);
  if (missing.length > 0) {
    console.log(`(section 5 skipped: ${missing.join(' and ')} is absent)`);
    return undefined;
  }
  const contents = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-team-bench-'));
  const settings = path.join(scratch, 'settings.json');
  fs.writeFileSync(
    settings,
    JSON.stringify({ experimental: { toolOutputMasking: { enabled: true } } }),
  );
  const group = processGroup(() => fs.rmSync(scratch, { recursive: true, force: true }));
  const client = createGatewayClient({ headers: { 'x-goog-api-key': CLIENT_KEY } });
  const startedAt = performance.now();
  const fileStateDir = path.join(scratch, 'file-gateway');
  const startFileGateway = (upstreamUrl) =>
    startGatewayProcess([
      '--state-dir',
      fileStateDir,
      '--settings',
      settings,
      '--upstream',
      upstreamUrl,
    ]);
  const startReplica = (store, name, upstreamUrl) =>
    startGatewayProcess(
      [
        ...['--store', store, '--state-dir', path.join(scratch, name), '--settings', settings],
        ...['--upstream', upstreamUrl, '--instance', name],
        ...['--provider-key-env', 'TOOLMASK_BENCH_PROVIDER_KEY'],
        ...['--admin-key-env', 'TOOLMASK_BENCH_ADMIN_KEY'],
      ],
      undefined,
      [],
      TEAM_ENV,
    );
  const startBareProxy = (upstreamUrl) =>
    startListening([path.join(root, 'bench/bareProxy.mjs'), upstreamUrl]);
  const results = {};
  let finished = false;
  const gatewayProcesses = [];
  try {
    const [upstream, singleRedis, teamRedis] = await all([
      group.add(startFakeUpstream()),
      group.add(startRedisServer(scratch)),
      group.add(startRedisServer(scratch)),
    ]);
    const servers = await all([
      group.add(startBareProxy(upstream.url)),
      group.add(startFileGateway(upstream.url)),
      group.add(startReplica(singleRedis.url, 'single', upstream.url)),
      ...Array.from({ length: REPLICAS }, (_, index) =>
        group.add(startReplica(teamRedis.url, `replica-${index + 1}`, upstream.url)),
      ),
      ...Array.from({ length: REPLICAS }, () => group.add(startBareProxy(upstream.url))),
    ]);
    const [bare, , single] = servers;
    let file = servers[1];
    const replicas = servers.slice(3, 3 + REPLICAS);
    const bareBehind = servers.slice(3 + REPLICAS);
    const portOf = (server) => Number(new URL(server.url).port);
    const [haTeam, haBare, haSingle] = await all([
      group.add(
        startHaproxy({
          backends: replicas.map((replica, index) => ({
            name: `replica-${index + 1}`,
            port: portOf(replica),
          })),
          scratch,
        }),
      ),
      group.add(
        startHaproxy({
          backends: bareBehind.map((proxy, index) => ({
            name: `bare-${index + 1}`,
            port: portOf(proxy),
          })),
          scratch,
        }),
      ),
      // For 5b only: the balancer without the round robin, to tell their costs apart.
      group.add(startHaproxy({ backends: [{ name: 'single', port: portOf(single) }], scratch })),
    ]);
    gatewayProcesses.push(['file', file], ['single', single]);
    replicas.forEach((replica, index) => gatewayProcesses.push([`replica-${index + 1}`, replica]));
    const paths = [
      [PATH.direct, upstream.url],
      [PATH.bare, bare.url],
      [PATH.file, file.url],
      [PATH.redis, single.url],
      [PATH.haBare, haBare.url],
      [PATH.haTeam, haTeam.url],
    ];
    results.startSeconds = (performance.now() - startedAt) / 1000;

    // 5a. Latency: the conversations of section 4a, the Redis stores watched around them.
    const latencyConversations = Array.from({ length: quick ? 6 : 20 }, (_, index) =>
      growingConversation(contents, 1_000_000, WARM_UP + 10, `latency ${index}`),
    );
    results.sizes = timedSizes(latencyConversations);
    results.ping = await pingTimes(singleRedis, 200);
    const teamSnapshots = [await redisSnapshot(teamRedis)];
    const workBefore = await redisWork(singleRedis);
    results.latency = await client.latency(paths, latencyConversations, { pauseMs: PAUSE_MS });
    const requestsEach = latencyConversations.reduce((sum, c) => sum + c.ends.length, 0);
    results.redisWork = workBetween(workBefore, await redisWork(singleRedis), requestsEach);
    teamSnapshots.push(await redisSnapshot(teamRedis));
    results.latencySeconds = (performance.now() - startedAt) / 1000 - results.startSeconds;

    // 5b. Throughput: 50 concurrent conversations of ~100 KB, 10 requests each, through each
    // path in turn, in rounds (new conversations each round), so that a slow stretch of the
    // machine falls on all alike. HAProxy → 1 replica gets conversations of its own (the replica
    // saw the others).
    const throughputConversations = (tag) =>
      Array.from({ length: quick ? 10 : 50 }, (_, index) =>
        growingConversation(contents, 100_000, quick ? 5 : 10, `${tag}${index}`),
      );
    const throughputPaths = [...paths, [PATH.haSingle, haSingle.url, 'h']];
    results.rps = Object.fromEntries(throughputPaths.map(([name]) => [name, []]));
    const throughTeam = [];
    for (let round = 0; round < (quick ? 1 : THROUGHPUT_ROUNDS); round++) {
      const shared = throughputConversations(`r${round} c`);
      throughTeam.push(...shared);
      for (const [name, url, tag] of throughputPaths) {
        const conversations = tag ? throughputConversations(`r${round} ${tag}`) : shared;
        // Every run opens its connections anew, as 4b's single run does (one was open per path).
        client.reconnect();
        results.rps[name].push(await client.throughput(url, conversations));
      }
    }
    teamSnapshots.push(await redisSnapshot(teamRedis));

    // 5c. Memory: the conversations of section 4c through the replicas, 20 at a time.
    const memoryConversations = Array.from({ length: quick ? 20 : 100 }, (_, index) =>
      growingConversation(contents, 300_000, 10, `m-${index}`),
    );
    client.reconnect();
    for (let first = 0; first < memoryConversations.length; first += 20) {
      await Promise.all(
        memoryConversations
          .slice(first, first + 20)
          .map((conversation) => client.sendEach(haTeam.url, conversation)),
      );
    }
    teamSnapshots.push(await redisSnapshot(teamRedis));
    const describe = (conversations) => {
      const firsts = conversations.map((conversation) => conversation.ends[0]);
      const lasts = conversations.map((conversation) => conversation.ends.at(-1));
      return {
        conversations: conversations.length,
        requests: conversations[0].ends.length,
        firstMb: Math.min(...firsts) / 1e6,
        lastMb: Math.max(...lasts) / 1e6,
      };
    };
    results.memory = [
      { ...describe(latencyConversations), ...redisGrowth(teamSnapshots[0], teamSnapshots[1]) },
      {
        ...describe(throughTeam),
        ...redisGrowth(teamSnapshots[1], teamSnapshots[2]),
      },
      { ...describe(memoryConversations), ...redisGrowth(teamSnapshots[2], teamSnapshots[3]) },
    ];

    // 5d. The first request of an unseen 2.5 MB conversation: its first requests go to the file
    // gateway and to replica 1; the file gateway restarts (then serves a warm-up conversation,
    // so its own start is not what is timed); the next request goes to each, and to replica 2,
    // which never saw the conversation but finds replica 1's state in Redis.
    const unseen = Array.from({ length: quick ? 3 : 8 }, (_, index) =>
      growingConversation(contents, UNSEEN_BYTES, SEEN_BEFORE + 1, `unseen ${index}`),
    );
    client.reconnect();
    for (const conversation of unseen) {
      await client.sendEach(file.url, conversation, 0, SEEN_BEFORE);
      await client.sendEach(replicas[0].url, conversation, 0, SEEN_BEFORE);
    }
    await group.stop(file);
    file = await group.add(startFileGateway(upstream.url));
    gatewayProcesses.push(['file, restarted', file]);
    for (let index = 0; index < 2; index++) {
      await client.sendEach(
        file.url,
        growingConversation(contents, 1_000_000, WARM_UP + 1, `restart warm-up ${index}`),
      );
    }
    results.unseen = { direct: [], file: [], replica: [], fileMask: [], replicaMask: [] };
    const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    for (const conversation of unseen) {
      await pause();
      results.unseen.direct.push(
        (await client.send(upstream.url, conversation, SEEN_BEFORE)).total,
      );
      await pause();
      const fromFile = await client.send(file.url, conversation, SEEN_BEFORE);
      results.unseen.file.push(fromFile.total);
      results.unseen.fileMask.push(fromFile.phases.mask);
      await pause();
      const fromReplica = await client.send(replicas[1].url, conversation, SEEN_BEFORE);
      results.unseen.replica.push(fromReplica.total);
      results.unseen.replicaMask.push(fromReplica.phases.mask);
    }
    results.unseenMb = unseen.map((c) => c.ends[SEEN_BEFORE] / 1e6);
    results.haproxy = haproxyStatuses([haTeam, haBare, haSingle]);
    finished = true;
  } finally {
    results.messages = gatewayProcesses.flatMap(([name, handle]) =>
      handle
        .stderr()
        .split('\n')
        .filter((line) => line.trim() && !BANNER.test(line))
        .map((line) => `${name}: ${line}`),
    );
    // A run that failed says what the servers said before it stops them.
    if (!finished) for (const line of results.messages) console.error(line);
    client.close();
    await group.stopAll();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  results.seconds = (performance.now() - startedAt) / 1000;
  report(results);
  return results;
}

/** Bytes as kB (1,000 bytes, as MB here are 1,000,000). */
const kb = (bytes) => fmt(bytes / 1000, 1);

function report(results) {
  const { latency, sizes } = results;
  const direct = latency[PATH.direct].totals;
  const bare = latency[PATH.bare].totals;
  const haBare = latency[PATH.haBare].totals;
  const pair = (values, base) =>
    `${fmt(over(values, base, 0.5))} / ${fmt(over(values, base, 0.99))}`;
  console.log(
    `\n### 5a. Added latency, ${sizes.count} requests of ${sizes.firstMb}–${sizes.lastMb} MB, each with a provider key (the conversations of 4a), ${PAUSE_MS} ms between requests`,
  );
  console.log(
    '| path | total p50 / p99 ms | added over direct p50 / p99 ms | over the bare proxy p50 / p99 ms | over HAProxy → bare proxies p50 / p99 ms |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const [name, result] of Object.entries(latency)) {
    const totals = result.totals;
    const cells = [
      `${fmt(percentile(totals, 0.5))} / ${fmt(percentile(totals, 0.99))}`,
      name === PATH.direct ? '–' : pair(totals, direct),
      name === PATH.direct || name === PATH.bare ? '–' : pair(totals, bare),
      name === PATH.haTeam ? pair(totals, haBare) : '–',
    ];
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
  console.log(
    "\nWhere a gateway's time goes, p50 / p99 ms. Its Server-Timing header has `read`, `mask` (decoding, catching up with the store, the pass, writing decisions and outputs) and `upstream` (until the answer's headers): no phase of its own for Redis. `after` = total − read − mask − upstream: the answer streamed back, and on a replica the conversation's state and usage record, written to Redis before the answer ends (the file gateway writes them after).",
  );
  console.log('| path | read | mask | upstream | after |');
  console.log('| --- | --- | --- | --- | --- |');
  const afters = {};
  for (const [name, result] of Object.entries(latency)) {
    if (!result.phases.mask) continue;
    const { read, mask, upstream } = result.phases;
    afters[name] = result.totals.map(
      (total, index) => total - read[index] - mask[index] - upstream[index],
    );
    const cell = (values) => `${fmt(percentile(values, 0.5))} / ${fmt(percentile(values, 0.99))}`;
    console.log(
      `| ${name} | ${cell(read)} | ${cell(mask)} | ${cell(upstream)} | ${cell(afters[name])} |`,
    );
  }
  const file = latency[PATH.file];
  const redis = latency[PATH.redis];
  const roundTrips = over(redis.totals, file.totals, 0.5);
  const maskPart = over(redis.phases.mask, file.phases.mask, 0.5);
  const afterPart = over(afters[PATH.redis], afters[PATH.file], 0.5);
  const work = results.redisWork;
  console.log(
    `\nRedis round trips (the one-replica gateway's added p50 minus the file gateway's, same run): ${fmt(roundTrips)} ms (p99 ${fmt(over(redis.totals, file.totals, 0.99))} ms); of it, by Server-Timing p50: mask ${fmt(maskPart)} ms, after the headers ${fmt(afterPart)} ms.`,
  );
  console.log(
    `Redis itself, per request of the one replica: ${fmt(work.commands, 1)} commands (those a script or transaction runs included: ${work.perRequest
      .slice(0, 8)
      .map(([name, calls]) => `${name} ${fmt(calls, 2)}`)
      .join(
        ', ',
      )}), ${fmt(work.cpuMs, 3)} ms of Redis CPU; one PING from the bench process (ioredis, loopback) takes p50 ${fmt(percentile(results.ping, 0.5), 3)} / p99 ${fmt(percentile(results.ping, 0.99), 3)} ms.`,
  );

  const rounds = Object.values(results.rps)[0].length;
  console.log(
    `\n### 5b. Requests per second, concurrent conversations of ~100 KB (those of 4b), ${rounds} round(s), each path in turn`,
  );
  console.log('| path | requests/s, median | min–max |');
  console.log('| --- | --- | --- |');
  for (const [name, rps] of Object.entries(results.rps)) {
    console.log(
      `| ${name} | ${fmt(percentile(rps, 0.5), 0)} | ${fmt(Math.min(...rps), 0)}–${fmt(Math.max(...rps), 0)} |`,
    );
  }

  console.log(
    "\n### 5c. Redis memory per conversation (the replicas' Redis; MEMORY USAGE of every key, SAMPLES 0, before and after each phase)",
  );
  console.log(
    '| conversations × requests (request MB) | used_memory per conversation kB | decisions per conversation (B each) | meta + owner B | usage B per request | state per conversation kB | outputs offloaded per conversation MB | outputs in Redis per MB offloaded |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const row of results.memory) {
    const n = row.conversations;
    const state = row.decisionsBytes + row.metaBytes + row.usageBytes;
    console.log(
      `| ${n} × ${row.requests} (${fmt(row.firstMb)}–${fmt(row.lastMb)}) | ${kb(row.usedMemory / n)} | ${fmt(row.decisions / n, 1)} (${fmt(row.decisionsBytes / row.decisions, 0)}) | ${fmt(row.metaBytes / n, 0)} | ${fmt(row.usageBytes / row.usageRecords, 0)} | ${kb(state / n)} | ${fmt(row.offloadedBytes / n / 1e6, 3)} | ${fmt(row.outputsBytes / row.offloadedBytes, 3)} MB |`,
    );
  }
  for (const row of results.memory) {
    if (row.newConversations !== row.conversations) {
      console.log(
        `(odd: ${row.conversations} conversations sent, ${row.newConversations} new in Redis)`,
      );
    }
  }

  const unseen = results.unseen;
  console.log(
    `\n### 5d. The first request of an unseen ${fmt(Math.min(...results.unseenMb))}–${fmt(Math.max(...results.unseenMb))} MB conversation (${unseen.direct.length} conversations, ${SEEN_BEFORE} requests each before it)`,
  );
  console.log(
    '| path | total p50 / max ms | added over direct p50 / max ms | Server-Timing mask p50 / max ms |',
  );
  console.log('| --- | --- | --- | --- |');
  const added = (values) => values.map((value, index) => value - unseen.direct[index]);
  const spread = (values) => `${fmt(percentile(values, 0.5))} / ${fmt(Math.max(...values))}`;
  console.log(`| direct | ${spread(unseen.direct)} | – | – |`);
  console.log(
    `| file gateway, after a restart | ${spread(unseen.file)} | ${spread(added(unseen.file))} | ${spread(unseen.fileMask)} |`,
  );
  console.log(
    `| replica that never saw it (state from another replica) | ${spread(unseen.replica)} | ${spread(added(unseen.replica))} | ${spread(unseen.replicaMask)} |`,
  );

  const on = latency[PATH.file].totals;
  console.log(
    "\n### 5e. Today's single gateway (file store) in this run, beside an independent measurement",
  );
  console.log('| figure | this run | independent measurement |');
  console.log('| --- | --- | --- |');
  console.log(
    `| masking on, added p50 over direct ms | ${fmt(over(on, direct, 0.5))} | ${REFERENCE.maskingP50} |`,
  );
  console.log(
    `| masking on, added p99 over direct ms | ${fmt(over(on, direct, 0.99))} | ${REFERENCE.maskingP99} |`,
  );
  console.log(
    `| bare proxy, added p50 / p99 over direct ms | ${pair(bare, direct)} | ${REFERENCE.bareP50} / ${REFERENCE.bareP99} |`,
  );
  console.log(
    `| masking on, requests/s | ${fmt(percentile(results.rps[PATH.file], 0.5), 0)} | ${REFERENCE.maskingRps} |`,
  );
  console.log(
    `| bare proxy, requests/s | ${fmt(percentile(results.rps[PATH.bare], 0.5), 0)} | ${REFERENCE.bareRps} |`,
  );
  console.log(
    `| first request of an unseen 2.5 MB conversation (${fmt(Math.min(...results.unseenMb))} MB here) after a restart, total p50 / max ms | ${spread(unseen.file)} | ${REFERENCE.unseenMs} |`,
  );
  if (results.messages.length > 0) {
    console.log(`\nThe gateways said (stderr), ${results.messages.length} lines:`);
    for (const line of results.messages.slice(0, 10)) console.log(`  ${line.slice(0, 300)}`);
  }
  console.log(
    `\nHAProxy's logs: ${Object.entries(results.haproxy.statuses)
      .map(([status, count]) => `${count} × ${status}`)
      .join(
        ', ',
      )}; ${results.haproxy.retried} retried. Section: ${fmt(results.seconds, 0)} s (starting ${fmt(results.startSeconds, 1)} s, 5a ${fmt(results.latencySeconds, 0)} s).`,
  );
  console.log(
    `Goal: Redis round trips under 1 ms added p50: ${fmt(roundTrips)} ms, ${roundTrips < 1 ? 'met' : 'NOT met'}.`,
  );
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) await runTeamBench({ quick: process.argv.includes('--quick') });
