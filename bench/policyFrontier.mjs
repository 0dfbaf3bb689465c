/**
 * The policy's shape (section 3): billed input against information kept over a grid of preview
 * line budgets (`lineBudgetChars`) and cold-moment windows (`coldCacheProtectionThreshold`), for
 * both folders, so the defaults can be read off the frontier.
 *
 * Per grid point: billed input against gemini-cli with cold task starts (8 independent tasks
 * chained, where the previous task's outputs are never needed again, which flatters a small
 * window), and with idle gaps inside tasks (warm task starts, one seeded gap in the middle of every
 * task: the person goes on with the same work), with the lines of masked outputs quoted later in
 * the task that the snippets no longer show ("lost"). Per budget: information kept by early
 * masking (every output masked at once; the window plays no part there). A line budget sets the
 * budget of the previews by kind in proportion (`kindBudgetChars`, 600 of 700 by default).
 *
 * Then the frontier of the previews by kind alone (issue 25): their budget (`kindBudgetChars`)
 * over `KIND_BUDGETS` at the default settings otherwise, with billed input against gemini-cli at
 * cold task starts and, under early masking over both folders, the share of the lines quoted
 * later still visible, the lines hidden and the snippet bytes per masked output, so the chosen
 * point can be read off it.
 */
import { PREVIEW_LIMITS } from '@toolmask/core/tuning';
import { earlyMaskingKept, inTaskReplays } from './informationKept.mjs';
import {
  DISCOUNTS,
  billed,
  createScratch,
  formatTable,
  integer,
  keptOver,
  mergeTotals,
  percent,
  replayFolders,
  runTuning,
} from './replayStudy.mjs';

export const BUDGETS = [0, 350, 700, 1_050];
export const KIND_BUDGETS = [500, 600, 700, 800];
const QUICK_KIND_BUDGETS = [600];
export const COLD_WINDOWS = [50_000, 40_000, 30_000, 20_000, 10_000];
const QUICK_BUDGETS = [0, 700];
const QUICK_COLD_WINDOWS = [50_000, 30_000];

const pointName = (budget, window) => `budget ${budget}, cold window ${window}`;
const kindPointName = (kindBudget) => `kind budget ${kindBudget}`;

/** The previews' limits at line budget `budget`: the kinds' budget in the default proportion. */
function limitsAt(budget) {
  const { lineBudgetChars, kindBudgetChars } = PREVIEW_LIMITS;
  return {
    lineBudgetChars: budget,
    kindBudgetChars: Math.round((budget * kindBudgetChars) / lineBudgetChars),
  };
}

function gridSpecs(cli, core, budgets, windows) {
  const specs = [
    {
      name: 'gemini-cli',
      observe: false,
      make: (scratchPath) => cli.createGeminiCliStrategy({ projectTempDir: scratchPath }),
    },
  ];
  for (const budget of budgets) {
    for (const window of windows) {
      const config = core.resolveToolOutputMaskingConfig({ coldCacheProtectionThreshold: window });
      specs.push({
        name: pointName(budget, window),
        observe: true,
        make: (scratchPath) =>
          cli.createToolmaskStrategy({
            config,
            projectTempDir: scratchPath,
            name: pointName(budget, window),
            tuning: runTuning({ previewLimits: limitsAt(budget) }),
          }),
      });
    }
  }
  return specs;
}

function kindSpecs(cli, core, kindBudgets) {
  const config = core.resolveToolOutputMaskingConfig();
  return [
    {
      name: 'gemini-cli',
      observe: false,
      make: (scratchPath) => cli.createGeminiCliStrategy({ projectTempDir: scratchPath }),
    },
    ...kindBudgets.map((kindBudget) => ({
      name: kindPointName(kindBudget),
      observe: false,
      make: (scratchPath) =>
        cli.createToolmaskStrategy({
          config,
          projectTempDir: scratchPath,
          name: kindPointName(kindBudget),
          tuning: runTuning({ previewLimits: { kindBudgetChars: kindBudget } }),
        }),
    })),
  ];
}

const combined = (byFolder, name) =>
  Object.values(byFolder)
    .map((strategies) => strategies[name].totals)
    .reduce(mergeTotals);

export async function runPolicyFrontierBench({
  cli,
  core,
  folders,
  quotesOf,
  earlyReference,
  quick = false,
  print = true,
}) {
  const budgets = quick ? QUICK_BUDGETS : BUDGETS;
  const windows = quick ? QUICK_COLD_WINDOWS : COLD_WINDOWS;
  const specs = gridSpecs(cli, core, budgets, windows);
  const scratch = createScratch();
  let taskStarts;
  try {
    taskStarts = await replayFolders(cli, folders, specs, scratch.path);
  } finally {
    scratch.remove();
  }
  const inTask = await inTaskReplays(cli, folders, specs);

  const points = [];
  for (const budget of budgets) {
    for (const window of windows) {
      const name = pointName(budget, window);
      let lost = 0;
      let quoted = 0;
      for (const { folder, sessions } of folders) {
        const kept = await keptOver(
          cli,
          sessions,
          (session) => inTask[folder][name].moments(session.id),
          quotesOf,
        );
        lost += kept.linesQuotedLater - kept.linesVisible;
        quoted += kept.linesQuotedLater;
      }
      const ratios = (byFolder) =>
        Object.fromEntries(
          DISCOUNTS.map((d) => [
            d,
            billed(combined(byFolder, name), d) / billed(combined(byFolder, 'gemini-cli'), d),
          ]),
        );
      points.push({
        budget,
        window,
        taskStarts: ratios(taskStarts),
        inTask: ratios(inTask),
        lost,
        quoted,
        peak: combined(taskStarts, name).peak,
        input: combined(taskStarts, name).input,
      });
    }
  }
  const reference = combined(taskStarts, 'gemini-cli');

  const early = {};
  for (const budget of budgets) {
    early[budget] = await earlyMaskingKept(cli, core, folders, quotesOf, ['toolmask'], {
      previewLimits: limitsAt(budget),
    });
  }
  const kinds = await kindFrontier(cli, core, folders, quotesOf, quick);
  const results = { budgets, windows, points, reference, early, earlyReference, kinds };
  if (print) printResults(cli, folders, results, console.log);
  return results;
}

/** The previews by kind over their budget (see the module comment). */
async function kindFrontier(cli, core, folders, quotesOf, quick) {
  const kindBudgets = quick ? QUICK_KIND_BUDGETS : KIND_BUDGETS;
  const scratch = createScratch();
  let replays;
  try {
    replays = await replayFolders(cli, folders, kindSpecs(cli, core, kindBudgets), scratch.path);
  } finally {
    scratch.remove();
  }
  const points = [];
  for (const kindBudget of kindBudgets) {
    const byFolder = await earlyMaskingKept(cli, core, folders, quotesOf, ['toolmask'], {
      previewLimits: { kindBudgetChars: kindBudget },
    });
    const kept = Object.values(byFolder)
      .map((names) => names.toolmask)
      .reduce(cli.addInformationKept);
    const name = kindPointName(kindBudget);
    points.push({
      kindBudget,
      billed: Object.fromEntries(
        DISCOUNTS.map((d) => [
          d,
          billed(combined(replays, name), d) / billed(combined(replays, 'gemini-cli'), d),
        ]),
      ),
      kept,
    });
  }
  return points;
}

function printResults(cli, folders, results, log) {
  log(
    '\nThe policy frontier, both folders: billed vs gemini-cli (task starts cold; idle gaps inside tasks), lines quoted later that snippets hide',
  );
  const rows = [
    [
      'line budget, cold window',
      ...DISCOUNTS.map((d) => `task starts @${d}`),
      ...DISCOUNTS.map((d) => `idle gaps @${d}`),
      'lines lost at idle gaps',
      'peak <= gemini',
      'input <= gemini',
    ],
  ];
  for (const point of results.points) {
    rows.push([
      `${integer(point.budget)}, ${integer(point.window)}`,
      ...DISCOUNTS.map((d) => `${point.taskStarts[d].toFixed(3)}x`),
      ...DISCOUNTS.map((d) => `${point.inTask[d].toFixed(3)}x`),
      `${integer(point.lost)} of ${integer(point.quoted)}`,
      point.peak <= results.reference.peak ? 'yes' : 'no',
      point.input <= results.reference.input ? 'yes' : 'no',
    ]);
  }
  log(formatTable(rows));

  log(
    '\nPreviews by line budget, early masking (every output masked at once): share of lines quoted later still visible, masked outputs / all outputs, and bytes',
  );
  const earlyRows = [['line budget', ...folders.map(({ folder }) => folder)]];
  const cell = (kept) =>
    `${percent(cli.keptShare(kept))} / ${percent(cli.keptShareOfAll(kept))}, ${integer(kept.snippetBytes)} / ${integer(kept.snippetBytes + kept.wholeBytes)} B`;
  for (const budget of results.budgets) {
    earlyRows.push([
      integer(budget),
      ...folders.map(({ folder }) => cell(results.early[budget][folder].toolmask)),
    ]);
  }
  if (results.earlyReference) {
    earlyRows.push([
      'gemini-cli',
      ...folders.map(({ folder }) => cell(results.earlyReference[folder]['gemini-cli'])),
    ]);
  }
  log(formatTable(earlyRows));

  if (!results.kinds) return;
  log(
    '\nPreviews by kind over their budget (kindBudgetChars; line budget 700, cold window 30,000): billed vs gemini-cli with cold task starts; early masking, both folders: share of the lines quoted later still visible in masked outputs, lines hidden, snippet bytes per masked output',
  );
  const kindRows = [
    [
      'kind budget',
      ...DISCOUNTS.map((d) => `billed @${d}`),
      'share visible',
      'hidden',
      'bytes per masked',
    ],
  ];
  for (const point of results.kinds) {
    const { kept } = point;
    kindRows.push([
      integer(point.kindBudget),
      ...DISCOUNTS.map((d) => `${point.billed[d].toFixed(3)}x`),
      percent(cli.keptShare(kept)),
      integer(kept.linesQuotedLater - kept.linesVisible),
      integer(kept.snippetBytes / kept.outputsMasked),
    ]);
  }
  if (results.earlyReference) {
    const gemini = Object.values(results.earlyReference)
      .map((names) => names['gemini-cli'])
      .reduce(cli.addInformationKept);
    kindRows.push([
      'gemini-cli',
      ...DISCOUNTS.map(() => '1.000x'),
      percent(cli.keptShare(gemini)),
      integer(gemini.linesQuotedLater - gemini.linesVisible),
      integer(gemini.snippetBytes / gemini.outputsMasked),
    ]);
  }
  log(formatTable(kindRows));
}
