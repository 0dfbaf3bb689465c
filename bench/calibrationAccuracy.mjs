#!/usr/bin/env node
// Calibration accuracy bench (issue 34): how well the gateway's per-conversation tokens-per-character
// calibration predicts a prompt's tokens, checked against OpenAI's real o200k_base tokenizer on the
// recorded sessions in ../shared/traces.
//
//   node bench/calibrationAccuracy.mjs [--traces DIR] [--json]
//
// Each session (a growing conversation, each alone) becomes the requests a provider would see: one
// before every model turn, its prompt all the contents before that turn. The gateway measures a
// request as its body (`{ model, contents }`) cut into segments (prompt-shape.ts); the "provider"
// reports the prompt's o200k_base tokens, counted on the text it would read: per content its role,
// then each text part, each function call's name and JSON arguments, each function response's JSON.
// Those counts feed the gateway's own `stepNet` (packages/gateway/dist), and each request's
// `estimatedPromptTokens` (made before its report) is compared with its count.
// Target (issue 34's done-when): within 10% from the fourth request on.
//
// The tokenizer (js-tiktoken, its ranks inside the package, ~22 MB) is installed on demand into
// bench/openai-tokenizer/, never a project dependency. Per-content counts are cached in bench/.cache/.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_DIR, DEFAULT_TRACES_DIR, REPO_ROOT } from './tokenAccuracy.mjs';

const PREFIX = path.join(BENCH_DIR, 'openai-tokenizer');
const PKG_DIR = path.join(PREFIX, 'node_modules', 'js-tiktoken');
const VERSION = JSON.parse(fs.readFileSync(path.join(PREFIX, 'package.json'), 'utf8')).dependencies[
  'js-tiktoken'
];
const CACHE_FILE = path.join(BENCH_DIR, '.cache', `o200k-js-tiktoken-${VERSION}-contents.tsv`);
const GATEWAY_DIST = path.join(REPO_ROOT, 'packages/gateway/dist/usage');
export const TARGET = { fromRequest: 4, within: 0.1 };

async function loadCounter() {
  if (!fs.existsSync(path.join(PKG_DIR, 'package.json'))) {
    process.stderr.write(
      `bench: installing js-tiktoken@${VERSION} (npm ci --prefix ${PREFIX}) ...\n`,
    );
    const res = spawnSync('npm', ['ci', '--prefix', PREFIX, '--no-audit', '--no-fund'], {
      stdio: ['ignore', 2, 2],
    });
    if (res.status !== 0) throw new Error(`npm ci --prefix ${PREFIX} failed (exit ${res.status})`);
  }
  const { Tiktoken } = await import(pathToFileURL(path.join(PKG_DIR, 'dist/lite.js')).href);
  const ranks = (await import(pathToFileURL(path.join(PKG_DIR, 'dist/ranks/o200k_base.js')).href))
    .default;
  const encoder = new Tiktoken(ranks);
  // Special-token text in an output is read as plain text, as a provider does with user content.
  return (text) => encoder.encode(text, [], []).length;
}

async function loadGateway() {
  if (!fs.existsSync(path.join(GATEWAY_DIST, 'net-billing.js'))) {
    throw new Error(`${GATEWAY_DIST}/net-billing.js is missing: run npm run build first`);
  }
  const { stepNet } = await import(pathToFileURL(path.join(GATEWAY_DIST, 'net-billing.js')).href);
  const { promptShape } = await import(
    pathToFileURL(path.join(GATEWAY_DIST, 'prompt-shape.js')).href
  );
  return { stepNet, promptShape };
}

/** The text a provider tokenizes for one content. */
function contentText(content) {
  const pieces = [content.role ?? ''];
  for (const part of content.parts ?? []) {
    if (typeof part.text === 'string') pieces.push(part.text);
    if (part.functionCall)
      pieces.push(part.functionCall.name, JSON.stringify(part.functionCall.args ?? {}));
    if (part.functionResponse) pieces.push(JSON.stringify(part.functionResponse.response ?? {}));
  }
  return pieces.join('\n');
}

function loadSessions(tracesDir) {
  if (!fs.existsSync(tracesDir)) throw new Error(`traces folder not found: ${tracesDir}`);
  const sessions = [];
  for (const folder of fs.readdirSync(tracesDir).sort()) {
    if (!fs.statSync(path.join(tracesDir, folder)).isDirectory()) continue;
    for (const file of fs.readdirSync(path.join(tracesDir, folder)).sort()) {
      if (!file.endsWith('.json')) continue;
      const contents = JSON.parse(fs.readFileSync(path.join(tracesDir, folder, file), 'utf8'));
      sessions.push({ folder, file, contents });
    }
  }
  return sessions;
}

/** Per-content token counts, cached by a hash of the content's text. */
async function countContents(sessions, log) {
  const cache = new Map();
  if (fs.existsSync(CACHE_FILE)) {
    for (const line of fs.readFileSync(CACHE_FILE, 'utf8').split('\n')) {
      const [hash, count] = line.split('\t');
      if (hash && count) cache.set(hash, Number(count));
    }
  }
  let count;
  const before = cache.size;
  for (const session of sessions) {
    session.tokens = [];
    for (const content of session.contents) {
      const text = contentText(content);
      const hash = createHash('sha256').update(text).digest('base64url').slice(0, 24);
      if (!cache.has(hash)) {
        if (!count) {
          log('tokenizing the sessions with o200k_base ...');
          count = await loadCounter();
        }
        cache.set(hash, count(text));
      }
      session.tokens.push(cache.get(hash));
    }
  }
  if (cache.size > before) {
    fs.mkdirSync(path.dirname(CACHE_FILE), { recursive: true });
    fs.writeFileSync(CACHE_FILE, [...cache].map(([h, c]) => `${h}\t${c}\n`).join(''));
  }
}

const quantile = (sorted, q) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;

export async function runCalibrationAccuracyBench({
  tracesDir = DEFAULT_TRACES_DIR,
  log = () => {},
} = {}) {
  const { stepNet, promptShape } = await loadGateway();
  const sessions = loadSessions(tracesDir);
  await countContents(sessions, log);
  const byFolder = {};
  for (const session of sessions) {
    const errors = (byFolder[session.folder] ??= { sessions: 0, early: [], later: [], delta: [] });
    errors.sessions += 1;
    let state;
    let request = 0;
    let tokens = 0;
    let last; // the previous request's characters and reported tokens
    session.contents.forEach((content, index) => {
      if (content.role === 'model' && index > 0) {
        request += 1;
        const body = JSON.stringify({
          model: 'gpt-5-codex',
          contents: session.contents.slice(0, index),
        });
        const shape = promptShape(body, ['contents']);
        if (!shape) throw new Error(`${session.file}: request ${request} could not be measured`);
        const step = stepNet(state, {
          unmasked: shape,
          sent: shape,
          usage: { promptTokens: tokens },
          at: request,
          idleGapMs: 1,
        });
        const chars = shape.chars.reduce((sum, c) => sum + c, 0);
        if (step.estimatedPromptTokens !== undefined) {
          const error = Math.abs(step.estimatedPromptTokens - tokens) / tokens;
          (request < TARGET.fromRequest ? errors.early : errors.later).push(error);
          // For comparison, not the gateway's: the last report exact, only the new characters
          // converted at the calibrated rate.
          const rate = state.reportedTokens / state.sentChars;
          const delta = last.tokens + rate * (chars - last.chars);
          if (request >= TARGET.fromRequest) errors.delta.push(Math.abs(delta - tokens) / tokens);
        }
        state = step.state;
        last = { chars, tokens };
      }
      tokens += session.tokens[index];
    });
  }
  const summarize = ({ sessions: count, early, later, delta }) => {
    const sorted = [...later].sort((a, b) => a - b);
    const sortedDelta = [...delta].sort((a, b) => a - b);
    return {
      sessions: count,
      requests2to3: early.length,
      requestsFrom4: later.length,
      median: quantile(sorted, 0.5),
      p90: quantile(sorted, 0.9),
      max: sorted.at(-1),
      within: later.filter((e) => e <= TARGET.within).length / later.length,
      medianRequests2to3: quantile(
        [...early].sort((a, b) => a - b),
        0.5,
      ),
      lastReportPlusNew: {
        median: quantile(sortedDelta, 0.5),
        p90: quantile(sortedDelta, 0.9),
        max: sortedDelta.at(-1),
        within: delta.filter((e) => e <= TARGET.within).length / delta.length,
      },
    };
  };
  const folders = Object.fromEntries(Object.entries(byFolder).map(([f, e]) => [f, summarize(e)]));
  const all = summarize({
    sessions: sessions.length,
    early: Object.values(byFolder).flatMap((e) => e.early),
    later: Object.values(byFolder).flatMap((e) => e.later),
    delta: Object.values(byFolder).flatMap((e) => e.delta),
  });
  return { tracesDir, folders, all, pass: all.within === 1 };
}

const pct = (v) => `${(100 * v).toFixed(1)}%`;

export function formatCalibrationResult(result) {
  const d = result.all.lastReportPlusNew;
  const rows = [...Object.entries(result.folders), ['all', result.all]].map(([name, r]) =>
    [
      name.padEnd(26),
      String(r.sessions).padStart(8),
      String(r.requestsFrom4).padStart(9),
      pct(r.median).padStart(7),
      pct(r.p90).padStart(6),
      pct(r.max).padStart(6),
      pct(r.within).padStart(11),
      pct(r.medianRequests2to3).padStart(12),
    ].join('  '),
  );
  return [
    `${'folder'.padEnd(26)}  sessions  requests  median     p90     max  within 10%  median 2nd-3rd`,
    ...rows,
    '(absolute error of the calibrated prediction against o200k_base, requests from the 4th on)',
    `For comparison (not the gateway's rule), the last report plus only the new characters at the ` +
      `same rate: median ${pct(d.median)}, p90 ${pct(d.p90)}, max ${pct(d.max)}, within 10% ${pct(d.within)}`,
    `Goal (every request from the 4th on within 10%): ${result.pass ? 'met' : 'NOT met'}`,
  ].join('\n');
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--traces');
  const result = await runCalibrationAccuracyBench({
    tracesDir: at >= 0 ? path.resolve(argv[at + 1]) : DEFAULT_TRACES_DIR,
    log: (message) => process.stderr.write(`${message}\n`),
  });
  console.log(
    argv.includes('--json') ? JSON.stringify(result, null, 2) : formatCalibrationResult(result),
  );
  if (!result.pass) process.exitCode = 1;
}
