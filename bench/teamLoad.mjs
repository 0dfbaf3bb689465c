/**
 * Section 5f of `npm run bench` (issue 33, "done when"): a team replica under a load of strangers.
 * 10,000 requests (`--quick`: 1,000) from 1,000 made-up keys (`--quick`: 100), each an OpenAI chat
 * request whose `model` is a 4 MB name and whose messages hold 1 MB, sent 8 at a time to one
 * replica (`toolmask gateway --store redis://...`, its own `redis-server`). A fake provider refuses
 * every key with 401, as a provider refuses a made-up key; one key in ten is a made-up virtual
 * key (`tmk_...`), which the replica refuses itself (403) without forwarding it.
 *
 * Measured: the replica's RSS (now and its high-water mark, from /proc) against the goal of
 * 500 MB; `/metrics` (with the admin key) after the load: its status and size against 1 MB; and
 * what Redis gained (keys and `used_memory`) against the documented bound for refused requests,
 * 0 bytes (docs/team.md: nothing is kept for a request that proves no identity).
 *
 * Needs `npm run build` and `redis-server` on PATH; skipped with a note without it.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { startGatewayProcess } from './childProcess.mjs';
import { redisServerPath, startRedisServer } from './redisServer.mjs';

const ADMIN_KEY = 'bench-team-admin-key';
const MB = 1024 * 1024;
const CONCURRENCY = 8;

/** A provider that refuses every key (401), reading each body whole first, as a provider does. */
function refusingProvider() {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'Incorrect API key provided', code: 401 } }));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, close: () => server.close() });
    });
  });
}

/** One chat request body: a 4 MB model name, 1 MB of messages (one buffer, sent every time). */
function hostileBody() {
  return Buffer.from(
    JSON.stringify({
      model: 'm'.repeat(4 * MB),
      messages: [{ role: 'user', content: 'x'.repeat(MB) }],
    }),
  );
}

/** `POST url` with `body` and `key` as Bearer; resolves with the status once the answer is read. */
function send(url, body, key) {
  return new Promise((resolve) => {
    const request = http.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        authorization: `Bearer ${key}`,
      },
      agent: false,
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    request.on('error', () => resolve('error'));
    request.end(body);
  });
}

/** Made-up key number `index`: one in ten looks like a virtual key, the rest like provider keys. */
function madeUpKey(index) {
  const tag = String(index).padStart(6, '0');
  return index % 10 === 0 ? `tmk_${tag.padEnd(43, 'x')}` : `sk-made-up-${tag}`;
}

async function redisFacts(redis) {
  const memory = await redis.info('memory');
  return { keys: await redis.client.dbsize(), usedMemory: Number(memory.used_memory) };
}

export async function runTeamLoadBench({ quick = false } = {}) {
  if (!redisServerPath()) {
    console.log('(section 5f skipped: redis-server is not on PATH)');
    return undefined;
  }
  const requests = quick ? 1_000 : 10_000;
  const keys = quick ? 100 : 1_000;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-team-load-'));
  const provider = await refusingProvider();
  let redis;
  let replica;
  try {
    redis = await startRedisServer(scratch);
    replica = await startGatewayProcess(
      [
        ...['--store', redis.url, '--state-dir', path.join(scratch, 'replica')],
        ...['--openai-upstream', `${provider.url}/v1`, '--instance', 'load'],
        ...['--admin-key-env', 'TOOLMASK_BENCH_ADMIN_KEY'],
      ],
      undefined,
      [],
      { TOOLMASK_BENCH_ADMIN_KEY: ADMIN_KEY },
    );
    const before = await redisFacts(redis);
    const rssBefore = replica.rssMb();
    const body = hostileBody();
    const statuses = {};
    let next = 0;
    let peakRss = rssBefore;
    const started = performance.now();
    const worker = async () => {
      while (next < requests) {
        const index = next++;
        const status = await send(
          `${replica.url}/v1/chat/completions`,
          body,
          madeUpKey(index % keys),
        );
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (index % 50 === 0) peakRss = Math.max(peakRss, replica.rssMb());
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    const metrics = await fetch(`${replica.url}/metrics`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    const metricsText = await metrics.text();
    const after = await redisFacts(redis);
    const memory = replica.memory();
    const result = {
      requests,
      keys,
      seconds,
      statuses,
      rssBeforeMb: rssBefore,
      rssAfterMb: memory.rssMb,
      peakRssMb: Math.max(peakRss, memory.peakMb),
      metricsStatus: metrics.status,
      metricsBytes: Buffer.byteLength(metricsText),
      redisKeys: after.keys - before.keys,
      redisUsedMemory: after.usedMemory - before.usedMemory,
      bodyMb: body.length / MB,
    };
    report(result);
    return result;
  } finally {
    await replica?.close();
    await redis?.close();
    provider.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function report(result) {
  const met = (ok) => (ok ? 'met' : 'NOT met');
  console.log(
    `\n### 5f. Strangers' load on one replica: ${result.requests.toLocaleString('en')} requests from ` +
      `${result.keys.toLocaleString('en')} made-up keys, ${result.bodyMb.toFixed(1)} MB bodies ` +
      `(4 MB model name, 1 MB of messages), ${CONCURRENCY} at a time`,
  );
  console.log('');
  console.log('| measure | figure | goal |');
  console.log('| --- | --- | --- |');
  const statuses = Object.entries(result.statuses)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  console.log(`| answers | ${statuses} (${result.seconds.toFixed(0)} s) | every one refused |`);
  console.log(
    `| replica RSS: before, after, high-water mark | ${result.rssBeforeMb.toFixed(0)} / ${result.rssAfterMb.toFixed(0)} / ${result.peakRssMb.toFixed(0)} MB | under 500 MB: ${met(result.peakRssMb < 500)} |`,
  );
  console.log(
    `| /metrics after the load (admin key) | ${result.metricsStatus}, ${(result.metricsBytes / 1024).toFixed(1)} kB | 200 and under 1 MB: ${met(result.metricsStatus === 200 && result.metricsBytes < MB)} |`,
  );
  console.log(
    `| Redis gained | ${result.redisKeys} keys, ${result.redisUsedMemory} bytes of used_memory | 0 keys: ${met(result.redisKeys === 0)} |`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runTeamLoadBench({ quick: process.argv.includes('--quick') });
}
