/**
 * `toolmask replay [PATH ...]`: loads the sessions, replays them through the chosen strategies and
 * prints the comparison (text, `--json`, `--report FILE.html`). Offloaded outputs go to a temporary
 * folder removed afterwards, unless `--keep DIR`. Paths given (`--report`, `--keep`) are checked
 * before the run; the summary is printed before the report is written, so a report that cannot
 * be written never costs the summary. Returns the exit code.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { BUILTIN_EXAMPLE_PATH } from '../../input/builtin-example.js';
import { chainTasks } from '../../input/chain-tasks.js';
import { loadInputs, type LoadedInputs } from '../../input/load-inputs.js';
import type { LoadedTask } from '../../input/load-task-file.js';
import { replaySessions } from '../../replay/engine.js';
import { CACHE_ECONOMICS } from '@toolmask/core';
import { CACHE_PRICING, type PricingName } from '../../replay/pricing.js';
import { countRequests } from '../../replay/request-points.js';
import { createNoneStrategy } from '../../replay/strategies/none.js';
import {
  createGeminiCliStrategy,
  resolveGeminiCliMaskingConfig,
} from '../../replay/strategies/gemini-cli.js';
import { shownProjectTempDir } from '../../replay/strategies/shown-output-folder.js';
import { createToolmaskStrategy } from '../../replay/strategies/toolmask.js';
import type { ReplayStrategy } from '../../replay/types.js';
import { colorEnabled, createPalette } from '../../render/color.js';
import { renderHtmlReport } from '../../render/html-report.js';
import { createProgressBar } from '../../render/progress-bar.js';
import { buildReplayReport, type ReplayReport } from '../../render/replay-report.js';
import { cliDocumentationPath, displayPath } from '../../docs-location.js';
import { announceInputs } from './announce-inputs.js';
import { choosePricing, filterSince } from './replay-filters.js';
import { checkKeepFolder, prepareOutputRoot } from './output-root.js';
import { renderReplayText } from './render-replay-text.js';
import { reportPathProblem } from './report-path.js';
import {
  resolveSettings,
  selectStrategies,
  type ReplayCommandOptions,
  type ResolvedSettings,
  type StrategyName,
} from './replay-options.js';

async function buildStrategies(
  names: readonly StrategyName[],
  settings: ResolvedSettings,
  outputRoot: string,
  pricing: PricingName,
): Promise<{ strategies: ReplayStrategy[]; report: ReplayReport['settings'] }> {
  const report: ReplayReport['settings'] = {};
  const strategies: ReplayStrategy[] = [];
  for (const name of names) {
    const projectTempDir = path.join(outputRoot, name);
    if (name === 'none') strategies.push(createNoneStrategy());
    if (name === 'toolmask') {
      report.toolmask = settings.toolmask;
      // The trigger weighs the provider's cache as the gateway's front for it would.
      strategies.push(
        createToolmaskStrategy({
          config: settings.toolmask,
          projectTempDir,
          cacheEconomics: CACHE_ECONOMICS[pricing],
        }),
      );
    }
    if (name === 'gemini-cli') {
      report.geminiCli = await resolveGeminiCliMaskingConfig(settings.geminiCli);
      strategies.push(createGeminiCliStrategy({ projectTempDir, config: report.geminiCli }));
    }
  }
  return { strategies, report };
}

/** What `--since` kept and left out, one line for stderr. */
function sinceLine(since: string, kept: number, older: number, untimed: number): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  const untimedNote =
    untimed > 0 ? `, ${plural(untimed, 'session')} without a recorded time left out` : '';
  return `toolmask: --since ${since}: ${plural(kept, 'session')} kept, ${older} older left out${untimedNote}\n`;
}

/** What the `--verbose` notices' folder is, and where the files really are (or were). */
function noticeFolderNote(keep: string | undefined): string {
  const shown = `Notices name ${shownProjectTempDir('<strategy>')}, the replay's fixed stand-in for a project temp dir (so figures do not depend on the folder)`;
  return keep
    ? `${shown}; the files are in ${path.join(path.resolve(keep), '<strategy>')}.`
    : `${shown}; the files were in a temporary folder, deleted at exit: add --keep DIR to keep them.`;
}

/** The tasks to replay (the inputs loaded, `--since` applied), or the exit code to stop with. */
async function tasksToReplay(
  inputPaths: readonly string[],
  options: ReplayCommandOptions,
  io: CliIo,
): Promise<{ inputs: LoadedInputs; tasks: LoadedTask[] } | number> {
  const cutoff = options.since?.cutoff((io.now ?? Date.now)());
  const inputs = await loadInputs(inputPaths, {
    recursive: options.recursive !== false,
    ...(cutoff !== undefined ? { modifiedSince: cutoff } : {}),
  });
  announceInputs(inputs, io.stderr);
  let tasks = inputs.tasks;
  if (options.since && cutoff !== undefined && (tasks.length > 0 || inputs.older > 0)) {
    const { kept, older, untimed } = filterSince(tasks, cutoff);
    io.stderr.write(sinceLine(options.since.text, kept.length, older + inputs.older, untimed));
    // Nothing in the window is an answer, not bad input: say so and stop.
    if (kept.length === 0) return inputs.rejected.length > 0 ? EXIT_USAGE : EXIT_OK;
    tasks = kept;
  }
  // Each bad input already has its line; with nothing left there is nothing more to say.
  return tasks.length === 0 ? EXIT_USAGE : { inputs, tasks };
}

/** `tasks` replayed through the strategies `names` (with a progress bar), as the report. */
async function replayToReport(
  loaded: { inputs: LoadedInputs; tasks: LoadedTask[] },
  names: readonly StrategyName[],
  settings: ResolvedSettings,
  options: ReplayCommandOptions,
  io: CliIo,
  paths: { inputPaths: readonly string[]; builtinExample: boolean },
): Promise<ReplayReport> {
  const { inputs, tasks } = loaded;
  const { pricing, mixed } = choosePricing(options.pricing, tasks);
  if (mixed?.includes('anthropic')) {
    io.stderr.write(
      `toolmask: warning: the inputs ran against several providers (${mixed.join(', ')}); priced with ${pricing}'s cache rules (choose with --pricing)\n`,
    );
  }
  const sessions = chainTasks(tasks, options.concat);
  const outputRoot = await prepareOutputRoot(options.keep);
  try {
    const built = await buildStrategies(names, settings, outputRoot.path, pricing);
    const total = sessions.reduce((sum, session) => sum + countRequests(session), 0);
    const progress = createProgressBar(io.stderr, total * built.strategies.length);
    let result;
    try {
      result = await replaySessions(sessions, built.strategies, {
        cacheDiscount: options.cacheDiscount,
        cacheWritePrice: CACHE_PRICING[pricing].cacheWritePrice,
        warmTaskStarts: options.warmTaskStarts === true,
        onProgress: (done, all) => progress.update(done, all),
      });
    } finally {
      progress.finish();
    }
    return buildReplayReport(result, {
      paths: [...paths.inputPaths],
      builtinExample: paths.builtinExample,
      concat: options.concat,
      rejected: inputs.rejected.map(({ file, reason }) => ({ file, reason })),
      skipped: inputs.skipped,
      taskLabels: new Map(
        sessions.map((session) => [session.id, session.tasks.map((task) => task.label)]),
      ),
      settings: built.report,
      provider: pricing,
    });
  } finally {
    await outputRoot.release();
  }
}

/** The report on stdout: JSON, or the text with where `--keep` left the outputs. */
function printReport(
  report: ReplayReport,
  names: readonly StrategyName[],
  options: ReplayCommandOptions,
  io: CliIo,
): void {
  if (options.json) {
    io.stdout.write(JSON.stringify(report, null, 2) + '\n');
    return;
  }
  const palette = createPalette(colorEnabled(io.stdout, io.env));
  io.stdout.write(
    renderReplayText(report, {
      palette,
      chart: options.chart !== false,
      verbose: options.verbose === true,
      noticeFolderNote: noticeFolderNote(options.keep),
      documentation: displayPath(cliDocumentationPath(), io.cwd),
      ...(io.stdout.columns ? { columns: io.stdout.columns } : {}),
    }),
  );
  if (options.keep) {
    const masking = names.find((name) => name !== 'none');
    io.stdout.write(
      `Offloaded outputs kept in ${path.resolve(options.keep)} (one folder per strategy)` +
        (masking
          ? `; list them with: toolmask outputs ls --project ${path.join(options.keep, masking)}\n`
          : '\n'),
    );
  }
}

/** `--report FILE.html`, after the summary; whether it was written (a line says why not). */
async function writeHtmlReport(
  report: ReplayReport,
  options: ReplayCommandOptions,
  io: CliIo,
): Promise<boolean> {
  if (!options.report) return true;
  try {
    await fs.writeFile(options.report, renderHtmlReport(report), 'utf8');
  } catch (error) {
    io.stderr.write(
      `toolmask: cannot write the report ${options.report}: ${(error as Error).message}\n`,
    );
    return false;
  }
  if (!options.json) io.stdout.write(`Report written to ${options.report}\n`);
  return true;
}

export async function runReplay(
  paths: readonly string[],
  options: ReplayCommandOptions,
  io: CliIo,
): Promise<number> {
  const names = selectStrategies(options);
  const settings = await resolveSettings(options);
  for (const warning of settings.warnings) io.stderr.write(`toolmask: warning: ${warning}\n`);
  const builtinExample = paths.length === 0;
  const inputPaths = builtinExample ? [BUILTIN_EXAMPLE_PATH] : [...paths];

  if (options.report) {
    const problem = await reportPathProblem(options.report);
    if (problem) throw usageError(`cannot write the report ${options.report}: ${problem}`);
  }
  if (options.keep) await checkKeepFolder(options.keep, options.force === true);

  const loaded = await tasksToReplay(inputPaths, options, io);
  if (typeof loaded === 'number') return loaded;
  const report = await replayToReport(loaded, names, settings, options, io, {
    inputPaths,
    builtinExample,
  });
  printReport(report, names, options, io);
  if (!(await writeHtmlReport(report, options, io))) return EXIT_FAILURE;
  const { rejected } = loaded.inputs;
  if (rejected.length > 0) {
    io.stderr.write(
      `toolmask: ${rejected.length} input${rejected.length === 1 ? '' : 's'} not replayed (listed above)\n`,
    );
    return EXIT_USAGE;
  }
  return EXIT_OK;
}
