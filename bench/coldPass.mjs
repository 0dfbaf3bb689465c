/**
 * The cold pass (issue 30): the first request of a conversation a gateway has never seen (a
 * replica after failover, a gateway after a restart), measured on real sessions.
 *
 *   - chains of 8 recorded sessions from `../shared/traces/mini-swe-agent-gemini3pro` (in name
 *     order, eight at a time; those of 1–2 MB), each sent once, whole, to one fresh gateway with
 *     default settings and masking on. The gateway is warmed first by a few requests of the
 *     built-in example (another conversation), so the times are the pass's, not the JIT's. Its
 *     Server-Timing `mask` phase is set against parsing and serialising the same body in this
 *     process (JSON.parse + JSON.stringify, median of 5): p50 and max of the ratios. Beside it, on
 *     a loaded machine steadier than wall time: the CPU the gateway process used for the whole
 *     request (/proc, 10 ms ticks; what it did after the answer included) against the CPU of
 *     parsing and serialising.
 *   - the incremental pass: section 4a's growing ~1.2 MB conversations (bench/gatewayClient.mjs),
 *     through the bare Node proxy and the gateway with masking on; the gateway's added p50 over
 *     the bare proxy's, and its `mask` phase.
 *
 * Goals (issue 30): cold `mask` p50 ≤ 4x parse+serialise, max ≤ 8x; incremental masking-on added
 * p50 ≤ the bare proxy's + 1.5 ms. Needs `npm run build`.
 *
 *   node bench/coldPass.mjs [--traces DIR] [--quick] [--warm-up synthetic]
 *
 * `--warm-up synthetic`: after the example, a made-up shell session (bench/syntheticShellSession.mjs,
 * ~740 KB, 240 shell outputs) sent once, whole: what a warm-up at gateway start would take off.
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
import { WARM_UP, createGatewayClient, fmt, growingConversation } from './gatewayClient.mjs';
import { syntheticShellSession } from './syntheticShellSession.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = path.join(root, 'packages/cli/examples/long-session.json');
const FOLDER = 'mini-swe-agent-gemini3pro';
const CHAIN = 8;
const MIN_BYTES = 1_000_000;
const MAX_BYTES = 2_000_000;

/** Chains of CHAIN sessions of `tracesDir`, whole, as one request's `contents` each. */
export function traceChains(tracesDir) {
  const folder = path.join(tracesDir, FOLDER);
  const files = fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.json'))
    .sort();
  const chains = [];
  for (let first = 0; first + CHAIN <= files.length; first += CHAIN) {
    const contents = files
      .slice(first, first + CHAIN)
      .flatMap((name) => JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8')));
    const head = Buffer.from(`{"contents":[${contents.map((c) => JSON.stringify(c)).join(',')}`);
    const bytes = head.length + 2;
    if (bytes < MIN_BYTES || bytes > MAX_BYTES) continue;
    chains.push({ name: files[first], bytes: head, ends: [head.length] });
  }
  return chains;
}

/** `contents` as one request's body, as `traceChains` gives it. */
function asBody(contents) {
  const head = Buffer.from(`{"contents":[${contents.map((c) => JSON.stringify(c)).join(',')}`);
  return { name: 'synthetic', bytes: head, ends: [head.length] };
}

/**
 * The median of `runs` of JSON.parse + JSON.stringify of the whole body: wall ms and CPU ms
 * (this process's user + system time, less moved by other processes on a loaded machine).
 */
function parseAndSerialise(conversation, runs = 5) {
  const text = conversation.bytes.toString('utf8') + ']}';
  const times = [];
  const cpus = [];
  for (let run = 0; run < runs; run++) {
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    JSON.stringify(JSON.parse(text));
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  return { wall: percentile(times, 0.5), cpu: percentile(cpus, 0.5) };
}

/** CPU ms a process has used so far (/proc: user + system, in clock ticks of 10 ms). */
function cpuMsOf(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function startGateway(upstreamUrl, scratch) {
  const stateDir = fs.mkdtempSync(path.join(scratch, 'state-'));
  const settings = path.join(scratch, `settings-${path.basename(stateDir)}.json`);
  fs.writeFileSync(
    settings,
    JSON.stringify({ experimental: { toolOutputMasking: { enabled: true } } }),
  );
  const args = ['--state-dir', stateDir, '--settings', settings, '--upstream', upstreamUrl];
  return startGatewayProcess(args, undefined, process.env.COLD_PASS_NODE_ARGS?.split(' ') ?? []);
}

/** The cold figures: one fresh gateway, warmed on the example, each chain sent once. */
async function coldPass(client, upstreamUrl, scratch, chains, example, warmUp) {
  const gateway = await startGateway(upstreamUrl, scratch);
  try {
    const warm = growingConversation(example, 300_000, 3, 'cold-pass warm-up');
    await client.sendEach(gateway.url, warm);
    if (warmUp === 'synthetic') await client.send(gateway.url, asBody(syntheticShellSession()), 0);
    const rows = [];
    for (const chain of chains) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const cpuBefore = cpuMsOf(gateway.pid);
      const { phases } = await client.send(gateway.url, chain, 0);
      // What the request left for after its answer (its writes, its state) counts too.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const cpu = cpuMsOf(gateway.pid) - cpuBefore;
      rows.push({
        ...{ name: chain.name, mb: (chain.ends[0] + 2) / 1e6, cpu },
        ...{ mask: phases.mask, pass: phases.pass },
      });
    }
    for (const [index, chain] of chains.entries()) {
      const { wall, cpu } = parseAndSerialise(chain);
      Object.assign(rows[index], { parse: wall, parseCpu: cpu });
    }
    return rows;
  } finally {
    await gateway.close();
  }
}

/** Section 4a's incremental figures, bare proxy against masking on. */
async function incremental(client, upstreamUrl, scratch, example, quick) {
  const bare = await startListening([path.join(root, 'bench/bareProxy.mjs'), upstreamUrl]);
  const gateway = await startGateway(upstreamUrl, scratch);
  try {
    const conversations = Array.from({ length: quick ? 4 : 10 }, (_, index) =>
      growingConversation(example, 1_000_000, WARM_UP + 10, `incremental ${index}`),
    );
    return await client.latency(
      [
        ['direct', upstreamUrl],
        ['bare', bare.url],
        ['on', gateway.url],
      ],
      conversations,
    );
  } finally {
    await bare.close();
    await gateway.close();
  }
}

export async function runColdPassBench({ tracesDir, quick = false, warmUp } = {}) {
  tracesDir ??= path.resolve(root, '..', 'shared', 'traces');
  if (!fs.existsSync(path.join(tracesDir, FOLDER))) {
    console.log(`\n### Cold pass: skipped (no ${path.join(tracesDir, FOLDER)})`);
    return undefined;
  }
  const chains = traceChains(tracesDir);
  const example = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-cold-pass-'));
  const upstream = await startFakeUpstream();
  const client = createGatewayClient();
  let cold;
  let steps;
  try {
    cold = await coldPass(client, upstream.url, scratch, chains, example, warmUp);
    steps = await incremental(client, upstream.url, scratch, example, quick);
  } finally {
    client.close();
    await upstream.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return report(cold, steps);
}

function report(cold, steps) {
  console.log(
    `\n### Cold pass: ${cold.length} unseen chains of ${CHAIN} real sessions, each sent once, whole`,
  );
  console.log(
    '| chain (first session) | MB | mask ms | parse+serialise ms | ratio | gateway CPU ms, whole request | parse+serialise CPU ms | CPU ratio |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const row of cold) {
    console.log(
      `| ${row.name} | ${fmt(row.mb)} | ${fmt(row.mask, 1)} | ${fmt(row.parse, 1)} | ${fmt(row.mask / row.parse, 1)}x | ${fmt(row.cpu, 0)} | ${fmt(row.parseCpu, 1)} | ${fmt(row.cpu / row.parseCpu, 1)}x |`,
    );
  }
  const cpuRatios = cold.map((row) => row.cpu / row.parseCpu);
  const ratios = cold.map((row) => row.mask / row.parse);
  const masks = cold.map((row) => row.mask);
  const parses = cold.map((row) => row.parse);
  const ratioP50 = percentile(ratios, 0.5);
  const ratioMax = Math.max(...ratios);
  console.log(
    `\nmask p50 ${fmt(percentile(masks, 0.5), 1)} ms (the pass ${fmt(
      percentile(
        cold.map((row) => row.pass),
        0.5,
      ),
      1,
    )}), max ${fmt(Math.max(...masks), 1)} ms; parse+serialise p50 ${fmt(percentile(parses, 0.5), 1)} ms; ratio p50 ${fmt(ratioP50, 1)}x (goal ≤ 4: ${ratioP50 <= 4 ? 'met' : 'NOT met'}), max ${fmt(ratioMax, 1)}x (goal ≤ 8: ${ratioMax <= 8 ? 'met' : 'NOT met'}); gateway CPU per request p50 ${fmt(
      percentile(
        cold.map((row) => row.cpu),
        0.5,
      ),
      0,
    )} ms, ${fmt(percentile(cpuRatios, 0.5), 1)}x parse+serialise CPU (max ${fmt(Math.max(...cpuRatios), 1)}x)`,
  );
  const added = (name) =>
    percentile(steps[name].totals, 0.5) - percentile(steps.direct.totals, 0.5);
  const over = added('on') - added('bare');
  // The same extra time, steadier on a busy machine: each request went to the bare proxy and then
  // to the gateway one after the other, so a slow stretch falls on both; the median of the pairs.
  const paired = percentile(
    steps.on.totals.map((total, index) => total - steps.bare.totals[index]),
    0.5,
  );
  console.log(
    `\n### Incremental pass: ${steps.on.totals.length} requests of ~1.2 MB (section 4a's conversations)`,
  );
  console.log(
    `bare proxy added p50 ${fmt(added('bare'))} ms; masking on added p50 ${fmt(added('on'))} ms (${fmt(over)} over the bare proxy; goal ≤ 1.5: ${over <= 1.5 ? 'met' : 'NOT met'}; request by request, the median of on − bare: ${fmt(paired)}); mask phase p50 ${fmt(percentile(steps.on.phases.mask ?? [], 0.5))} ms (of which the pass ${fmt(percentile(steps.on.phases.pass ?? [], 0.5))}, the body's write ${fmt(percentile(steps.on.phases.write ?? [], 0.5))}), p99 ${fmt(percentile(steps.on.phases.mask ?? [], 0.99))} ms`,
  );
  return { cold, ratioP50, ratioMax, incrementalOverBare: over, incrementalPaired: paired };
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) {
  const index = process.argv.indexOf('--traces');
  await runColdPassBench({
    tracesDir: index >= 0 ? path.resolve(process.argv[index + 1]) : undefined,
    quick: process.argv.includes('--quick'),
    warmUp: process.argv.includes('--warm-up') ? 'synthetic' : undefined,
  });
}
