#!/usr/bin/env node
/**
 * Giant outputs (issue 14 item 4, issue 15 item 9): one 200 MB tool output.
 *
 * - **The pass.** A history holding one 200 MB shell log among ordinary outputs, masked by
 *   toolmask's pass and by gemini-cli's built-in `ToolOutputMaskingService` on the same history,
 *   each in its own child process: pass time end to end (estimate, preview, file written), the
 *   longest stretch the event loop was blocked, and peak RSS over the baseline with the history
 *   built.
 * - **The read-back.** `read_tool_output` on that 200 MB file, each call in a fresh child
 *   process (one line, a far line, a pattern found early with a cold and a warm worker, a
 *   pattern found nowhere): time to the slice, the longest event-loop block, peak RSS over
 *   baseline; beside it, what reading the whole file and splitting it costs (the reader before).
 *
 *   node bench/giantOutputs.mjs                  # both tables
 *   node bench/giantOutputs.mjs --mb 50          # a smaller output
 *
 * Needs `npm run build` (reads packages/core/dist). The output file goes to the OS temp dir
 * (--temp-dir) and is removed at the end.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPassService } from './passService.mjs';

const RESULT_MARKER = 'GIANT_OUTPUT_RESULT ';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : fallback;
}

/** A deterministic build log of about `megabytes` MB, as a shell tool returns it; two ERROR lines. */
function writeGiantLog(file, megabytes) {
  const target = megabytes * 1e6;
  const fd = fs.openSync(file, 'w', 0o600);
  let size = 0;
  let line = 0;
  fs.writeSync(fd, 'Output: ');
  while (size < target) {
    const lines = [];
    for (let k = 0; k < 10_000; k++, line++) {
      const failed = line === 100_000 || line === Math.floor(target / 55);
      lines.push(
        `[${line}] compiling src/module_${line % 97}.ts ... ${failed ? 'ERROR type mismatch' : 'ok'} (${line % 1000} ms)`,
      );
    }
    const chunk = `${lines.join('\n')}\n`;
    fs.writeSync(fd, chunk);
    size += chunk.length;
  }
  fs.writeSync(fd, 'Exit Code: 1');
  fs.closeSync(fd);
  return { bytes: fs.statSync(file).size, lines: line + 1 };
}

/** Reports the longest event-loop block while `work` runs (a 1 ms timer's lateness). */
async function watched(work) {
  let blockedMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    blockedMs = Math.max(blockedMs, now - last - 1);
    last = now;
  }, 1);
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 2);
  const started = performance.now();
  try {
    const result = await work();
    // Work that never yields is one block, seen only here.
    blockedMs = Math.max(blockedMs, performance.now() - last - 1);
    return { result, ms: performance.now() - started, blockedMs, peakRss };
  } finally {
    clearInterval(timer);
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
}

function bulkyOutput(index) {
  const lines = [];
  for (let line = 0; line < 400; line++) lines.push(`[${index}:${line}] test_${line} passed`);
  return `Output: ${lines.join('\n')}`;
}

/** The pass, in a child: `impl` is `ours` or `gemini-cli`. */
async function passChild(impl, file) {
  for (const method of ['log', 'debug', 'info', 'warn']) console[method] = () => undefined;
  const temp = fs.mkdtempSync(path.join(argument('temp-dir', os.tmpdir()), 'toolmask-giant-'));
  const { host, service } = await createPassService(impl, {
    sessionId: 'giant',
    projectTempDir: temp,
  });
  // The output as a host holds it: one flat string (decoded from the tool's bytes).
  const giant = fs.readFileSync(file, 'utf8');
  const history = [{ role: 'user', parts: [{ text: 'build everything' }] }];
  const exchange = (id, output) => [
    {
      role: 'model',
      parts: [{ functionCall: { id, name: 'run_shell_command', args: { command: 'make' } } }],
    },
    {
      role: 'user',
      parts: [{ functionResponse: { id, name: 'run_shell_command', response: { output } } }],
    },
  ];
  history.push(...exchange('giant', giant));
  // Ordinary outputs after it (~70k tokens): the giant one is outside both protection windows.
  for (let index = 0; index < 16; index++)
    history.push(...exchange(`c${index}`, bulkyOutput(index)));
  history.push({ role: 'model', parts: [{ text: 'Looking at the failures.' }] });
  global.gc?.();
  const baselineRss = process.memoryUsage().rss;
  const run = await watched(() => service.mask(history, host));
  const masked = run.result.maskedCount;
  fs.rmSync(temp, { recursive: true, force: true });
  return {
    impl,
    masked,
    ms: run.ms,
    blockedMs: run.blockedMs,
    peakRssOverBaselineMb: (run.peakRss - baselineRss) / 1e6,
  };
}

/** One read-back in a child: `kind` names the call (see READS). */
async function readChild(kind, file) {
  const reads = {
    'limit 1': { limit: 1 },
    'far line (offset at 80%)': { offset: Number(argument('far-line')), limit: 1 },
    'pattern found early': { pattern: 'ERROR', limit: 1 },
    'pattern found nowhere': { pattern: 'segfault|panic' },
  };
  // Loaded before the baseline: the modules are not the read's.
  const core = await import('@toolmask/core');
  global.gc?.();
  const baselineRss = process.memoryUsage().rss;
  if (kind === 'whole file') {
    const run = await watched(async () => {
      const lines = (await fs.promises.readFile(file, 'utf8')).split('\n');
      return lines[0];
    });
    return {
      kind,
      ms: run.ms,
      blockedMs: run.blockedMs,
      peakRssOverBaselineMb: (run.peakRss - baselineRss) / 1e6,
    };
  }
  const access = {
    projectTempDir: path.dirname(path.dirname(path.dirname(file))),
    sessionId: 'giant',
    allowOtherSessions: false,
  };
  const params = { file, ...reads[kind.replace(/ \(warm worker\)$/, '')] };
  // A warm worker: one search before, as the second search of a session finds it.
  if (kind.endsWith('(warm worker)'))
    await core.readToolOutput({ file, pattern: 'x', limit: 1 }, access);
  const run = await watched(() => core.readToolOutput(params, access));
  return {
    kind,
    ms: run.ms,
    blockedMs: run.blockedMs,
    peakRssOverBaselineMb: (run.peakRss - baselineRss) / 1e6,
    footer: run.result.text.split('\n').at(-1),
  };
}

function child(args) {
  const result = spawnSync(
    process.execPath,
    ['--expose-gc', '--max-old-space-size=4096', fileURLToPath(import.meta.url), ...args],
    { cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  if (result.status !== 0) throw new Error(`giant-output bench child failed: ${result.stderr}`);
  const line = result.stdout.split('\n').find((text) => text.startsWith(RESULT_MARKER));
  if (!line) throw new Error(`giant-output bench child printed no result: ${result.stdout}`);
  return JSON.parse(line.slice(RESULT_MARKER.length));
}

const READS = [
  'limit 1',
  'far line (offset at 80%)',
  'pattern found early',
  'pattern found early (warm worker)',
  'pattern found nowhere',
];

/** Runs both parts and prints them (rows of section 1); returns the figures. */
export function runGiantOutputsBench({ megabytes = 200, tempDir, print = true } = {}) {
  const folder = fs.mkdtempSync(path.join(tempDir ?? os.tmpdir(), 'toolmask-giant-bench-'));
  // Laid out as the store does, so the reader's access checks run as in a session.
  const session = path.join(folder, 'tool-outputs', 'session-giant');
  fs.mkdirSync(session, { recursive: true, mode: 0o700 });
  const file = path.join(session, 'run_shell_command.giant.0123456789abcdef.txt');
  try {
    const { bytes, lines } = writeGiantLog(file, megabytes);
    const extra = tempDir ? ['--temp-dir', tempDir] : [];
    const farLine = String(Math.floor(lines * 0.8));
    const passes = ['ours', 'gemini-cli'].map((impl) =>
      child(['--child-pass', impl, '--file', file, ...extra]),
    );
    const reads = [...READS, 'whole file'].map((kind) =>
      child(['--child-read', kind, '--file', file, '--far-line', farLine]),
    );
    if (print) {
      const mb = (bytes / 1e6).toFixed(0);
      const fmt = (value, digits = 0) =>
        value.toLocaleString('en-US', {
          maximumFractionDigits: digits,
          minimumFractionDigits: digits,
        });
      console.log(`\ngiant output: one ${mb} MB shell log among 16 ordinary outputs (one pass)`);
      console.log('                       pass ms   longest block ms   peak RSS +MB   masked');
      for (const pass of passes) {
        console.log(
          `  ${(pass.impl === 'ours' ? 'toolmask' : 'gemini-cli').padEnd(18)} ${fmt(pass.ms).padStart(8)} ${fmt(pass.blockedMs).padStart(18)} ${fmt(pass.peakRssOverBaselineMb).padStart(14)} ${String(pass.masked).padStart(8)}`,
        );
      }
      console.log(`\nread_tool_output on the ${mb} MB file (each call in a fresh process)`);
      console.log('                                      ms   longest block ms   peak RSS +MB');
      for (const read of reads) {
        const label = read.kind === 'whole file' ? 'whole file read + split (before)' : read.kind;
        console.log(
          `  ${label.padEnd(34)} ${fmt(read.ms).padStart(6)} ${fmt(read.blockedMs).padStart(18)} ${fmt(read.peakRssOverBaselineMb).padStart(14)}`,
        );
      }
    }
    return { bytes, passes, reads };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

const passImpl = argument('child-pass', undefined);
const readKind = argument('child-read', undefined);
if (passImpl) {
  process.stdout.write(RESULT_MARKER + JSON.stringify(await passChild(passImpl, argument('file'))));
} else if (readKind) {
  process.stdout.write(RESULT_MARKER + JSON.stringify(await readChild(readKind, argument('file'))));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log('## 1. Speed of the pass: giant outputs');
  runGiantOutputsBench({
    megabytes: Number(argument('mb', '200')),
    tempDir: argument('temp-dir', undefined),
  });
}
