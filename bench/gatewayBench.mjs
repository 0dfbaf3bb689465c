/**
 * Section 4 of `npm run bench`: what the gateway costs a client, measured in the same run against
 * a direct connection to a loopback fake upstream and against the gateway with masking off.
 *
 *   - added latency (p50/p99) of ~1 MB requests: a conversation from the built-in example that
 *     grows by one exchange per request, as a client resends it;
 *   - streaming first-byte overhead: from the moment the upstream writes its first event to the
 *     moment the client reads it (upstream and client share this process's clock);
 *   - requests per second with 50 concurrent conversations;
 *   - the gateway's resident memory after 100 conversations.
 *
 * The gateway runs as `toolmask gateway` in a child process, as a person runs it. Needs
 * `npm run build`. Goals (issue 11): added p99 under 5 ms for 1 MB, streaming first-byte overhead
 * under 1 ms, RSS under 200 MB at 100 conversations.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(root, 'packages/cli/dist/index.js');
const EXAMPLE = path.join(root, 'packages/cli/examples/long-session.json');
const MODEL_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';

const now = () => performance.timeOrigin + performance.now();

function percentile(values, share) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? NaN;
}

/** A fake upstream that answers every request with one SSE event at once, noting when. */
async function startUpstream() {
  const writes = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      writes.push(now());
      response.end(
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 1000, cachedContentTokenCount: 900, candidatesTokenCount: 1 } })}\r\n\r\n`,
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    writes,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
}

async function startGateway(upstreamUrl, enabled, scratch) {
  const stateDir = fs.mkdtempSync(path.join(scratch, 'state-'));
  const settings = path.join(stateDir, '..', `settings-${enabled}.json`);
  fs.writeFileSync(settings, JSON.stringify({ experimental: { toolOutputMasking: { enabled } } }));
  const child = spawn(
    process.execPath,
    [
      CLI,
      'gateway',
      '--port',
      '0',
      '--state-dir',
      stateDir,
      '--settings',
      settings,
      '--upstream',
      upstreamUrl,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const match = /listening on (\S+)/.exec(chunk.toString());
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`gateway exited ${code}`)));
  });
  return {
    url,
    pid: child.pid,
    memory() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const field = (name) =>
        Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
      return { rssMb: field('VmRSS'), peakMb: field('VmHWM') };
    },
    async close() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
    },
  };
}

/** Request bodies of a conversation that grows by one exchange per request, starting near `startBytes`. */
function growingBodies(contents, startBytes, count, tag) {
  const head = [
    {
      role: 'user',
      parts: [{ text: `conversation ${tag}: ${contents[0]?.parts?.[0]?.text ?? ''}` }],
    },
  ];
  const history = [...head];
  let next = 1;
  const take = () => {
    const content = contents[next];
    next = next + 1 < contents.length ? next + 1 : 1;
    history.push(content);
  };
  while (JSON.stringify(history).length < startBytes) take();
  const bodies = [];
  for (let index = 0; index < count; index++) {
    // End on a user entry, as a request does.
    while (history.at(-1)?.role !== 'user') take();
    // Bytes, as a client sends them (a string body would cost the client an extra encode).
    bodies.push(Buffer.from(JSON.stringify({ contents: history })));
    take();
    take();
  }
  return bodies;
}

async function send(url, body) {
  const started = now();
  const response = await fetch(`${url}${MODEL_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const reader = response.body.getReader();
  const first = await reader.read();
  const firstByte = now();
  let done = first.done;
  while (!done) ({ done } = await reader.read());
  return { total: now() - started, firstByte };
}

async function latency(url, upstream, bodies) {
  // A few warm-up requests: connections, JIT, the conversation's first full pass.
  for (const body of bodies.slice(0, 5)) await send(url, body);
  const totals = [];
  const firstBytes = [];
  for (const body of bodies.slice(5)) {
    const writesBefore = upstream.writes.length;
    const { total, firstByte } = await send(url, body);
    totals.push(total);
    firstBytes.push(firstByte - upstream.writes[writesBefore]);
  }
  return { totals, firstBytes };
}

async function throughput(url, conversations) {
  const started = now();
  await Promise.all(
    conversations.map(async (bodies) => {
      for (const body of bodies) await send(url, body);
    }),
  );
  const requests = conversations.reduce((sum, bodies) => sum + bodies.length, 0);
  return requests / ((now() - started) / 1000);
}

const fmt = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

export async function runGatewayBench({ quick = false } = {}) {
  const contents = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-gateway-bench-'));
  const upstream = await startUpstream();
  const count = quick ? 60 : 205;
  const bodies = growingBodies(contents, 1_000_000, count, 'latency');
  const mb = (bodies[5].length / 1_000_000).toFixed(2);
  const results = {};
  try {
    const off = await startGateway(upstream.url, false, scratch);
    const on = await startGateway(upstream.url, true, scratch);
    try {
      for (const [name, url] of [
        ['direct', upstream.url],
        ['gateway, masking off', off.url],
        ['gateway, masking on', on.url],
      ]) {
        results[name] = { ...(await latency(url, upstream, bodies)) };
      }
      const concurrent = quick ? 10 : 50;
      const perConversation = quick ? 5 : 10;
      const conversations = Array.from({ length: concurrent }, (_, index) =>
        growingBodies(contents, 100_000, perConversation, `c${index}`),
      );
      for (const [name, url] of [
        ['direct', upstream.url],
        ['gateway, masking off', off.url],
        ['gateway, masking on', on.url],
      ]) {
        results[name].rps = await throughput(url, conversations);
      }
      // Memory: 100 conversations (10 requests each, ~300 KB to ~400 KB) through a fresh gateway.
      const memoryGateway = await startGateway(upstream.url, true, scratch);
      const memoryBefore = memoryGateway.memory();
      const hundred = Array.from({ length: quick ? 20 : 100 }, (_, index) =>
        growingBodies(contents, 300_000, 10, `m${index}`),
      );
      for (const batch of [0, 1, 2, 3, 4].map((k) =>
        hundred.filter((_, index) => index % 5 === k),
      )) {
        await Promise.all(
          batch.map(async (list) => {
            for (const body of list) await send(memoryGateway.url, body);
          }),
        );
      }
      results.memory = {
        before: memoryBefore,
        after: memoryGateway.memory(),
        conversations: hundred.length,
      };
      await memoryGateway.close();
    } finally {
      await off.close();
      await on.close();
    }
  } finally {
    await upstream.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }

  const direct = results['direct'];
  console.log(
    `\n### 4a. Added latency, ${count - 5} requests of ${mb} MB and growing (one conversation)`,
  );
  console.log(
    '| path | total p50 ms | total p99 ms | added p50 ms | added p99 ms | first byte p50 ms | first byte p99 ms | stream overhead p50 ms |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const [name, result] of Object.entries(results).filter(([name]) => name !== 'memory')) {
    const added = (share) => percentile(result.totals, share) - percentile(direct.totals, share);
    console.log(
      `| ${name} | ${fmt(percentile(result.totals, 0.5))} | ${fmt(percentile(result.totals, 0.99))} | ${name === 'direct' ? '–' : fmt(added(0.5))} | ${name === 'direct' ? '–' : fmt(added(0.99))} | ${fmt(percentile(result.firstBytes, 0.5))} | ${fmt(percentile(result.firstBytes, 0.99))} | ${name === 'direct' ? '–' : fmt(percentile(result.firstBytes, 0.5) - percentile(direct.firstBytes, 0.5))} |`,
    );
  }
  console.log(`\n### 4b. Requests per second, concurrent conversations of ~100 KB`);
  console.log('| path | requests/s |');
  console.log('| --- | --- |');
  for (const [name, result] of Object.entries(results).filter(([name]) => name !== 'memory')) {
    console.log(`| ${name} | ${fmt(result.rps, 0)} |`);
  }
  const memory = results.memory;
  console.log(
    `\n### 4c. Gateway memory, ${memory.conversations} conversations of 10 requests (~300–400 KB each)`,
  );
  console.log(
    `RSS at start ${fmt(memory.before.rssMb, 0)} MB; after: RSS ${fmt(memory.after.rssMb, 0)} MB, peak ${fmt(memory.after.peakMb, 0)} MB`,
  );
  const on = results['gateway, masking on'];
  const addedP99 = percentile(on.totals, 0.99) - percentile(direct.totals, 0.99);
  const streamOverhead = percentile(on.firstBytes, 0.5) - percentile(direct.firstBytes, 0.5);
  console.log(
    `\nGoals: added p99 ${fmt(addedP99)} ms (< 5: ${addedP99 < 5 ? 'met' : 'NOT met'}); stream first-byte overhead ${fmt(streamOverhead)} ms (< 1: ${streamOverhead < 1 ? 'met' : 'NOT met'}); peak RSS ${fmt(memory.after.peakMb, 0)} MB (< 200: ${memory.after.peakMb < 200 ? 'met' : 'NOT met'})`,
  );
  return results;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) await runGatewayBench({ quick: process.argv.includes('--quick') });
