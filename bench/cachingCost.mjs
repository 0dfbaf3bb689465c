#!/usr/bin/env node
/**
 * Cost under prompt caching: `toolmask replay --compare` on the shared traces (both folders,
 * 8 sessions chained per long session), priced at cache discounts 0.1 and 0.25, with cold task
 * starts (the replay's default for chained sessions) and with warm ones. Then one ablation per
 * lever: toolmask with that lever turned back to gemini-cli's behaviour, so the table shows what
 * each lever contributes.
 *
 *   node bench/cachingCost.mjs [--traces DIR] [--quick]
 *
 * Needs `npm run build` (reads packages/cli/dist and packages/core/dist). A strategy's decisions
 * do not depend on the discount, so each replay is priced at every discount from its rows.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DISCOUNTS = [0.1, 0.25];
const TARGET_RATIO = 0.85;

/** gemini-cli's own choices, to turn one lever off at a time. */
const GEMINI_LIKE_PREVIEWS = {
  headLines: 10,
  tailLines: 10,
  shellHeadLines: 10,
  shellTailLines: 10,
  maxLineChars: 1_000,
  maxSectionChars: 10_000,
  lineBudgetChars: 0,
};
const geminiLikeEstimate = (response) => {
  try {
    return Math.floor((JSON.stringify(response) ?? '').length / 4);
  } catch {
    return 0;
  }
};

function variants(core) {
  const defaults = core.resolveToolOutputMaskingConfig();
  return [
    { name: 'toolmask', lever: 'all levers (defaults)', config: defaults },
    {
      name: 'no cold-start masking',
      lever: 'masking at cold-cache moments',
      config: defaults,
      ignoreColdSignal: true,
    },
    {
      name: 'gemini-size previews',
      lever: 'compact previews',
      config: defaults,
      tuning: { previewLimits: GEMINI_LIKE_PREVIEWS },
    },
    {
      name: 'mask tiny outputs',
      lever: 'nothing written for tiny outputs',
      config: defaults,
      tuning: { minSavedTokens: 1, maxKeptRatio: 1 },
    },
    {
      name: 'chars/4 estimates',
      lever: 'calibrated estimates',
      config: defaults,
      tuning: { estimateResponseTokens: geminiLikeEstimate },
    },
  ];
}

/** The replay's own per-strategy summary, in the few fields this bench prices and prints. */
function totalsOf(summary) {
  return {
    requests: summary.requests,
    peak: summary.peakContextTokens,
    input: summary.totalInputTokens,
    cached: summary.cachedTokens,
    breaks: summary.cacheBreaks,
    masked: summary.outputsMasked,
    passMs: summary.passMs,
  };
}

function merge(a, b) {
  return {
    requests: a.requests + b.requests,
    peak: Math.max(a.peak, b.peak),
    input: a.input + b.input,
    cached: a.cached + b.cached,
    breaks: a.breaks + b.breaks,
    masked: a.masked + b.masked,
    passMs: a.passMs + b.passMs,
  };
}

const billed = (totals, discount) => totals.input - totals.cached + discount * totals.cached;
const format = (value) => Math.round(value).toLocaleString('en-US');

async function replay(cli, sessions, strategy, warmTaskStarts) {
  const result = await cli.replaySessions(sessions, [strategy], { warmTaskStarts });
  return totalsOf(result.strategies[0].summary);
}

function withoutColdSignal(strategy) {
  return {
    name: strategy.name,
    startSession(id) {
      const run = strategy.startSession(id);
      return {
        async mask(history, pending, request) {
          const session = await run;
          return session.mask(history, pending, { ...request, cacheLikelyCold: false });
        },
      };
    },
  };
}

export async function runCachingCostBench({ tracesDir, quick = false, print = true } = {}) {
  const cli = await import('@toolmask/cli');
  const core = await import('@toolmask/core');
  const folders = fs
    .readdirSync(tracesDir)
    .filter((name) => fs.statSync(path.join(tracesDir, name)).isDirectory())
    .sort();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-cost-'));
  const log = print ? console.log : () => {};
  const results = { folders, cold: {}, warm: {} };
  try {
    const perFolder = [];
    for (const folder of folders) {
      const loaded = await cli.loadInputs([path.join(tracesDir, folder)]);
      perFolder.push({ folder, sessions: cli.chainTasks(loaded.tasks, 8) });
    }
    const strategiesFor = (list) => [
      { name: 'none', make: () => cli.createNoneStrategy() },
      { name: 'gemini-cli', make: () => cli.createGeminiCliStrategy({ projectTempDir: scratch }) },
      ...list.map((variant) => ({
        name: variant.name,
        lever: variant.lever,
        make: () => {
          const strategy = cli.createToolmaskStrategy({
            config: variant.config,
            projectTempDir: scratch,
            name: variant.name,
            ...(variant.tuning ? { tuning: variant.tuning } : {}),
          });
          return variant.ignoreColdSignal ? withoutColdSignal(strategy) : strategy;
        },
      })),
    ];
    const all = variants(core);
    for (const [mode, list] of [
      ['cold', quick ? all.slice(0, 1) : all],
      ['warm', all.slice(0, 1)],
    ]) {
      for (const strategy of strategiesFor(list)) {
        let combined;
        const byFolder = {};
        for (const { folder, sessions } of perFolder) {
          const totals = await replay(cli, sessions, strategy.make(), mode === 'warm');
          byFolder[folder] = totals;
          combined = combined ? merge(combined, totals) : totals;
        }
        results[mode][strategy.name] = { lever: strategy.lever, byFolder, combined };
      }
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }

  if (print) printResults(results, log);
  return results;
}

function printResults(results, log) {
  for (const mode of ['cold', 'warm']) {
    const table = results[mode];
    const reference = table['gemini-cli'];
    for (const scope of [...results.folders, 'both folders']) {
      const pick = (entry) => (scope === 'both folders' ? entry.combined : entry.byFolder[scope]);
      log(`\n${scope}, ${mode} task starts, 8 sessions per long session`);
      log(
        `  ${'strategy'.padEnd(22)} ${'peak ctx'.padStart(9)} ${'input tokens'.padStart(14)} ${'breaks'.padStart(6)} ${'masked'.padStart(6)}` +
          DISCOUNTS.map((d) => `  ${`billed @${d}`.padStart(13)} ${'vs gemini'.padStart(9)}`).join(
            '',
          ),
      );
      for (const [name, entry] of Object.entries(table)) {
        const totals = pick(entry);
        const line =
          `  ${name.padEnd(22)} ${format(totals.peak).padStart(9)} ${format(totals.input).padStart(14)} ${String(totals.breaks).padStart(6)} ${String(totals.masked).padStart(6)}` +
          DISCOUNTS.map((d) => {
            const ratio = billed(totals, d) / billed(pick(reference), d);
            return `  ${format(billed(totals, d)).padStart(13)} ${ratio.toFixed(3).padStart(8)}x`;
          }).join('');
        log(line);
      }
    }
  }
  const main = results.cold.toolmask;
  const reference = results.cold['gemini-cli'];
  log(
    `\nTargets (cold task starts): billed <= ${TARGET_RATIO}x gemini-cli, peak and input tokens <= gemini-cli`,
  );
  for (const scope of [...results.folders, 'both folders']) {
    const pick = (entry) => (scope === 'both folders' ? entry.combined : entry.byFolder[scope]);
    const checks = DISCOUNTS.map((d) => {
      const ratio = billed(pick(main), d) / billed(pick(reference), d);
      return `@${d}: ${ratio.toFixed(3)}x ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`;
    });
    const peak = pick(main).peak <= pick(reference).peak ? 'met' : 'NOT met';
    const input = pick(main).input <= pick(reference).input ? 'met' : 'NOT met';
    log(`  ${scope}: ${checks.join(', ')}; peak ${peak}; input ${input}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const index = process.argv.indexOf('--traces');
  const tracesDir =
    index >= 0 ? process.argv[index + 1] : path.resolve(root, '..', 'shared', 'traces');
  console.log('## 3. Cost under prompt caching');
  await runCachingCostBench({ tracesDir, quick: process.argv.includes('--quick') });
}
