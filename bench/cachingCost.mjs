#!/usr/bin/env node
/**
 * Cost under prompt caching: `toolmask replay --compare` on the shared traces (both folders,
 * 8 sessions chained per long session), priced at cache discounts 0.1 and 0.25, with cold task
 * starts (the replay's default for chained sessions) and with warm ones. Beside none, gemini-cli
 * and toolmask: the offline optimum of toolmask's policy (the cheapest schedule of masking events
 * any trigger rule could reach, knowing the future; replay/metrics/optimal-schedule.ts) and each
 * strategy's share of the optimal savings, `(none - strategy) / (none - optimum)`. Then one
 * ablation per lever: toolmask with that lever turned back, so the table shows what each one
 * contributes. Beside billed, every replayed strategy's effective billed: billed plus the read-backs
 * its hidden lines would cost (readBacks.mjs); the goals are checked on effective billed (the
 * optimum's schedules are not replayed, so it has billed only). Last, the same replays priced per
 * provider (providerPricing.mjs): Gemini/OpenAI (no
 * write premium) and Anthropic (writes 1.25x), with toolmask replayed a second time with
 * Anthropic's cache economics in its trigger, so the two can be set side by side in one run.
 *
 *   node bench/cachingCost.mjs [--traces DIR] [--quick]
 *
 * Needs `npm run build` (reads packages/cli/dist and packages/core/dist). A strategy's decisions
 * do not depend on the discount, so each replay is priced at every discount from its totals; the
 * optimum does depend on it and is computed per discount.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRIGGER_RULES, simulateRule } from './triggerRules.mjs';
import { NO_READ_BACKS, addReadBacks, readBacksOver } from './readBacks.mjs';
import {
  ANTHROPIC_TRIGGER,
  optimumPerPricing,
  printProviderPricing,
  providerPricings,
} from './providerPricing.mjs';
import {
  DISCOUNTS,
  billed,
  createScratch,
  formatTable,
  integer,
  loadFolders,
  mergeTotals,
  percent,
  quoteIndexes,
  replayFolders,
  runTuning,
} from './replayStudy.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET_RATIO = { 0.1: 0.85, 0.25: 0.87 };
const TARGET_SHARE = 0.95;
const OPTIMUM = 'optimum';

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

/** toolmask and one variant per lever, each with that lever turned back. */
function variants(core) {
  const defaults = core.resolveToolOutputMaskingConfig();
  const oneWindow = { ...defaults, coldCacheProtectionThreshold: defaults.toolProtectionThreshold };
  return [
    { name: 'toolmask', config: defaults },
    { name: '- superseded first', config: defaults, tuning: { supersededReasons: [] } },
    {
      name: `- cold-moment window (${integer(oneWindow.toolProtectionThreshold)})`,
      config: oneWindow,
    },
    {
      name: '- previews by kind (head/tail)',
      config: defaults,
      tuning: { previewFamily: 'head-and-tail' },
    },
    {
      name: '- line budget (head/tail only)',
      config: defaults,
      tuning: { previewLimits: { lineBudgetChars: 0 } },
    },
    { name: '- cold-start masking', config: defaults, ignoreColdSignal: true },
    {
      name: '- compact previews (gemini sizes)',
      config: defaults,
      tuning: { previewLimits: GEMINI_LIKE_PREVIEWS },
    },
    {
      name: '- nothing written for tiny outputs',
      config: defaults,
      tuning: { minSavedTokens: 1, maxKeptRatio: 1 },
    },
    {
      name: '- calibrated estimates (chars/4)',
      config: defaults,
      tuning: { estimateResponseTokens: geminiLikeEstimate },
    },
  ];
}

function toolmaskSpec(cli, variant, options = {}) {
  return {
    name: options.name ?? variant.name,
    // Observed for the read-backs of effective billed (readBacks.mjs) and the optimum's model.
    observe: true,
    make: (scratchPath) => {
      const strategy = cli.createToolmaskStrategy({
        config: variant.config,
        projectTempDir: scratchPath,
        name: variant.name,
        ...(runTuning(variant.tuning) ? { tuning: runTuning(variant.tuning) } : {}),
      });
      if (options.everyRequestCold) return cli.withColdSignal(strategy, true);
      return variant.ignoreColdSignal ? cli.withColdSignal(strategy, false) : strategy;
    },
  };
}

/**
 * The strategies of one mode: none, gemini-cli and toolmask (observed), the every-request-cold
 * runs the optimum is measured from, and the ablations. The optimum's runs leave superseded
 * outputs out: its model masks a prefix of the outputs in history order, which masking a
 * superseded output inside the window is not; so the optimum is the policy's without them, and a
 * toolmask that masks them may reach more than 100% of its savings.
 */
function specsFor(cli, core, withAblations) {
  const [toolmask, ...ablations] = variants(core);
  const config = toolmask.config;
  const oneWindow = config.coldCacheProtectionThreshold >= config.toolProtectionThreshold;
  const prefixOnly = { ...toolmask, tuning: { supersededReasons: [] } };
  return [
    { name: 'none', make: () => cli.createNoneStrategy() },
    {
      name: 'gemini-cli',
      observe: true,
      make: (scratchPath) => cli.createGeminiCliStrategy({ projectTempDir: scratchPath }),
    },
    toolmaskSpec(cli, toolmask, { observe: true }),
    toolmaskSpec(
      cli,
      {
        ...prefixOnly,
        config: { ...config, coldCacheProtectionThreshold: config.toolProtectionThreshold },
      },
      { name: 'every request, warm window', everyRequestCold: true },
    ),
    ...(oneWindow
      ? []
      : [
          toolmaskSpec(cli, prefixOnly, {
            name: 'every request, cold window',
            everyRequestCold: true,
          }),
        ]),
    ...(withAblations ? ablations.map((variant) => toolmaskSpec(cli, variant)) : []),
    // toolmask as the Anthropic front runs it: its trigger weighs a break at Anthropic's prices.
    // Last, so that adding it changes nothing in the runs above.
    toolmaskSpec(cli, {
      ...toolmask,
      name: ANTHROPIC_TRIGGER,
      tuning: { cacheEconomics: core.CACHE_ECONOMICS.anthropic },
    }),
  ];
}

/**
 * The optimum's billed tokens over a folder's sessions, per discount; beside it, the billed tokens
 * of the other trigger rules simulated on the same model (triggerRules.mjs).
 */
function optimumOf(cli, sessions, strategies, warmTaskStarts, pricings) {
  const warm = strategies['every request, warm window'];
  const cold = strategies['every request, cold window'] ?? warm;
  const models = sessions.map((session) =>
    cli.buildScheduleModel({
      session,
      rule: { warmTaskStarts },
      warmWindowMoments: warm.moments(session.id),
      coldWindowMoments: cold.moments(session.id),
    }),
  );
  const result = { rules: {}, pricing: optimumPerPricing(cli, models, pricings) };
  for (const discount of DISCOUNTS) {
    const schedules = models.map((model) => cli.optimalSchedule(model, discount));
    result[discount] = {
      billed: schedules.reduce((sum, schedule) => sum + schedule.billedTokens, 0),
      breaks: schedules.reduce((sum, schedule) => sum + schedule.cacheBreaks, 0),
    };
    for (const [name, rule] of Object.entries(TRIGGER_RULES)) {
      result.rules[name] ??= {};
      result.rules[name][discount] = models.reduce(
        (sum, model) =>
          sum + cli.scheduleCost(model, simulateRule(model, rule, discount), discount).billedTokens,
        0,
      );
    }
  }
  return result;
}

/**
 * `folders`: the loaded traces (loadFolders), when the caller has them already; `quotesOf`: the
 * quote indexes of the run (replayStudy.mjs), shared with information kept.
 */
export async function runCachingCostBench({
  tracesDir,
  folders,
  quotesOf,
  quick = false,
  print = true,
} = {}) {
  const cli = await import('@toolmask/cli');
  const core = await import('@toolmask/core');
  folders ??= await loadFolders(cli, tracesDir);
  quotesOf ??= quoteIndexes(cli);
  const scratch = createScratch();
  const pricings = providerPricings(core);
  const results = { folders: folders.map((entry) => entry.folder), modes: {}, pricings, quotesOf };
  try {
    for (const [mode, warmTaskStarts] of [
      ['cold', false],
      ['warm', true],
    ]) {
      const specs = specsFor(cli, core, mode === 'cold' && !quick);
      const byFolder = await replayFolders(cli, folders, specs, scratch.path, { warmTaskStarts });
      for (const { folder, sessions } of folders) {
        byFolder[folder][OPTIMUM] = optimumOf(
          cli,
          sessions,
          byFolder[folder],
          warmTaskStarts,
          pricings,
        );
      }
      const shown = specs
        .map((spec) => spec.name)
        .filter((name) => !name.startsWith('every request') && name !== ANTHROPIC_TRIGGER);
      for (const { folder, sessions } of folders) {
        for (const name of shown) {
          const entry = byFolder[folder][name];
          entry.readBacks = readBacksOver(cli, core, sessions, entry, quotesOf, DISCOUNTS);
        }
      }
      results.modes[mode] = { byFolder, shown };
    }
  } finally {
    scratch.remove();
  }
  if (print) printResults(results, console.log);
  return results;
}

/** Totals of a strategy (or the optimum's billed figures) over one folder or all of them. */
function scopeOf(results, mode, scope) {
  const { byFolder } = results.modes[mode];
  const folders = scope === 'both folders' ? results.folders : [scope];
  const names = Object.keys(byFolder[folders[0]]);
  const scoped = {};
  for (const name of names) {
    if (name === OPTIMUM) {
      const sum = (pick) =>
        folders.reduce((total, folder) => total + pick(byFolder[folder][name]), 0);
      scoped[name] = Object.fromEntries(
        DISCOUNTS.map((discount) => [
          discount,
          {
            billed: sum((optimum) => optimum[discount].billed),
            breaks: sum((optimum) => optimum[discount].breaks),
          },
        ]),
      );
      scoped.pricing = Object.fromEntries(
        results.pricings.map(({ name: pricing }) => [
          pricing,
          {
            billed: sum((optimum) => optimum.pricing[pricing].billed),
            breaks: sum((optimum) => optimum.pricing[pricing].breaks),
          },
        ]),
      );
      scoped.rules = Object.fromEntries(
        Object.keys(TRIGGER_RULES).map((rule) => [
          rule,
          Object.fromEntries(
            DISCOUNTS.map((discount) => [
              discount,
              sum((optimum) => optimum.rules[rule][discount]),
            ]),
          ),
        ]),
      );
    } else {
      scoped[name] = folders.map((folder) => byFolder[folder][name].totals).reduce(mergeTotals);
      scoped.readBacks ??= {};
      scoped.readBacks[name] = folders
        .map((folder) => byFolder[folder][name].readBacks ?? NO_READ_BACKS)
        .reduce(addReadBacks);
    }
  }
  return scoped;
}

const billedIn = (scoped, name, discount) => {
  if (name === OPTIMUM) return scoped[name][discount].billed;
  if (name in scoped.rules) return scoped.rules[name][discount];
  return billed(scoped[name], discount);
};

/**
 * Billed plus the read-backs the strategy's hidden lines cost (readBacks.mjs); undefined for the
 * optimum and the simulated rules, whose schedules are not replayed.
 */
const effectiveIn = (scoped, name, discount) => {
  const readBacks = scoped.readBacks?.[name];
  if (!readBacks) return undefined;
  return billed(scoped[name], discount) + (readBacks.extra[discount] ?? 0);
};

export function shareOfOptimum(scoped, name, discount) {
  const none = billedIn(scoped, 'none', discount);
  return (none - billedIn(scoped, name, discount)) / (none - billedIn(scoped, OPTIMUM, discount));
}

function printResults(results, log) {
  const scopes = [...results.folders, 'both folders'];
  for (const mode of ['cold', 'warm']) {
    for (const scope of scopes) {
      const scoped = scopeOf(results, mode, scope);
      log(`\n${scope}, ${mode} task starts, 8 sessions per long session`);
      const rows = [
        [
          'strategy',
          'peak ctx',
          'input tokens',
          'breaks',
          'masked',
          'superseded',
          ...DISCOUNTS.flatMap((d) => [`billed @${d}`, 'vs gemini']),
          'read-backs',
          ...DISCOUNTS.flatMap((d) => [`effective @${d}`, 'vs gemini']),
        ],
      ];
      const reference = (d) => billedIn(scoped, 'gemini-cli', d);
      const effectiveReference = (d) => effectiveIn(scoped, 'gemini-cli', d);
      const effectives = (name) =>
        DISCOUNTS.flatMap((d) => {
          const value = effectiveIn(scoped, name, d);
          return value === undefined
            ? ['', '']
            : [integer(value), `${(value / effectiveReference(d)).toFixed(3)}x`];
        });
      for (const name of [
        ...results.modes[mode].shown.slice(0, 3),
        OPTIMUM,
        ...results.modes[mode].shown.slice(3),
      ]) {
        const ratios = DISCOUNTS.flatMap((d) => [
          integer(billedIn(scoped, name, d)),
          `${(billedIn(scoped, name, d) / reference(d)).toFixed(3)}x`,
        ]);
        if (name === OPTIMUM) {
          const breaks = DISCOUNTS.map((d) => scoped[name][d].breaks).join(' / ');
          rows.push([
            `${name} (knows the future)`,
            '',
            '',
            breaks,
            '',
            '',
            ...ratios,
            '',
            ...effectives(name),
          ]);
        } else {
          const totals = scoped[name];
          rows.push([
            name,
            integer(totals.peak),
            integer(totals.input),
            totals.breaks,
            totals.masked,
            totals.superseded === undefined ? '' : integer(totals.superseded),
            ...ratios,
            integer(scoped.readBacks[name].readBacks),
            ...effectives(name),
          ]);
        }
      }
      log(formatTable(rows));
    }
  }

  log(
    '\nShare of the optimal savings, (none - strategy) / (none - optimum), toolmask / gemini-cli',
  );
  const rows = [
    ['scope', ...['cold', 'warm'].flatMap((mode) => DISCOUNTS.map((d) => `${mode} @${d}`))],
  ];
  for (const scope of scopes) {
    rows.push([
      scope,
      ...['cold', 'warm'].flatMap((mode) => {
        const scoped = scopeOf(results, mode, scope);
        return DISCOUNTS.map(
          (d) =>
            `${percent(shareOfOptimum(scoped, 'toolmask', d))} / ${percent(shareOfOptimum(scoped, 'gemini-cli', d))}`,
        );
      }),
    ]);
  }
  log(formatTable(rows));

  log(
    "\nOther warm trigger rules, simulated on the optimum's model (share of the optimal savings; bench/triggerRules.mjs)",
  );
  const ruleRows = [
    [
      'rule (cold / warm task starts)',
      ...scopes.flatMap((scope) => DISCOUNTS.map((d) => `${scope} @${d}`)),
    ],
  ];
  for (const name of ['toolmask', ...Object.keys(TRIGGER_RULES)]) {
    ruleRows.push([
      name === 'toolmask' ? 'toolmask (replayed)' : name,
      ...scopes.flatMap((scope) =>
        DISCOUNTS.map((d) =>
          ['cold', 'warm']
            .map((mode) => percent(shareOfOptimum(scopeOf(results, mode, scope), name, d)))
            .join(' / '),
        ),
      ),
    ]);
  }
  log(formatTable(ruleRows));

  printReadBacks(results, scopes, log);

  log(
    `\nTargets: toolmask >= ${TARGET_SHARE * 100}% of the optimal savings in every cell; with cold task starts effective billed (read-backs counted) <= ${TARGET_RATIO[0.1]}x / ${TARGET_RATIO[0.25]}x gemini-cli's at 0.1 / 0.25 (billed alone in brackets), peak and input tokens <= gemini-cli`,
  );
  for (const scope of scopes) {
    const scoped = scopeOf(results, 'cold', scope);
    const checks = DISCOUNTS.map((d) => {
      const ratio = effectiveIn(scoped, 'toolmask', d) / effectiveIn(scoped, 'gemini-cli', d);
      const billedRatio = billedIn(scoped, 'toolmask', d) / billedIn(scoped, 'gemini-cli', d);
      return `@${d}: ${ratio.toFixed(3)}x ${ratio <= TARGET_RATIO[d] ? 'met' : 'NOT met'} (${billedRatio.toFixed(3)}x)`;
    });
    const shares = ['cold', 'warm'].flatMap((mode) =>
      DISCOUNTS.map((d) => shareOfOptimum(scopeOf(results, mode, scope), 'toolmask', d)),
    );
    const sharesMet = shares.every((share) => share >= TARGET_SHARE) ? 'met' : 'NOT met';
    const peak = scoped.toolmask.peak <= scoped['gemini-cli'].peak ? 'met' : 'NOT met';
    const input = scoped.toolmask.input <= scoped['gemini-cli'].input ? 'met' : 'NOT met';
    log(`  ${scope}: ${checks.join(', ')}; peak ${peak}; input ${input}; shares ${sharesMet}`);
  }

  printProviderPricing(results, scopes, (mode, scope) => scopeOf(results, mode, scope), log);
}

/** What the read-backs of each strategy are made of, both folders, per mode. */
function printReadBacks(results, scopes, log) {
  log(
    '\nRead-backs (readBacks.mjs): hidden lines quoted later, those close to a line read back or seen elsewhere in the context, read-backs, their call + result tokens, billed tokens added',
  );
  const rows = [
    [
      'task starts, strategy',
      'hidden quoted',
      'close',
      'elsewhere',
      'read-backs',
      'tokens',
      ...DISCOUNTS.map((d) => `added @${d}`),
    ],
  ];
  const scope = scopes.at(-1);
  for (const mode of ['cold', 'warm']) {
    const scoped = scopeOf(results, mode, scope);
    for (const name of results.modes[mode].shown) {
      const readBacks = scoped.readBacks[name];
      rows.push([
        `${mode}, ${name}`,
        integer(readBacks.hidden),
        integer(readBacks.close),
        integer(readBacks.elsewhere),
        integer(readBacks.readBacks),
        integer(readBacks.tokens),
        ...DISCOUNTS.map((d) => integer(readBacks.extra[d] ?? 0)),
      ]);
    }
  }
  log(formatTable(rows));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const index = process.argv.indexOf('--traces');
  const tracesDir =
    index >= 0 ? process.argv[index + 1] : path.resolve(root, '..', 'shared', 'traces');
  console.log('## 3. Cost under prompt caching');
  await runCachingCostBench({ tracesDir, quick: process.argv.includes('--quick') });
}
