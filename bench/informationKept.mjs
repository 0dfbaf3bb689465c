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
 * and how much of them each strategy's snippets show (outputKinds.mjs, issue 25).
 *
 * First, how far back the agents reach (replay/metrics/reach-back.ts): the tokens of newer tool
 * output between an output and the last turn that quotes a line of it, what a window must span.
 */
import { KINDS, keptPerKind } from './outputKinds.mjs';
import { addReadBacks, readBacksOver } from './readBacks.mjs';
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
  const early = await earlyMaskingKept(
    cli,
    core,
    folders,
    quotesOf,
    names,
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
    for (const name of names) {
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
  if (print) {
    printResults(cli, results, console.log);
    printInTaskCost(results, console.log);
    printKinds(results, console.log);
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

function printKinds(results, log) {
  log(
    '\nKinds of output under early masking (outputKinds.mjs): outputs, lines quoted later in the task, and how much of them the snippets show, toolmask / gemini-cli',
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
      'read-backs',
    ],
  ];
  const folders = Object.keys(results.kinds);
  for (const scope of [...folders, 'both folders']) {
    const scoped = scope === 'both folders' ? folders : [scope];
    const of = (name, kind, pick) =>
      scoped.reduce((total, folder) => total + pick(results.kinds[folder][name][kind]), 0);
    const all = (kind) =>
      of(
        'toolmask',
        kind,
        (entry) => entry.kept.linesQuotedLater + entry.kept.linesQuotedLaterWhole,
      );
    const allLines = KINDS.reduce((total, kind) => total + all(kind), 0);
    for (const kind of [...KINDS, 'all kinds']) {
      const kinds = kind === 'all kinds' ? KINDS : [kind];
      const total = (name, pick) => kinds.reduce((t, k) => t + of(name, k, pick), 0);
      const pair = (pick, format = integer) =>
        `${format(total('toolmask', pick))} / ${format(total('gemini-cli', pick))}`;
      const share = (name) => {
        const quoted = total(name, (entry) => entry.kept.linesQuotedLater);
        return quoted === 0 ? undefined : total(name, (entry) => entry.kept.linesVisible) / quoted;
      };
      const lines = kinds.reduce((t, k) => t + all(k), 0);
      rows.push([
        `${scope}, ${kind}`,
        integer(total('toolmask', (entry) => entry.kept.outputsMasked + entry.kept.outputsWhole)),
        integer(lines),
        percent(allLines === 0 ? undefined : lines / allLines),
        pair((entry) => entry.kept.outputsMasked),
        pair((entry) => entry.kept.linesQuotedLater),
        pair((entry) => entry.kept.linesVisible),
        `${percent(share('toolmask'))} / ${percent(share('gemini-cli'))}`,
        pair((entry) => entry.readBacks.readBacks),
      ]);
    }
  }
  log(formatTable(rows));
  for (const name of ['toolmask', 'gemini-cli']) {
    const total = (key) =>
      folders.reduce(
        (sum, folder) =>
          sum + KINDS.reduce((t, kind) => t + results.kinds[folder][name][kind].readBacks[key], 0),
        0,
      );
    log(
      `  ${name}, both folders: ${integer(total('hidden'))} hidden lines quoted later; ${integer(total('close'))} close to a line read back, ${integer(total('elsewhere'))} seen elsewhere in the context; ${integer(total('readBacks'))} read-backs of ${integer(total('tokens'))} tokens (call + result)`,
    );
  }
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
}
