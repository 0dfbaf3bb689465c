#!/usr/bin/env node
/**
 * Pass speed and memory: toolmask's pass against gemini-cli's built-in ToolOutputMaskingService,
 * each in its own child process (so heaps and RSS do not mix), on the same session, replayed
 * request by request like a host would: append the newest exchange, run the pass, keep the
 * masked history. Besides totals and percentiles of every pass: the p99 of passes that mask
 * (their files written), with a target of 10 ms at 1,600 and 5,000 requests, and of passes that
 * mask nothing ("steady").
 *
 *   node bench/passSpeed.mjs                      # the whole section, prints a table
 *   node bench/passSpeed.mjs --child ours --requests 1000 [--traces DIR --concat 8]
 *
 * Needs `npm run build` (reads packages/core/dist).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPassService } from './passService.mjs';

const RESULT_MARKER = 'PASS_SPEED_RESULT ';
/** Passes that mask (files included) should stay under this at 1,600 and 5,000 requests. */
const MASKING_P99_TARGET_MS = 10;
const MASKING_TARGET_SIZES = [1_600, 5_000];
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

/** A deterministic ~20 KB build log; every fifth one fails. */
function shellOutput(index, bytes) {
  const lines = [];
  let size = 0;
  for (let line = 0; size < bytes; line++) {
    const text = `[${index}:${line}] compiling src/module_${(line * 31 + index) % 97}.ts ... ok (${(line * 7 + index) % 1000} ms)`;
    lines.push(text);
    size += text.length + 1;
  }
  const failed = index % 5 === 0;
  return `Output: ${lines.join('\n')}${failed ? `\nError: build failed\nExit Code: 2` : ''}`;
}

function* syntheticExchanges(requests, bytes) {
  for (let index = 0; index < requests; index++) {
    const id = `call-${index}`;
    yield [
      {
        role: 'model',
        parts: [{ functionCall: { id, name: 'run_shell_command', args: { command: 'make' } } }],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id,
              name: 'run_shell_command',
              response: { output: shellOutput(index, bytes) },
            },
          },
        ],
      },
    ];
  }
}

/** Shared traces, concatenated: one request per model turn, the entries up to it appended. */
function* traceExchanges(directory, concat) {
  const files = fs
    .readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .slice(0, concat);
  for (const file of files) {
    const history = JSON.parse(fs.readFileSync(path.join(directory, file), 'utf8'));
    let pending = [];
    for (const content of history) {
      pending.push(content);
      if (content.role === 'user') {
        yield pending;
        pending = [];
      }
    }
    if (pending.length) yield pending;
  }
}

function percentile(sorted, fraction) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

async function runChild(impl) {
  // gemini-cli's service prints debug lines; printing is not part of either pass.
  for (const method of ['log', 'debug', 'info', 'warn']) console[method] = () => undefined;
  const requests = Number(argument('requests', '1000'));
  const bytes = Number(argument('output-bytes', '20000'));
  const traces = argument('traces', undefined);
  const concat = Number(argument('concat', '8'));
  // Where both implementations write their files (--temp-dir; default the OS temp dir). File
  // creation dominates masking passes and its cost depends a lot on the folder (docs/benchmarks.md).
  const temp = fs.mkdtempSync(path.join(argument('temp-dir', os.tmpdir()), 'toolmask-bench-'));
  const { host, service } = await createPassService(impl, {
    sessionId: 'bench',
    projectTempDir: temp,
  });

  global.gc?.();
  const baselineRss = process.memoryUsage().rss;
  let peakRss = baselineRss;
  const times = [];
  const steady = [];
  const masking = [];
  let history = [];
  let masked = 0;
  const exchanges = traces ? traceExchanges(traces, concat) : syntheticExchanges(requests, bytes);
  for (const exchange of exchanges) {
    history.push(...exchange);
    // gemini-cli's getHistory() hands out a shallow copy of every Content on each call (parts
    // shared); the pass sees the same here. The copy is the host's cost, not timed.
    const input = history.map((content) => ({ ...content }));
    const started = performance.now();
    const result = await service.mask(input, host);
    const elapsed = performance.now() - started;
    times.push(elapsed);
    if (result.maskedCount === 0) steady.push(elapsed);
    else masking.push(elapsed);
    masked += result.maskedCount;
    if (result.newHistory !== input) history = [...result.newHistory];
    if (times.length % 25 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  fs.rmSync(temp, { recursive: true, force: true });
  times.sort((a, b) => a - b);
  steady.sort((a, b) => a - b);
  masking.sort((a, b) => a - b);
  const total = times.reduce((sum, value) => sum + value, 0);
  process.stdout.write(
    RESULT_MARKER +
      JSON.stringify({
        impl,
        requests: times.length,
        masked,
        totalMs: total,
        p50Ms: percentile(times, 0.5),
        p99Ms: percentile(times, 0.99),
        lastMs: times.length ? times[times.length - 1] : 0,
        steadyP99Ms: percentile(steady, 0.99),
        maskingPasses: masking.length,
        maskingP50Ms: percentile(masking, 0.5),
        maskingP99Ms: percentile(masking, 0.99),
        peakRssOverBaselineMb: (peakRss - baselineRss) / 1e6,
        peakRssMb: peakRss / 1e6,
      }),
  );
}

function measure(impl, extraArguments, tempDir) {
  const result = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      fileURLToPath(import.meta.url),
      '--child',
      impl,
      ...extraArguments,
      ...(tempDir ? ['--temp-dir', tempDir] : []),
    ],
    { cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  if (result.status !== 0) throw new Error(`${impl} bench failed: ${result.stderr}`);
  const line = result.stdout.split('\n').find((text) => text.startsWith(RESULT_MARKER));
  if (!line) throw new Error(`${impl} bench printed no result: ${result.stdout.slice(0, 500)}`);
  return JSON.parse(line.slice(RESULT_MARKER.length));
}

/** Runs the section and returns its rows; `print` writes the table. */
export function runPassSpeedBench({
  tracesDir,
  sizes = [100, 1_000, 1_600, 5_000],
  print = true,
  tempDir,
} = {}) {
  const cases = sizes.map((requests) => ({
    name: `synthetic ${requests.toLocaleString('en-US')} requests, 20 KB shell outputs`,
    args: ['--requests', String(requests)],
    target: MASKING_TARGET_SIZES.includes(requests),
  }));
  if (tracesDir && fs.existsSync(tracesDir)) {
    for (const folder of fs
      .readdirSync(tracesDir)
      .filter((name) => fs.statSync(path.join(tracesDir, name)).isDirectory())) {
      cases.push({
        name: `shared traces ${folder}, 8 concatenated`,
        args: ['--traces', path.join(tracesDir, folder), '--concat', '8'],
      });
    }
  }
  const rows = [];
  for (const testCase of cases) {
    const ours = measure('ours', testCase.args, tempDir);
    const upstream = measure('gemini-cli', testCase.args, tempDir);
    rows.push({ case: testCase.name, ours, upstream });
    if (print) {
      const format = (value, digits = 1) =>
        value.toLocaleString('en-US', {
          maximumFractionDigits: digits,
          minimumFractionDigits: digits,
        });
      console.log(`\n${testCase.name} (${ours.requests.toLocaleString('en-US')} passes)`);
      console.log('                       toolmask    gemini-cli    ratio (gemini-cli / toolmask)');
      const line = (label, a, b, digits) =>
        console.log(
          `  ${label.padEnd(20)} ${format(a, digits).padStart(10)} ${format(b, digits).padStart(12)}    ${(b / Math.max(a, 1e-9)).toFixed(1)}x`,
        );
      line('total pass ms', ours.totalMs, upstream.totalMs, 0);
      line('p50 pass ms', ours.p50Ms, upstream.p50Ms, 3);
      line('p99 pass ms', ours.p99Ms, upstream.p99Ms, 3);
      line('steady p99 ms', ours.steadyP99Ms, upstream.steadyP99Ms, 3);
      line('masking p50 ms', ours.maskingP50Ms, upstream.maskingP50Ms, 3);
      line('masking p99 ms', ours.maskingP99Ms, upstream.maskingP99Ms, 3);
      line('masking passes', ours.maskingPasses, upstream.maskingPasses, 0);
      line('peak RSS +MB', ours.peakRssOverBaselineMb, upstream.peakRssOverBaselineMb, 0);
    }
  }
  const targeted = rows.filter((row) => cases.find((c) => c.name === row.case)?.target);
  if (print && targeted.length > 0) {
    console.log(
      `\nTarget: p99 of toolmask's passes that mask (files included) < ${MASKING_P99_TARGET_MS} ms`,
    );
    for (const row of targeted) {
      const p99 = row.ours.maskingP99Ms;
      console.log(
        `  ${row.case}: ${p99.toFixed(2)} ms over ${row.ours.maskingPasses} passes, ${p99 < MASKING_P99_TARGET_MS ? 'met' : 'NOT met'}`,
      );
    }
  }
  return rows;
}

const childImpl = argument('child', undefined);
if (childImpl) {
  await runChild(childImpl);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log('## 1. Speed of the pass');
  runPassSpeedBench({ tracesDir: path.resolve(root, '..', 'shared', 'traces') });
}
