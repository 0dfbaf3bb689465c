/**
 * Section 4 of `npm run bench`: what the gateway costs a client, measured in the same run against
 * a direct connection to a loopback fake upstream and against the gateway with masking off.
 *
 *   - added latency (p50/p99) of ~1 MB requests: conversations from the built-in example that
 *     grow by one exchange per request, as a client resends them; each request goes to every path
 *     in turn, and the gateway's Server-Timing header says where its time went. Besides the
 *     direct connection, a bare Node.js proxy (bench/bareProxy.mjs: read the body, forward it with
 *     undici) measures the floor of any proxy written in Node on the same machine;
 *   - streaming first-byte overhead: from the moment the upstream writes its first event (the
 *     event carries that moment, read on the system's monotonic clock) to the moment the client
 *     reads it;
 *   - requests per second with 50 concurrent conversations;
 *   - the gateway's resident memory after 100 conversations, sent one at a time and 20 at a time.
 *
 * The gateway runs as `toolmask gateway` in a child process, as a person runs it, and the fake
 * upstream in another (bench/fakeGeminiUpstream.mjs), so neither shares a thread with the client
 * that times them. Needs `npm run build`. BENCH_GATEWAY_NODE_ARGS passes flags to the gateways'
 * node (for example `--trace-gc`). Goals (issue 11): added p99 under 5 ms for 1 MB, streaming first-byte overhead
 * under 1 ms, RSS under 200 MB at 100 conversations.
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
  timedSizes,
} from './gatewayClient.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = path.join(root, 'packages/cli/examples/long-session.json');

/** The fake upstream, in its own process (bench/fakeGeminiUpstream.mjs). */
const startUpstream = startFakeUpstream;

/** The floor: the least a Node.js proxy in the gateway's place does (bench/bareProxy.mjs). */
const startBareProxy = (upstreamUrl) =>
  startListening([path.join(root, 'bench/bareProxy.mjs'), upstreamUrl]);

async function startGateway(upstreamUrl, enabled, scratch) {
  const stateDir = fs.mkdtempSync(path.join(scratch, 'state-'));
  const settings = path.join(stateDir, '..', `settings-${enabled}.json`);
  fs.writeFileSync(settings, JSON.stringify({ experimental: { toolOutputMasking: { enabled } } }));
  const gateway = await startGatewayProcess([
    '--state-dir',
    stateDir,
    '--settings',
    settings,
    '--upstream',
    upstreamUrl,
  ]);
  // `/api` asks for the gateway's access secret, which it keeps in its state folder.
  const token = () => fs.readFileSync(path.join(stateDir, 'access-secret'), 'utf8').trim();
  return {
    ...gateway,
    status: async () =>
      (
        await fetch(`${gateway.url}/api/status`, { headers: { 'x-toolmask-token': token() } })
      ).json(),
  };
}

/**
 * RSS of a fresh gateway (or of the bare proxy, `bare`) after `count` conversations of 10
 * requests, `atOnce` at a time.
 */
async function memoryWith(client, upstreamUrl, scratch, contents, count, atOnce, bare = false) {
  const gateway = bare
    ? await startBareProxy(upstreamUrl)
    : await startGateway(upstreamUrl, true, scratch);
  try {
    const before = gateway.memory();
    const conversations = Array.from({ length: count }, (_, index) =>
      growingConversation(contents, 300_000, 10, `m${atOnce}-${index}`),
    );
    for (let first = 0; first < count; first += atOnce) {
      await Promise.all(
        conversations
          .slice(first, first + atOnce)
          .map((conversation) => client.sendEach(gateway.url, conversation)),
      );
    }
    const status = bare ? {} : await gateway.status();
    return {
      path: bare ? 'bare Node proxy' : 'gateway, masking on',
      conversations: count,
      atOnce,
      before,
      after: gateway.memory(),
      retainedMb: (status.details?.retainedBytes ?? NaN) / 1_000_000,
    };
  } finally {
    await gateway.close();
  }
}

export async function runGatewayBench({ quick = false } = {}) {
  const contents = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-gateway-bench-'));
  const upstream = await startUpstream();
  // 20 conversations of 13 requests from 1 MB: 200 timed requests of about 1 MB.
  const latencyConversations = Array.from({ length: quick ? 6 : 20 }, (_, index) =>
    growingConversation(contents, 1_000_000, WARM_UP + 10, `latency ${index}`),
  );
  const { count: timedCount, firstMb: mb, lastMb } = timedSizes(latencyConversations);
  const client = createGatewayClient();
  let results;
  try {
    const bare = await startBareProxy(upstream.url);
    const off = await startGateway(upstream.url, false, scratch);
    const on = await startGateway(upstream.url, true, scratch);
    try {
      const paths = [
        ['direct', upstream.url],
        ['bare Node proxy', bare.url],
        ['gateway, masking off', off.url],
        ['gateway, masking on', on.url],
      ];
      results = await client.latency(paths, latencyConversations);
      const concurrent = quick ? 10 : 50;
      const perConversation = quick ? 5 : 10;
      const conversations = Array.from({ length: concurrent }, (_, index) =>
        growingConversation(contents, 100_000, perConversation, `c${index}`),
      );
      for (const [name, url] of paths)
        results[name].rps = await client.throughput(url, conversations);
      // Memory: 100 conversations (10 requests each, ~300 KB to ~400 KB), each run through a
      // fresh gateway: one conversation after another (what the conversations keep), then 20 at
      // a time (what requests in flight add on top).
      results.memory = [];
      for (const bareProxy of [true, false]) {
        for (const atOnce of [1, 20]) {
          results.memory.push(
            await memoryWith(
              client,
              upstream.url,
              scratch,
              contents,
              quick ? 20 : 100,
              atOnce,
              bareProxy,
            ),
          );
        }
      }
    } finally {
      await bare.close();
      await off.close();
      await on.close();
    }
  } finally {
    client.close();
    await upstream.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }

  const direct = results['direct'];
  console.log(
    `\n### 4a. Added latency, ${timedCount} requests of ${mb}–${lastMb} MB (${latencyConversations.length} conversations, each growing by one exchange a request)`,
  );
  console.log(
    '| path | total p50 ms | total p99 ms | added p50 ms | added p99 ms | over the bare proxy p50 / p99 ms | first byte p50 ms | first byte p99 ms | stream overhead p50 ms |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const bare = results['bare Node proxy'];
  for (const [name, result] of Object.entries(results).filter(([name]) => name !== 'memory')) {
    const over = (base, share) => percentile(result.totals, share) - percentile(base.totals, share);
    const gateway = name.startsWith('gateway');
    console.log(
      `| ${name} | ${fmt(percentile(result.totals, 0.5))} | ${fmt(percentile(result.totals, 0.99))} | ${name === 'direct' ? '–' : fmt(over(direct, 0.5))} | ${name === 'direct' ? '–' : fmt(over(direct, 0.99))} | ${gateway ? `${fmt(over(bare, 0.5))} / ${fmt(over(bare, 0.99))}` : '–'} | ${fmt(percentile(result.firstBytes, 0.5))} | ${fmt(percentile(result.firstBytes, 0.99))} | ${name === 'direct' ? '–' : fmt(percentile(result.firstBytes, 0.5) - percentile(direct.firstBytes, 0.5))} |`,
    );
  }
  console.log(
    "\nWhere a gateway path spends its time (its Server-Timing header: reading the body, decoding and masking, waiting for the upstream's answer headers), p50 / p99 ms:",
  );
  console.log('| path | read | mask | upstream |');
  console.log('| --- | --- | --- | --- |');
  for (const [name, result] of Object.entries(results).filter(([, result]) => result.phases)) {
    if (Object.keys(result.phases).length === 0) continue;
    const cell = (phase) =>
      `${fmt(percentile(result.phases[phase] ?? [], 0.5))} / ${fmt(percentile(result.phases[phase] ?? [], 0.99))}`;
    console.log(`| ${name} | ${cell('read')} | ${cell('mask')} | ${cell('upstream')} |`);
  }
  console.log(`\n### 4b. Requests per second, concurrent conversations of ~100 KB`);
  console.log('| path | requests/s |');
  console.log('| --- | --- |');
  for (const [name, result] of Object.entries(results).filter(([name]) => name !== 'memory')) {
    console.log(`| ${name} | ${fmt(result.rps, 0)} |`);
  }
  console.log(`\n### 4c. Gateway memory, conversations of 10 requests (~300–400 KB each)`);
  console.log(
    '| path | conversations | at a time | RSS at start MB | RSS after MB | peak RSS MB | history kept (its own count) MB |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const memory of results.memory) {
    console.log(
      `| ${memory.path} | ${memory.conversations} | ${memory.atOnce} | ${fmt(memory.before.rssMb, 0)} | ${fmt(memory.after.rssMb, 0)} | ${fmt(memory.after.peakMb, 0)} | ${fmt(memory.retainedMb, 1)} |`,
    );
  }
  const on = results['gateway, masking on'];
  const addedP99 = percentile(on.totals, 0.99) - percentile(direct.totals, 0.99);
  const streamOverhead = percentile(on.firstBytes, 0.5) - percentile(direct.firstBytes, 0.5);
  const rssGoal = results.memory
    .filter((memory) => memory.path !== 'bare Node proxy')
    .map((memory) =>
      memory.conversations === 100
        ? `peak RSS ${memory.atOnce} at a time ${fmt(memory.after.peakMb, 0)} MB (< 200: ${memory.after.peakMb < 200 ? 'met' : 'NOT met'})`
        : `peak RSS ${memory.atOnce} at a time not judged (${memory.conversations} conversations; the goal is at 100)`,
    )
    .join('; ');
  console.log(
    `\nGoals: added p99 ${fmt(addedP99)} ms (< 5: ${addedP99 < 5 ? 'met' : 'NOT met'}); stream first-byte overhead ${fmt(streamOverhead)} ms (< 1: ${streamOverhead < 1 ? 'met' : 'NOT met'}); ${rssGoal}`,
  );
  return results;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) await runGatewayBench({ quick: process.argv.includes('--quick') });
