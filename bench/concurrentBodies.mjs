#!/usr/bin/env node
/**
 * Memory across concurrent bodies (issue 21, hole 3): twelve clients send a 49 MiB conversation
 * each, all at once, to a gateway run as `toolmask gateway` in a child process (as a person runs
 * it), in front of the loopback fake upstream (bench/fakeGeminiUpstream.mjs, another process).
 * Each body is its own conversation of shell outputs of 100 KB, so the gateway masks and offloads
 * them as it would a real session's. A client answered 503 waits its `Retry-After` and sends again,
 * until all twelve are answered 200.
 *
 * Meanwhile the gateway's resident memory is read from /proc every 10 ms, and a worker thread (its
 * own event loop, so the clients' writes do not delay it) asks `/healthz` every 20 ms on a new
 * connection. Printed: the gateway's RSS before, its peak (VmHWM), the /healthz latencies (p50, p99,
 * max), the 503s, and the wall time. Goals (issue 21): peak RSS under about 400 MB, /healthz within
 * 100 ms throughout.
 *
 *   npm run build && node bench/concurrentBodies.mjs [--bodies 12] [--mb 49] [--max-in-flight-mb N]
 *                                                    [--masking-off]
 *
 * `--masking-off` leaves the parse and the pass out (bodies are forwarded as they came): what is
 * left of the /healthz latency is the reading and forwarding of the bodies.
 *
 * Needs `npm run build`; Linux (/proc). BENCH_GATEWAY_NODE_ARGS passes flags to the gateway's node
 * (for example `--trace-gc`), as in bench/gatewayBench.mjs.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  percentile,
  startFakeUpstream,
  startGatewayProcess,
  startListening,
} from './childProcess.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const MODEL_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';
const MiB = 1024 * 1024;

/**
 * The middle of every body: `bytes` of model calls and their shell outputs (100 KB each), as the
 * history of a long session; each body adds its own first prompt, so each is a conversation.
 */
function sharedHistory(bytes) {
  const pieces = [];
  let length = 0;
  for (let index = 0; length < bytes; index++) {
    const lines = Array.from(
      { length: 2_000 },
      (_, line) => `step ${index} line ${line}: compiled unit_${line}.o in 0.${line % 97}s`,
    );
    const id = `call-${index}`;
    const pair =
      ',' +
      JSON.stringify({
        role: 'model',
        parts: [{ functionCall: { id, name: 'run_shell_command', args: { command: 'make' } } }],
      }) +
      ',' +
      JSON.stringify({
        role: 'user',
        parts: [
          {
            functionResponse: {
              id,
              name: 'run_shell_command',
              response: { output: `${lines.join('\n')}\nExit Code: 0` },
            },
          },
        ],
      });
    const piece = Buffer.from(pair);
    pieces.push(piece);
    length += piece.length;
  }
  return Buffer.concat(pieces, length);
}

function bodyPieces(index, middle) {
  const head = Buffer.from(
    `{"contents":[${JSON.stringify({ role: 'user', parts: [{ text: `conversation ${index}: build the project` }] })}`,
  );
  const tail = Buffer.from(`,${JSON.stringify({ role: 'user', parts: [{ text: 'go on' }] })}]}`);
  return [head, middle, tail];
}

/** Sends one body; resolves with the status and `Retry-After`. */
function send(url, pieces) {
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}${MODEL_PATH}`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': length },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({
            status: response.statusCode,
            retryAfter: Number(response.headers['retry-after'] ?? 1),
          }),
        );
      },
    );
    // A refused upload is closed once its answer is written (the gateway reads no more of it).
    request.on('error', (error) => (request.res ? undefined : reject(error)));
    for (const piece of pieces.slice(0, -1)) request.write(piece);
    request.end(pieces.at(-1));
  });
}

/**
 * `/healthz` of each URL in turn, one every `everyMs`, each on a new connection, in a worker
 * thread (its own event loop, so the clients' writes do not delay it), until told to stop; resolves
 * with the latencies of each URL.
 */
function startProbe(urls, everyMs) {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const latencies = workerData.urls.map(() => []);
    let stopped = false;
    let turn = 0;
    parentPort.on('message', () => { stopped = true; });
    const probe = () => {
      if (stopped) { parentPort.postMessage(latencies); return; }
      const which = turn++ % workerData.urls.length;
      const started = process.hrtime.bigint();
      http.get(workerData.urls[which] + '/healthz', { agent: false }, (response) => {
        response.resume();
        response.on('end', () => {
          latencies[which].push(Number(process.hrtime.bigint() - started) / 1e6);
          setTimeout(probe, workerData.everyMs);
        });
      }).on('error', () => setTimeout(probe, workerData.everyMs));
    };
    probe();`;
  const worker = new Worker(source, { eval: true, workerData: { urls, everyMs } });
  return {
    stop: () =>
      new Promise((resolve) => {
        worker.once('message', (latencies) => {
          void worker.terminate();
          resolve(latencies);
        });
        worker.postMessage('stop');
      }),
  };
}

const summary = (latencies) => ({
  count: latencies.length,
  p50: percentile(latencies, 0.5),
  p99: percentile(latencies, 0.99),
  max: Math.max(...latencies),
  over100: latencies.filter((ms) => ms > 100).length,
});

export async function runConcurrentBodiesBench({
  bodies = 12,
  megabytes = 49,
  maxInFlightMb,
  masking = true,
  log = console.log,
} = {}) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-concurrent-'));
  const settings = path.join(scratch, 'settings.json');
  fs.writeFileSync(
    settings,
    JSON.stringify({ experimental: { toolOutputMasking: { enabled: masking } } }),
  );
  const upstream = await startFakeUpstream();
  const idle = await startListening([path.join(here, 'idleServer.mjs')]);
  const loopDelayFile = path.join(scratch, 'loop-delay.json');
  process.env.BENCH_LOOP_DELAY_FILE = loopDelayFile;
  const gateway = await startGatewayProcess(
    [
      '--state-dir',
      path.join(scratch, 'state'),
      '--settings',
      settings,
      '--upstream',
      upstream.url,
      ...(maxInFlightMb ? ['--max-in-flight-mb', String(maxInFlightMb)] : []),
    ],
    undefined,
    ['--import', path.join(here, 'loopDelay.mjs')],
  );
  try {
    const middle = sharedHistory(megabytes * MiB - 200);
    const baselineMb = gateway.rssMb();
    let sampledPeakMb = baselineMb;
    const sampler = setInterval(() => {
      sampledPeakMb = Math.max(sampledPeakMb, gateway.rssMb());
    }, 10);
    const probe = startProbe([gateway.url, idle.url], 10);
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(gateway.pid, 'SIGUSR2');
    const started = performance.now();
    let busy = 0;
    const finishedAt = [];
    await Promise.all(
      Array.from({ length: bodies }, async (_, index) => {
        const pieces = bodyPieces(index, middle);
        for (;;) {
          const { status, retryAfter } = await send(gateway.url, pieces);
          if (status === 200) break;
          if (status !== 503) throw new Error(`body ${index}: status ${status}`);
          busy++;
          await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
        }
        finishedAt.push(performance.now() - started);
      }),
    );
    const wallMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [healthz, floor] = await probe.stop();
    clearInterval(sampler);
    const peakMb = Math.max(gateway.peakMb(), sampledPeakMb);
    await gateway.close();
    const loopDelay = JSON.parse(fs.readFileSync(loopDelayFile, 'utf8'));
    const result = {
      bodies,
      megabytes,
      baselineMb,
      peakMb,
      healthz: summary(healthz),
      floor: summary(floor),
      loopDelay,
      busy,
      wallMs,
    };
    const f = (value) => value.toFixed(1);
    log(
      `${bodies} concurrent bodies of ${megabytes} MiB (${maxInFlightMb ? `--max-in-flight-mb ${maxInFlightMb}` : 'default budget'}${masking ? '' : ', masking off'}): ` +
        `gateway RSS ${f(result.baselineMb)} MB before, peak ${f(result.peakMb)} MB; ` +
        `/healthz p50 ${f(result.healthz.p50)} ms, p99 ${f(result.healthz.p99)} ms, max ${f(result.healthz.max)} ms ` +
        `(${result.healthz.count} probes, ${result.healthz.over100} over 100 ms); ` +
        `an idle server asked in turn (the floor): p50 ${f(result.floor.p50)} ms, p99 ${f(result.floor.p99)} ms, max ${f(result.floor.max)} ms ` +
        `(${result.floor.over100} over 100 ms); the gateway's own event-loop delay p99 ${f(result.loopDelay.p99)} ms, max ${f(result.loopDelay.max)} ms; ` +
        `${busy} answers 503 (retried); all answered in ${(wallMs / 1000).toFixed(1)} s`,
    );
    return result;
  } finally {
    await gateway.close();
    await idle.close();
    await upstream.close();
    delete process.env.BENCH_LOOP_DELAY_FILE;
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argument = (name) => {
    const index = process.argv.indexOf(`--${name}`);
    return index >= 0 ? Number(process.argv[index + 1]) : undefined;
  };
  await runConcurrentBodiesBench({
    bodies: argument('bodies') ?? 12,
    megabytes: argument('mb') ?? 49,
    maxInFlightMb: argument('max-in-flight-mb'),
    masking: !process.argv.includes('--masking-off'),
  });
}
