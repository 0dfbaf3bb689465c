/**
 * The incremental pass's CPU per request (issue 30), for a loaded machine where section 4a's wall
 * times move more than any difference between builds: section 4a's growing ~1.2 MB conversations
 * (bench/gatewayClient.mjs), each request sent to the bare Node proxy and to the gateway with
 * masking on, a pause after each so that what a process does after its answer is its own; the CPU
 * each process used over all the timed requests (`/proc`, user + system), per request. The
 * gateway's added CPU over the bare proxy's is what masking costs the machine.
 *
 *   node bench/incrementalCpu.mjs [--root DIR] [--conversations N] [--windows FILE]
 *
 * `--root`: another checkout (a scratch copy of main, built) whose gateway is measured.
 * `--windows`: writes the timed gateway requests' spans (µs of the monotonic clock a V8 profile
 * uses), for `bench/profileWindows.mjs` to keep only their samples of a gateway profile taken with
 * `BENCH_GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rootIndex = process.argv.indexOf('--root');
const root = rootIndex >= 0 ? path.resolve(process.argv[rootIndex + 1]) : here;
const countIndex = process.argv.indexOf('--conversations');
const count = countIndex >= 0 ? Number(process.argv[countIndex + 1]) : 4;
const windowsIndex = process.argv.indexOf('--windows');
const windowsFile = windowsIndex >= 0 ? path.resolve(process.argv[windowsIndex + 1]) : undefined;
const { startFakeUpstream, startGatewayProcess, startListening } = await import(
  pathToFileURL(path.join(root, 'bench/childProcess.mjs')).href
);
const { WARM_UP, createGatewayClient, growingConversation } = await import(
  pathToFileURL(path.join(here, 'bench/gatewayClient.mjs')).href
);

/** CPU ms a process has used so far (/proc: user + system, clock ticks of 10 ms). */
function cpuMsOf(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const example = JSON.parse(
  fs.readFileSync(path.join(here, 'packages/cli/examples/long-session.json'), 'utf8'),
);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-incremental-cpu-'));
const settings = path.join(scratch, 'settings.json');
fs.writeFileSync(
  settings,
  JSON.stringify({ experimental: { toolOutputMasking: { enabled: true } } }),
);
const upstream = await startFakeUpstream();
const bare = await startListening([path.join(here, 'bench/bareProxy.mjs'), upstream.url]);
const gateway = await startGatewayProcess([
  '--state-dir',
  path.join(scratch, 'state'),
  '--settings',
  settings,
  '--upstream',
  upstream.url,
]);
const client = createGatewayClient();
const cpu = { bare: 0, gateway: 0 };
const masks = [];
const windows = [];
let requests = 0;
try {
  const servers = [
    ['bare', bare],
    ['gateway', gateway],
  ];
  for (let index = 0; index < count; index++) {
    const conversation = growingConversation(example, 1_000_000, WARM_UP + 10, `cpu ${index}`);
    for (let at = 0; at < conversation.ends.length; at++) {
      for (const [name, server] of servers) {
        const before = cpuMsOf(server.pid);
        const startedUs = process.hrtime.bigint() / 1000n;
        const { phases } = await client.send(server.url, conversation, at);
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (at < WARM_UP) continue;
        cpu[name] += cpuMsOf(server.pid) - before;
        if (name !== 'gateway') continue;
        masks.push(phases.mask);
        windows.push([Number(startedUs), Number(process.hrtime.bigint() / 1000n)]);
      }
      if (at >= WARM_UP) requests++;
    }
  }
} finally {
  client.close();
  await bare.close();
  await gateway.close();
  await upstream.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}
if (windowsFile) fs.writeFileSync(windowsFile, JSON.stringify(windows));
masks.sort((a, b) => a - b);
const perBare = cpu.bare / requests;
const perGateway = cpu.gateway / requests;
console.log(
  `${root}: ${requests} requests of ~1.2 MB; CPU per request: bare proxy ${perBare.toFixed(2)} ms, gateway (masking on) ${perGateway.toFixed(2)} ms, added ${(perGateway - perBare).toFixed(2)} ms; mask phase p50 ${masks[Math.floor(masks.length / 2)].toFixed(2)} ms`,
);
