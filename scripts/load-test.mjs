#!/usr/bin/env node
/**
 * Load test of the masking pass (docs/reliability.md, guarantee 7): a long synthetic session,
 * built one request at a time as a host would — append the model's call and the tool's output,
 * run the pass, keep the history it returns — with the real file store in a temporary folder.
 * Prints the peak RSS over the baseline (memory must stay bounded: the masked history keeps
 * snippets, the outputs live on disk) and the pass times. Not part of `npm test`.
 *
 *   npm run build && node --expose-gc scripts/load-test.mjs [--requests 10000] [--mb 200]
 *     [--fsync] [--keep] [--unmasked]
 *
 * --unmasked runs the same session with masking disabled, for comparison. With --expose-gc the
 * live heap after a full GC is reported at each quarter too.
 *
 * Exits non-zero if any pass failed an output, or if a sampled file does not hold its output.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(repo, 'packages/core/dist');
if (!fs.existsSync(path.join(dist, 'index.js'))) {
  console.error('packages/core/dist is missing: run `npm run build` first.');
  process.exit(2);
}
const { ToolOutputMaskingService, resolveToolOutputMaskingConfig, parseMaskedSnippet } =
  await import('@toolmask/core');
const { createFileToolOutputStore } = await import('@toolmask/core/storage');

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = process.argv[index + 1];
  return value === undefined || value.startsWith('--') ? true : Number(value);
}
const REQUESTS = option('requests', 10_000);
const TOTAL_MB = option('mb', 200);
const FSYNC = option('fsync', false) === true;
const KEEP = option('keep', false) === true;
const UNMASKED = option('unmasked', false) === true;

/** Deterministic sizes: uniform around the mean, plus a 2 MB log every 1,000 requests. */
let seed = 0x5eed;
const random = () => (seed = (seed * 1_664_525 + 1_013_904_223) >>> 0) / 2 ** 32;
const BIG = 2 * 1024 * 1024;
const bigCount = Math.floor(REQUESTS / 1_000);
const meanBytes = Math.max(
  1_024,
  Math.round((TOTAL_MB * 1024 * 1024 - bigCount * BIG) / Math.max(1, REQUESTS - bigCount)),
);
const TOOLS = ['run_shell_command', 'read_file', 'grep_search', 'glob', 'web_fetch'];

function outputOf(request) {
  const bytes = request % 1_000 === 999 ? BIG : Math.round(meanBytes * (0.1 + 1.8 * random()));
  const line = `[req ${request}] ${'log line with some payload 0123456789 '.repeat(2)}`;
  const count = Math.max(1, Math.round(bytes / (line.length + 6)));
  const lines = new Array(count);
  for (let i = 0; i < count; i++) lines[i] = `${i} ${line}`;
  return lines.join('\n');
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-load-'));
const config = resolveToolOutputMaskingConfig({ enabled: !UNMASKED });
const host = {
  getToolOutputMaskingConfig: async () => config,
  getSessionId: () => 'load',
  storage: { getProjectTempDir: () => root },
};
const service = new ToolOutputMaskingService({
  store: createFileToolOutputStore({ fsync: FSYNC }),
  telemetry: () => undefined,
});

const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
globalThis.gc?.();
const baseline = process.memoryUsage().rss;
let peak = baseline;
let history = [{ role: 'user', parts: [{ text: 'Start the long task.' }] }];
const durations = new Float64Array(REQUESTS);
let outputBytes = 0;
let masked = 0;
let failures = 0;
const sampled = [];
const checkpoints = [];
const started = performance.now();

for (let request = 0; request < REQUESTS; request++) {
  const id = `call-${request}`;
  const name = TOOLS[request % TOOLS.length];
  const output = outputOf(request);
  outputBytes += Buffer.byteLength(output);
  if (request % 97 === 0)
    sampled.push({ id, sha256: createHash('sha256').update(output).digest('hex') });
  history.push({ role: 'model', parts: [{ functionCall: { id, name, args: { step: request } } }] });
  history.push({ role: 'user', parts: [{ functionResponse: { id, name, response: { output } } }] });

  const before = performance.now();
  // An idle gap now and then: the cache is cold, masking is free.
  const result = await service.mask(history, host, { cacheLikelyCold: request % 200 === 199 });
  durations[request] = performance.now() - before;
  masked += result.maskedCount;
  failures += result.failures.length;
  // The host keeps what the pass returned.
  if (result.newHistory !== history) history = [...result.newHistory];

  const rss = process.memoryUsage().rss;
  if (rss > peak) peak = rss;
  if ((request + 1) % (REQUESTS / 4) === 0) {
    let live = '';
    if (globalThis.gc) {
      globalThis.gc();
      live = `, live heap ${mb(process.memoryUsage().heapUsed)} MB`;
    }
    checkpoints.push(`${request + 1}: rss +${mb(rss - baseline)} MB${live}`);
  }
}
const elapsed = performance.now() - started;

// The outputs are on disk: check a sample against what the tool returned.
const directory = path.join(root, 'tool-outputs', 'session-load');
let checked = 0;
let corrupt = 0;
const wanted = new Map(sampled.map((item) => [item.id, item.sha256]));
for (const content of history) {
  const response = content.parts?.[0]?.functionResponse;
  if (!response || !wanted.has(response.id)) continue;
  const snippet = parseMaskedSnippet(response.response?.output ?? '');
  if (!snippet) continue;
  const sha = createHash('sha256').update(fs.readFileSync(snippet.filePath)).digest('hex');
  checked++;
  if (sha !== wanted.get(response.id)) corrupt++;
}
const files = fs.existsSync(directory) ? fs.readdirSync(directory) : [];
const diskBytes = files.reduce(
  (sum, name) => sum + fs.statSync(path.join(directory, name)).size,
  0,
);
const sorted = [...durations].sort((a, b) => a - b);
const quantile = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const historyBytes = Buffer.byteLength(JSON.stringify(history));
const maxRss = process.resourceUsage().maxRSS * 1024;

console.log(
  `toolmask load test: ${REQUESTS.toLocaleString('en-US')} requests, node ${process.version}, fsync ${FSYNC ? 'on' : 'off'}${UNMASKED ? ', MASKING DISABLED' : ''}`,
);
console.log(
  `  tool output generated   ${mb(outputBytes)} MB (mean ${(outputBytes / REQUESTS / 1024).toFixed(1)} KB an output, ${bigCount} of 2 MB)`,
);
console.log(
  `  masked                  ${masked.toLocaleString('en-US')} outputs, ${files.length.toLocaleString('en-US')} files, ${mb(diskBytes)} MB on disk`,
);
console.log(
  `  history kept by host    ${history.length.toLocaleString('en-US')} entries, ${mb(historyBytes)} MB as JSON`,
);
console.log(`  RSS baseline            ${mb(baseline)} MB`);
console.log(
  `  peak RSS over baseline  ${mb(peak - baseline)} MB (sampled after each pass; process maxRSS ${mb(maxRss)} MB)`,
);
console.log(`  at each quarter         ${checkpoints.join('; ')}`);
console.log(
  `  pass time               total ${(durations.reduce((a, b) => a + b, 0) / 1000).toFixed(2)} s, mean ${(durations.reduce((a, b) => a + b, 0) / REQUESTS).toFixed(3)} ms, p50 ${quantile(0.5).toFixed(3)} ms, p99 ${quantile(0.99).toFixed(3)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`,
);
console.log(
  `  wall time               ${(elapsed / 1000).toFixed(1)} s (includes generating the outputs)`,
);
console.log(`  failures ${failures}, sampled files checked ${checked}, corrupt ${corrupt}`);

if (KEEP) console.log(`  kept ${root}`);
else fs.rmSync(root, { recursive: true, force: true });
process.exitCode = failures > 0 || corrupt > 0 || (checked === 0 && !UNMASKED) ? 1 : 0;
