/**
 * The cold pass in one process (issue 30), for profiling without a child's noise: the gateway
 * (`listenGateway`, default settings, masking on) runs in this process, each chain of
 * bench/coldPass.mjs is sent once, whole, and the CPU this process used for the request (and for
 * what the gateway did after its answer, within 200 ms) is read with `process.cpuUsage` (µs, not
 * 10 ms ticks), against parsing and serialising the same body. Run it under `--cpu-prof` to see
 * where the pass's CPU goes:
 *
 *   node --cpu-prof --cpu-prof-dir=DIR bench/coldPassInProcess.mjs [--traces DIR] [--gateway DIST]
 *
 * `--gateway DIST`: another build's packages/gateway/dist (a scratch copy of main), to compare.
 * `--rounds N`: the chains sent again to N - 1 more fresh gateways (new state folders) in this
 *   process, one after the other: each round's conversations are unseen, but the code has run
 *   before, so the rounds tell JIT warm-up (and the heap's growth) apart from the pass's own work.
 * `--warm-up synthetic`: before the first gateway, a made-up shell session
 *   (bench/syntheticShellSession.mjs) sent once, whole, to a throwaway gateway in this process: a
 *   warm-up at gateway start, on other text. The first chain's CPU is printed on its own.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { percentile, startFakeUpstream } from './childProcess.mjs';
import { createGatewayClient, fmt, growingConversation } from './gatewayClient.mjs';
import { traceChains } from './coldPass.mjs';
import { instrumentSteps } from './coldPassSteps.mjs';
import { syntheticShellSession } from './syntheticShellSession.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = path.join(root, 'packages/cli/examples/long-session.json');

function option(name) {
  const index = process.argv.indexOf(name);
  return index >= 0 ? path.resolve(process.argv[index + 1]) : undefined;
}

const cpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

function parseAndSerialiseCpu(chain, runs = 5) {
  const text = chain.bytes.toString('utf8') + ']}';
  const cpus = [];
  for (let run = 0; run < runs; run++) {
    const since = process.cpuUsage();
    JSON.stringify(JSON.parse(text));
    cpus.push(cpuMs(since));
  }
  return percentile(cpus, 0.5);
}

const tracesDir = option('--traces') ?? path.resolve(root, '..', 'shared', 'traces');
const gatewayDist = option('--gateway') ?? path.join(root, 'packages/gateway/dist');
const { listenGateway } = await import(pathToFileURL(path.join(gatewayDist, 'index.js')).href);
const steps = process.argv.includes('--steps') ? await instrumentSteps(gatewayDist) : undefined;
const chains = traceChains(tracesDir);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-cold-in-process-'));
const settings = path.join(scratch, 'settings.json');
fs.writeFileSync(
  settings,
  JSON.stringify({ experimental: { toolOutputMasking: { enabled: true } } }),
);
const roundsIndex = process.argv.indexOf('--rounds');
const rounds = roundsIndex >= 0 ? Number(process.argv[roundsIndex + 1]) : 1;
const upstream = await startFakeUpstream();
const client = createGatewayClient();
const roundMedians = [];

/** The chains once more, to a fresh gateway in this process: the CPU p50 per request. */
async function extraRound(round) {
  const fresh = await listenGateway({
    stateDir: path.join(scratch, `state-${round}`),
    settingsFile: settings,
    upstreams: { gemini: upstream.url },
    port: 0,
    announce: false,
    log: () => {},
  });
  const cpus = [];
  const masks = [];
  try {
    for (const chain of chains) {
      await settle();
      const since = process.cpuUsage();
      const { phases } = await client.send(fresh.url, chain, 0);
      await settle();
      cpus.push(cpuMs(since));
      masks.push(phases.mask);
    }
  } finally {
    await fresh.close();
  }
  return { cpu: percentile(cpus, 0.5), mask: percentile(masks, 0.5) };
}

let warmUpCpu;
if (process.argv.includes('--warm-up')) {
  const since = process.cpuUsage();
  const throwaway = await listenGateway({
    stateDir: path.join(scratch, 'state-warm-up'),
    settingsFile: settings,
    upstreams: { gemini: upstream.url },
    port: 0,
    announce: false,
    log: () => {},
  });
  const contents = syntheticShellSession();
  const head = Buffer.from(`{"contents":[${contents.map((c) => JSON.stringify(c)).join(',')}`);
  await client.send(throwaway.url, { bytes: head, ends: [head.length] }, 0);
  await settle();
  await throwaway.close();
  warmUpCpu = cpuMs(since);
}
const gateway = await listenGateway({
  stateDir: path.join(scratch, 'state'),
  settingsFile: settings,
  upstreams: { gemini: upstream.url },
  port: 0,
  announce: false,
  log: () => {},
});
const rows = [];
try {
  const example = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'));
  await client.sendEach(gateway.url, growingConversation(example, 300_000, 3, 'warm-up'));
  await settle();
  steps?.take();
  for (const chain of chains) {
    await settle();
    const since = process.cpuUsage();
    const { phases } = await client.send(gateway.url, chain, 0);
    await settle();
    rows.push({ name: chain.name, mask: phases.mask, cpu: cpuMs(since), steps: steps?.take() });
  }
  for (let round = 2; round <= rounds; round++) roundMedians.push(await extraRound(round));
  for (const [index, chain] of chains.entries()) rows[index].parse = parseAndSerialiseCpu(chain);
} finally {
  client.close();
  await gateway.close();
  await upstream.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}
for (const row of rows) {
  console.log(
    `${row.name.padEnd(40)} mask ${fmt(row.mask, 1)} ms  cpu ${fmt(row.cpu, 1)} ms  parse+serialise cpu ${fmt(row.parse, 1)} ms  ${fmt(row.cpu / row.parse, 1)}x`,
  );
}
if (steps) {
  console.log("\nCPU by step, median over the chains (ms), and share of the request's CPU:");
  for (const step of rows[0].steps.keys()) {
    const values = rows.map((row) => row.steps.get(step));
    const shares = rows.map((row) => (100 * row.steps.get(step)) / row.cpu);
    console.log(
      `${step.padEnd(56)} ${fmt(percentile(values, 0.5), 1).padStart(7)} ms ${fmt(percentile(shares, 0.5), 0).padStart(4)}%`,
    );
  }
}
const ratios = rows.map((row) => row.cpu / row.parse);
console.log(
  `cpu p50 ${fmt(
    percentile(
      rows.map((row) => row.cpu),
      0.5,
    ),
    1,
  )} ms; ratio p50 ${fmt(percentile(ratios, 0.5), 1)}x, max ${fmt(Math.max(...ratios), 1)}x; mask p50 ${fmt(
    percentile(
      rows.map((row) => row.mask),
      0.5,
    ),
    1,
  )} ms`,
);
console.log(
  `first chain: cpu ${fmt(rows[0].cpu, 1)} ms, mask ${fmt(rows[0].mask, 1)} ms${warmUpCpu === undefined ? '' : `; warm-up (synthetic) cpu ${fmt(warmUpCpu, 1)} ms`}`,
);
if (roundMedians.length > 0) {
  const first = {
    cpu: percentile(
      rows.map((row) => row.cpu),
      0.5,
    ),
    mask: percentile(
      rows.map((row) => row.mask),
      0.5,
    ),
  };
  const byRound = [first, ...roundMedians];
  console.log(
    `cpu p50 by round (fresh gateways, this process): ${byRound.map((round) => fmt(round.cpu, 1)).join(', ')} ms`,
  );
  console.log(`mask p50 by round: ${byRound.map((round) => fmt(round.mask, 1)).join(', ')} ms`);
}
