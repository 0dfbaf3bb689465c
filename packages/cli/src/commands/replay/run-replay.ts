/**
 * `toolmask replay [PATH ...]`: loads the sessions, replays them through the chosen strategies and
 * prints the comparison (text, `--json`, `--report FILE.html`). Offloaded outputs go to a temporary
 * folder removed afterwards, unless `--keep DIR`. Returns the exit code.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EXIT_OK, EXIT_USAGE, failure } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';
import { BUILTIN_EXAMPLE_PATH } from '../../input/builtin-example.js';
import { chainTasks } from '../../input/chain-tasks.js';
import { loadInputs } from '../../input/load-inputs.js';
import { replaySessions } from '../../replay/engine.js';
import { countRequests } from '../../replay/request-points.js';
import { createNoneStrategy } from '../../replay/strategies/none.js';
import {
  createGeminiCliStrategy,
  resolveGeminiCliMaskingConfig,
} from '../../replay/strategies/gemini-cli.js';
import { createToolmaskStrategy } from '../../replay/strategies/toolmask.js';
import type { ReplayStrategy } from '../../replay/types.js';
import { colorEnabled, createPalette } from '../../render/color.js';
import { renderHtmlReport } from '../../render/html-report.js';
import { createProgressBar } from '../../render/progress-bar.js';
import { buildReplayReport, type ReplayReport } from '../../render/replay-report.js';
import { renderReplayText } from './render-replay-text.js';
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
): Promise<{ strategies: ReplayStrategy[]; report: ReplayReport['settings'] }> {
  const report: ReplayReport['settings'] = {};
  const strategies: ReplayStrategy[] = [];
  for (const name of names) {
    const projectTempDir = path.join(outputRoot, name);
    if (name === 'none') strategies.push(createNoneStrategy());
    if (name === 'toolmask') {
      report.toolmask = settings.toolmask;
      strategies.push(createToolmaskStrategy({ config: settings.toolmask, projectTempDir }));
    }
    if (name === 'gemini-cli') {
      report.geminiCli = await resolveGeminiCliMaskingConfig(settings.geminiCli);
      strategies.push(createGeminiCliStrategy({ projectTempDir, config: report.geminiCli }));
    }
  }
  return { strategies, report };
}

async function prepareOutputRoot(keep: string | undefined): Promise<string> {
  if (!keep) return fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-replay-'));
  const root = path.resolve(keep);
  try {
    await fs.mkdir(root, { recursive: true });
  } catch (error) {
    throw failure(`cannot create --keep folder ${root}: ${(error as Error).message}`);
  }
  return root;
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

  const { tasks, rejected } = await loadInputs(inputPaths);
  for (const entry of rejected) io.stderr.write(`toolmask: ${entry.file}: ${entry.reason}\n`);
  for (const task of tasks) {
    for (const warning of task.warnings) io.stderr.write(`toolmask: ${task.file}: ${warning}\n`);
  }
  // Each bad input already has its line; with nothing left there is nothing more to say.
  if (tasks.length === 0) return EXIT_USAGE;

  const sessions = chainTasks(tasks, options.concat);
  const outputRoot = await prepareOutputRoot(options.keep);
  let report: ReplayReport;
  try {
    const { strategies, report: settingsReport } = await buildStrategies(
      names,
      settings,
      outputRoot,
    );
    const total = sessions.reduce((sum, session) => sum + countRequests(session), 0);
    const progress = createProgressBar(io.stderr, total * strategies.length);
    let result;
    try {
      result = await replaySessions(sessions, strategies, {
        cacheDiscount: options.cacheDiscount,
        warmTaskStarts: options.warmTaskStarts === true,
        onProgress: (done, all) => progress.update(done, all),
      });
    } finally {
      progress.finish();
    }
    report = buildReplayReport(result, {
      paths: inputPaths,
      builtinExample,
      concat: options.concat,
      rejected: rejected.map(({ file, reason }) => ({ file, reason })),
      taskLabels: new Map(
        sessions.map((session) => [session.id, session.tasks.map((task) => task.label)]),
      ),
      settings: settingsReport,
    });
  } finally {
    if (!options.keep) await fs.rm(outputRoot, { recursive: true, force: true });
  }

  if (options.report) {
    try {
      await fs.writeFile(options.report, renderHtmlReport(report), 'utf8');
    } catch (error) {
      throw failure(`cannot write the report ${options.report}: ${(error as Error).message}`);
    }
  }
  if (options.json) {
    io.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } else {
    const palette = createPalette(colorEnabled(io.stdout, io.env));
    io.stdout.write(
      renderReplayText(report, {
        palette,
        chart: options.chart !== false,
        verbose: options.verbose === true,
        ...(io.stdout.columns ? { columns: io.stdout.columns } : {}),
      }),
    );
    if (options.report) io.stdout.write(`Report written to ${options.report}\n`);
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
  if (rejected.length > 0) {
    io.stderr.write(
      `toolmask: ${rejected.length} input${rejected.length === 1 ? '' : 's'} not replayed (listed above)\n`,
    );
    return EXIT_USAGE;
  }
  return EXIT_OK;
}
