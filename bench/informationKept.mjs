/**
 * Information kept (section 3): for each output at the moment a strategy masked it, the lines
 * (line-number prefix stripped, trimmed, 12+ characters) that the recorded agent quotes later in
 * the same task, in its text or in call arguments, and the share of them still visible in the
 * snippet (replay/metrics/information-kept.ts). toolmask against gemini-cli, per folder, in three
 * settings:
 *
 * - task starts: the replays of cachingCost.mjs (cold task starts, 8 tasks chained);
 * - idle gaps inside tasks: the same sessions with warm task starts and one idle gap at a seeded
 *   request in the middle of every task (the person pauses and goes on with the same work), so
 *   outputs a smaller cold-moment window masks are still needed after it;
 * - early masking: every output masked on its own at the request after the one that sent it, so
 *   previews are compared on every output and every later use. Outputs a strategy would leave
 *   whole count apart; the share over all outputs (whole ones fully visible) and the bytes of what
 *   is sent for them compare strategies that mask different outputs.
 *
 * Also: effective billed at the idle gaps (billed plus read-backs of the hidden lines,
 * readBacks.mjs), and, under early masking, each kind of output's share of the lines quoted later
 * and how much of them each strategy's snippets show (outputKinds.mjs, issue 25), with toolmask's
 * previews before issue 25 beside them (`HEAD_AND_TAIL`: the same pass with the design knob
 * `previewFamily: 'head-and-tail'`, head and tail lines for every kind), and the goals of issue 25
 * checked: no more hidden lines, at least gemini-cli's visible share and no more snippet bytes per
 * masked output than gemini-cli, billed within the targets of section 3.1.
 *
 * First, how far back the agents reach (replay/metrics/reach-back.ts): the tokens of newer tool
 * output between an output and the last turn that quotes a line of it, what a window must span.
 */
import { KINDS, keptPerKind } from './outputKinds.mjs';
import { addReadBacks, readBacksOver } from './readBacks.mjs';
import { SCOPES, outOfViewOver, printOutOfView } from './outOfView.mjs';
import { printSearchReadBacks, searchReadBacksOver } from './searchReadBacks.mjs';
import {
  DISCOUNTS,
  billed,
  createScratch,
  formatTable,
  integer,
  keptOver,
  mergeTotals,
  percent,
  quoteIndexes,
  replayFolders,
  runTuning,
  withRepeatableRandom,
} from './replayStudy.mjs';

export const IDLE_GAP_SEED = 1;
/** toolmask with the previews before issue 25 (head and tail for every kind), under early masking. */
export const HEAD_AND_TAIL = 'toolmask, head and tail';
const REACH_WINDOWS = [20_000, 30_000, 40_000, 50_000];

/** toolmask's and gemini-cli's passes with nothing protected and no minimum: mask at once. */
function earlyStrategies(cli, core, scratchPath, tuning) {
  const config = core.resolveToolOutputMaskingConfig({
    toolProtectionThreshold: 0,
    minPrunableTokensThreshold: 0,
  });
  return {
    toolmask: cli.createToolmaskStrategy({
      config,
      projectTempDir: scratchPath,
      ...(runTuning(tuning) ? { tuning: runTuning(tuning) } : {}),
    }),
    [HEAD_AND_TAIL]: cli.createToolmaskStrategy({
      config,
      projectTempDir: scratchPath,
      name: HEAD_AND_TAIL,
      tuning: { ...tuning, previewFamily: 'head-and-tail' },
    }),
    'gemini-cli': cli.createGeminiCliStrategy({
      projectTempDir: scratchPath,
      config: { protectionThresholdTokens: 0, minPrunableThresholdTokens: 0 },
    }),
  };
}

/**
 * Information kept by early masking, per folder, for the strategies named. `onMoments(folder,
 * name, session, moments)`, when given, receives each session's moments.
 */
export async function earlyMaskingKept(cli, core, folders, quotesOf, names, tuning, onMoments) {
  const scratch = createScratch();
  try {
    const strategies = earlyStrategies(cli, core, scratch.path, tuning);
    const byFolder = {};
    for (const { folder, sessions } of folders) {
      byFolder[folder] = {};
      for (const name of names) {
        byFolder[folder][name] = await withRepeatableRandom(() =>
          keptOver(
            cli,
            sessions,
            async (session) => {
              const moments = await cli.earlyMaskingMoments(session, strategies[name]);
              onMoments?.(folder, name, session, moments);
              return moments;
            },
            quotesOf,
          ),
        );
      }
    }
    return byFolder;
  } finally {
    scratch.remove();
  }
}

/** Replays with warm task starts and one seeded idle gap inside every task. */
export async function inTaskReplays(cli, folders, specs) {
  const scratch = createScratch();
  try {
    return await replayFolders(cli, folders, specs, scratch.path, {
      warmTaskStarts: true,
      idleGapsFor: (sessions) => cli.seedIdleGaps(sessions, IDLE_GAP_SEED),
    });
  } finally {
    scratch.remove();
  }
}

export async function runInformationKeptBench({ cli, core, folders, costResults, print = true }) {
  const quotesOf = costResults.quotesOf ?? quoteIndexes(cli);
  const names = ['toolmask', 'gemini-cli'];
  const defaults = core.resolveToolOutputMaskingConfig();
  const inTask = await inTaskReplays(cli, folders, [
    {
      name: 'gemini-cli',
      observe: true,
      make: (scratchPath) => cli.createGeminiCliStrategy({ projectTempDir: scratchPath }),
    },
    {
      name: 'toolmask',
      observe: true,
      make: (scratchPath) =>
        cli.createToolmaskStrategy({
          config: defaults,
          projectTempDir: scratchPath,
          ...(runTuning() ? { tuning: runTuning() } : {}),
        }),
    },
  ]);
  const results = { settings: {}, inTask, reach: {} };
  for (const { folder, sessions } of folders) {
    results.reach[folder] = sessions
      .flatMap((session) => cli.reachBacks(session))
      .sort((a, b) => a - b);
  }
  for (const { folder, sessions } of folders) {
    const fromReplay = async (byFolder) =>
      Object.fromEntries(
        await Promise.all(
          names.map(async (name) => [
            name,
            await keptOver(
              cli,
              sessions,
              (session) => byFolder[folder][name].moments(session.id),
              quotesOf,
            ),
          ]),
        ),
      );
    results.settings[folder] = {
      'task starts': await fromReplay(costResults.modes.cold.byFolder),
      'idle gaps inside tasks': await fromReplay(inTask),
    };
  }
  // Lines out of view (issue 32), on the same replays.
  results.outOfView = {};
  results.outOfViewExamples = [];
  for (const { folder, sessions } of folders) {
    const over = async (byFolder) =>
      Object.fromEntries(
        await Promise.all(
          names.map(async (name) => [
            name,
            await outOfViewOver(
              cli,
              sessions,
              (session) => byFolder[folder][name].moments(session.id),
              quotesOf,
              name === 'toolmask' ? results.outOfViewExamples : [],
            ),
          ]),
        ),
      );
    results.outOfView[folder] = {
      'task starts': await over(costResults.modes.cold.byFolder),
      'idle gaps inside tasks': await over(inTask),
    };
  }
  // What those lines cost to read back, with and without search (issue 32), at task starts.
  results.searchReadBacks = {};
  results.searchTotals = {};
  for (const { folder, sessions } of folders) {
    results.searchReadBacks[folder] = {};
    results.searchTotals[folder] = {};
    for (const name of names) {
      const entry = costResults.modes.cold.byFolder[folder][name];
      results.searchTotals[folder][name] = entry.totals;
      results.searchReadBacks[folder][name] = {};
      for (const [scope, options] of Object.entries(SCOPES)) {
        results.searchReadBacks[folder][name][scope] = await searchReadBacksOver(
          cli,
          core,
          sessions,
          entry,
          quotesOf,
          { ...options, discounts: DISCOUNTS },
        );
      }
    }
  }
  // Effective billed at idle gaps: the read-backs of the lines the snippets hide there.
  results.inTaskCost = {};
  for (const { folder, sessions } of folders) {
    results.inTaskCost[folder] = Object.fromEntries(
      names.map((name) => [
        name,
        {
          totals: inTask[folder][name].totals,
          readBacks: readBacksOver(cli, core, sessions, inTask[folder][name], quotesOf, DISCOUNTS),
        },
      ]),
    );
  }
  const earlyMoments = new Map();
  const earlyNames = [...names, HEAD_AND_TAIL];
  const early = await earlyMaskingKept(
    cli,
    core,
    folders,
    quotesOf,
    earlyNames,
    undefined,
    (folder, name, session, moments) =>
      earlyMoments.set(`${folder}/${name}/${session.id}`, moments),
  );
  for (const { folder } of folders) results.settings[folder]['early masking'] = early[folder];
  // Per kind of output (issue 25): which kinds hold the lines quoted later, and how much of them
  // each strategy's snippets show, under early masking (every output masked on its own).
  results.kinds = {};
  for (const { folder, sessions } of folders) {
    results.kinds[folder] = {};
    for (const name of earlyNames) {
      results.kinds[folder][name] = await keptPerKind(
        cli,
        core,
        sessions,
        (session) => earlyMoments.get(`${folder}/${name}/${session.id}`),
        quotesOf,
      );
    }
  }
  results.quotesOf = quotesOf;
  results.early = early;
  results.costResults = costResults;
  if (print) {
    printResults(cli, results, console.log);
    printInTaskCost(results, console.log);
    printOutOfView(results, console.log);
    printSearchReadBacks(results, console.log);
    printKinds(results, console.log);
    printIssue25Goals(results, console.log);
  }
  return results;
}

function printInTaskCost(results, log) {
  log(
    '\nIdle gaps inside tasks: billed and effective billed (read-backs of hidden lines counted, readBacks.mjs)',
  );
  const rows = [
    [
      'folder',
      'strategy',
      'hidden quoted',
      'close',
      'elsewhere',
      'read-backs',
      ...DISCOUNTS.flatMap((d) => [`billed @${d}`, `effective @${d}`, 'vs gemini']),
    ],
  ];
  const scopes = { ...results.inTaskCost };
  const folders = Object.keys(results.inTaskCost);
  scopes['both folders'] = Object.fromEntries(
    Object.keys(results.inTaskCost[folders[0]]).map((name) => {
      const entries = folders.map((folder) => results.inTaskCost[folder][name]);
      return [
        name,
        {
          totals: entries.map((entry) => entry.totals).reduce(mergeTotals),
          readBacks: entries.map((entry) => entry.readBacks).reduce(addReadBacks),
        },
      ];
    }),
  );
  const effective = (entry, d) => billed(entry.totals, d) + (entry.readBacks.extra[d] ?? 0);
  for (const [scope, byName] of Object.entries(scopes)) {
    for (const [name, entry] of Object.entries(byName)) {
      rows.push([
        scope,
        name,
        integer(entry.readBacks.hidden),
        integer(entry.readBacks.close),
        integer(entry.readBacks.elsewhere),
        integer(entry.readBacks.readBacks),
        ...DISCOUNTS.flatMap((d) => [
          integer(billed(entry.totals, d)),
          integer(effective(entry, d)),
          `${(effective(entry, d) / effective(byName['gemini-cli'], d)).toFixed(3)}x`,
        ]),
      ]);
    }
  }
  log(formatTable(rows));
}

/** Sums over `folders` and `kinds` of one strategy's per-kind figures. */
function kindTotals(results, folders, name, kinds) {
  const total = { outputs: 0, linesAll: 0, masked: 0, quoted: 0, visible: 0, bytes: 0 };
  const readBacks = { hidden: 0, close: 0, elsewhere: 0, readBacks: 0, tokens: 0 };
  for (const folder of folders) {
    for (const kind of kinds) {
      const { kept, readBacks: counts } = results.kinds[folder][name][kind];
      total.outputs += kept.outputsMasked + kept.outputsWhole;
      total.linesAll += kept.linesQuotedLater + kept.linesQuotedLaterWhole;
      total.masked += kept.outputsMasked;
      total.quoted += kept.linesQuotedLater;
      total.visible += kept.linesVisible;
      total.bytes += kept.snippetBytes;
      for (const key of Object.keys(readBacks)) readBacks[key] += counts[key];
    }
  }
  return { ...total, ...readBacks };
}

const shareOf = (total) => (total.quoted === 0 ? undefined : total.visible / total.quoted);
const bytesPerMasked = (total) => (total.masked === 0 ? 0 : total.bytes / total.masked);

function printKinds(results, log) {
  log(
    `\nKinds of output under early masking (outputKinds.mjs): outputs, lines quoted later in the task, and how much of them the snippets show, toolmask / gemini-cli; "before": toolmask with head and tail previews for every kind (${HEAD_AND_TAIL})`,
  );
  const rows = [
    [
      'folder, kind',
      'outputs',
      'lines quoted later',
      'share of lines',
      'masked',
      'quoted later, masked',
      'visible',
      'share visible',
      'before',
      'bytes per masked',
      'before',
      'read-backs',
      'before',
    ],
  ];
  const folders = Object.keys(results.kinds);
  for (const scope of [...folders, 'both folders']) {
    const scoped = scope === 'both folders' ? folders : [scope];
    const allLines = kindTotals(results, scoped, 'toolmask', KINDS).linesAll;
    for (const kind of [...KINDS, 'all kinds']) {
      const kinds = kind === 'all kinds' ? KINDS : [kind];
      const ours = kindTotals(results, scoped, 'toolmask', kinds);
      const before = kindTotals(results, scoped, HEAD_AND_TAIL, kinds);
      const gemini = kindTotals(results, scoped, 'gemini-cli', kinds);
      const pair = (pick) => `${integer(pick(ours))} / ${integer(pick(gemini))}`;
      rows.push([
        `${scope}, ${kind}`,
        integer(ours.outputs),
        integer(ours.linesAll),
        percent(allLines === 0 ? undefined : ours.linesAll / allLines),
        pair((total) => total.masked),
        pair((total) => total.quoted),
        pair((total) => total.visible),
        `${percent(shareOf(ours))} / ${percent(shareOf(gemini))}`,
        percent(shareOf(before)),
        `${integer(bytesPerMasked(ours))} / ${integer(bytesPerMasked(gemini))}`,
        integer(bytesPerMasked(before)),
        pair((total) => total.readBacks),
        integer(before.readBacks),
      ]);
    }
  }
  log(formatTable(rows));
  for (const name of ['toolmask', HEAD_AND_TAIL, 'gemini-cli']) {
    const total = kindTotals(results, folders, name, KINDS);
    log(
      `  ${name}, both folders: ${integer(total.hidden)} hidden lines quoted later; ${integer(total.close)} close to a line read back, ${integer(total.elsewhere)} seen elsewhere in the context; ${integer(total.readBacks)} read-backs of ${integer(total.tokens)} tokens (call + result)`,
    );
  }
}

/**
 * The goals of issue 25, both folders: under early masking toolmask hides no more lines quoted
 * later than gemini-cli, shows at least its share of them and spends no more snippet bytes per
 * masked output; with cold task starts its effective billed stays within section 3.1's targets.
 */
function printIssue25Goals(results, log) {
  const folders = Object.keys(results.kinds);
  const [ours, before, gemini] = ['toolmask', HEAD_AND_TAIL, 'gemini-cli'].map((name) =>
    kindTotals(results, folders, name, KINDS),
  );
  const met = (ok) => (ok ? 'met' : 'NOT met');
  log(
    '\nGoals of issue 25 (both folders; early masking, and cold task starts for billed): toolmask / gemini-cli (before: head and tail previews)',
  );
  log(
    `  hidden lines quoted later: ${integer(ours.hidden)} / ${integer(gemini.hidden)} (before ${integer(before.hidden)}): ${met(ours.hidden <= gemini.hidden)}`,
  );
  log(
    `  share of the lines quoted later still visible: ${percent(shareOf(ours))} / ${percent(shareOf(gemini))} (before ${percent(shareOf(before))}): ${met(shareOf(ours) >= shareOf(gemini))}`,
  );
  log(
    `  snippet bytes per masked output: ${integer(bytesPerMasked(ours))} / ${integer(bytesPerMasked(gemini))} (before ${integer(bytesPerMasked(before))}): ${met(bytesPerMasked(ours) <= bytesPerMasked(gemini))}`,
  );
  const cold = results.costResults?.modes?.cold;
  if (!cold) return;
  const scope = (name) => {
    const entries = Object.values(cold.byFolder).map((byName) => byName[name]);
    const totals = entries.map((entry) => entry.totals).reduce(mergeTotals);
    const readBacks = entries.map((entry) => entry.readBacks).reduce(addReadBacks);
    return (d) => billed(totals, d) + (readBacks.extra[d] ?? 0);
  };
  const toolmask = scope('toolmask');
  const geminiCli = scope('gemini-cli');
  const targets = { 0.1: 0.85, 0.25: 0.87 };
  log(
    `  effective billed vs gemini-cli: ${DISCOUNTS.map((d) => {
      const ratio = toolmask(d) / geminiCli(d);
      return `@${d} ${ratio.toFixed(3)}x (target ${targets[d]}x) ${met(ratio <= targets[d])}`;
    }).join(', ')}`,
  );
}

function printResults(cli, results, log) {
  log(
    '\nHow far back the agents reach: tokens of newer tool output between an output and the last quote of one of its lines (same task)',
  );
  const reachRows = [
    ['folder', 'lines', 'p50', 'p90', 'p99', 'max', ...REACH_WINDOWS.map((w) => `> ${integer(w)}`)],
  ];
  for (const [folder, reaches] of Object.entries(results.reach)) {
    reachRows.push([
      folder,
      integer(reaches.length),
      ...[0.5, 0.9, 0.99].map((q) => integer(cli.quantile(reaches, q))),
      integer(reaches.at(-1) ?? 0),
      ...REACH_WINDOWS.map((w) => percent(reaches.filter((r) => r > w).length / reaches.length)),
    ]);
  }
  log(formatTable(reachRows));

  log(
    '\nInformation kept: lines of a masked output quoted later in its task, and how many its snippet shows',
  );
  const rows = [
    [
      'folder, setting',
      'strategy',
      'masked',
      'quoted later',
      'lines',
      'visible',
      'share',
      'snippet bytes',
      'all outputs: share',
      'bytes sent',
    ],
  ];
  for (const [folder, settings] of Object.entries(results.settings)) {
    for (const [setting, byName] of Object.entries(settings)) {
      for (const [name, kept] of Object.entries(byName)) {
        const early = setting === 'early masking';
        rows.push([
          `${folder}, ${setting}`,
          name,
          integer(kept.outputsMasked),
          integer(kept.outputsQuotedLater),
          integer(kept.linesQuotedLater),
          integer(kept.linesVisible),
          percent(cli.keptShare(kept)),
          integer(kept.snippetBytes),
          early ? percent(cli.keptShareOfAll(kept)) : '',
          early ? integer(kept.snippetBytes + kept.wholeBytes) : '',
        ]);
      }
    }
  }
  log(formatTable(rows));
  log('\nTarget: toolmask share >= gemini-cli share in every folder, with no more bytes in total');
  for (const [folder, settings] of Object.entries(results.settings)) {
    const checks = Object.entries(settings).map(([setting, { toolmask, 'gemini-cli': gemini }]) => {
      const early = setting === 'early masking';
      const share = (kept) => (early ? cli.keptShareOfAll(kept) : cli.keptShare(kept));
      const bytes = (kept) => kept.snippetBytes + (early ? kept.wholeBytes : 0);
      const ours = share(toolmask);
      const theirs = share(gemini);
      // No line quoted later: nothing lost. gemini-cli lost nothing: toolmask must lose nothing.
      const shareMet = ours === undefined || (theirs === undefined ? ours === 1 : ours >= theirs);
      const verdict =
        ours === undefined && theirs === undefined
          ? 'no line quoted later (met)'
          : `${shareMet ? 'share met' : 'share NOT met'}, bytes ${bytes(toolmask) <= bytes(gemini) ? 'met' : 'NOT met'}`;
      return `${setting}: ${verdict}`;
    });
    log(`  ${folder}: ${checks.join('; ')}`);
  }
  log(
    '  (toolmask masks superseded outputs first (issue 25): a line hidden in such a snippet is shown by the newer output that superseded it;\n' +
      '   the read-backs table of the cost section counts those as "elsewhere", needing no read-back. The "- superseded first" ablation there is the policy without it.)',
  );
}
