/**
 * The terminal output of `toolmask replay`: a heading (saying when the session is the synthetic
 * built-in one), the side-by-side summary table, what its columns and terms mean, the settings
 * and pricing, the per-request chart, where to read more and, with `--verbose`, every request
 * where a strategy changed the history, with the notice the person would have seen before it and,
 * for a strategy that reports them, each output it masked and whether it was superseded.
 */
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import type { Palette } from '../../render/color.js';
import { formatInteger } from '../../render/format.js';
import type { ReplayReport } from '../../render/replay-report.js';
import type { MaskedOutputInfo } from '../../replay/types.js';
import { renderSummaryTable } from '../../render/summary-table.js';
import { renderTerminalChart } from '../../render/terminal-chart.js';
import { wrapText } from '../../render/wrap-text.js';

export interface ReplayTextOptions {
  palette: Palette;
  chart: boolean;
  verbose: boolean;
  columns?: number;
  /** With `verbose`: where the files named in the notices really are. */
  noticeFolderNote?: string;
  /** Where to read more (a path that exists where the command runs). */
  documentation?: string;
}

/** What a newcomer meets in the table: each strategy that ran, and a cache break. */
const MEANINGS: Record<string, string> = {
  none: 'no masking: the history as recorded',
  toolmask: "this project's masking pass, with the settings below",
  'gemini-cli':
    'the masking built into @google/gemini-cli-core (its ToolOutputMaskingService), run in this process on the same input',
  'cache break':
    'a request that changes something already sent (an output masked), so the prompt cache covers only what comes before it',
};

const SYNTHETIC_NOTE =
  'The built-in example is synthetic: five coding tasks in one long gemini-cli session, generated the same on every machine. Replay your own sessions with: toolmask replay PATH';

/** A definition list: the terms in one column, their meanings wrapped beside them. */
function meaningLines(terms: readonly string[], width: number): string[] {
  const termWidth = Math.max(...terms.map((term) => term.length)) + 2;
  return terms.flatMap((term) =>
    wrapText(MEANINGS[term] ?? '', width - termWidth).map(
      (line, index) => (index === 0 ? term : '').padEnd(termWidth) + line,
    ),
  );
}

function heading(report: ReplayReport): string {
  const requests = report.strategies[0]?.summary.requestCount ?? 0;
  const tasks = report.sessions.reduce((sum, session) => sum + session.taskLabels.length, 0);
  const source = report.inputs.builtinExample
    ? 'the built-in example session'
    : `${formatInteger(tasks)} recorded task${tasks === 1 ? '' : 's'}`;
  const sessions = report.sessions.length;
  const chained = report.inputs.concat > 1 ? `, ${report.inputs.concat} tasks per session` : '';
  return (
    `Replayed ${source}: ${formatInteger(sessions)} session${sessions === 1 ? '' : 's'}` +
    `${chained}, ${formatInteger(requests)} requests per strategy.`
  );
}

function settingsLine(config: ToolOutputMaskingConfig): string {
  return (
    `toolmask settings: protect ${formatInteger(config.toolProtectionThreshold)} tokens ` +
    `(${formatInteger(Math.min(config.coldCacheProtectionThreshold, config.toolProtectionThreshold))} at cold moments), ` +
    `mask when >= ${formatInteger(config.minPrunableTokensThreshold)} prunable, ` +
    `protect latest turn ${config.protectLatestTurn ? 'on' : 'off'}, ` +
    `max output ${formatInteger(config.maxOutputTokens)} tokens` +
    (config.enabled ? '' : ' (disabled)')
  );
}

function pricingLine(report: ReplayReport): string {
  const chained =
    report.inputs.concat > 1
      ? report.pricing.warmTaskStarts
        ? '; chained tasks start warm'
        : '; each chained task starts cache-cold'
      : '';
  const writePrice = report.pricing.cacheWritePrice ?? 1;
  // Today's line when no write premium applies (OpenAI, Gemini), so earlier outputs read the same.
  const billed =
    writePrice === 1
      ? `billed = uncached + ${report.pricing.cacheDiscount} x cached`
      : `billed = ${writePrice} x uncached (written to the cache) + ${report.pricing.cacheDiscount} x cached` +
        (report.pricing.provider ? ` (${report.pricing.provider} cache rules)` : '');
  return `${billed}${chained}; tokens estimated the same way for every strategy`;
}

/** Said when the transcripts recorded usage: what the provider reported, and what used it. */
function recordedLine(report: ReplayReport): string | undefined {
  const recorded = report.pricing.recorded;
  if (!recorded) return undefined;
  const priced =
    recorded.pricedFromRecord > 0
      ? `; ${formatInteger(recorded.pricedFromRecord)} of them reported cached tokens (${formatInteger(recorded.cachedTokens)}) and are priced with that cache for every strategy (a strategy's edits can only lower it)`
      : '; none reported cached tokens, so the prefix model prices them';
  return (
    `recorded usage: ${formatInteger(recorded.requests)} requests carry the provider's usage, ` +
    `${formatInteger(recorded.promptTokens)} prompt tokens (the estimator counts ` +
    `${formatInteger(recorded.estimatedPromptTokens)} for the same requests)${priced}`
  );
}

const SUPERSEDED_WHY: Record<string, string> = {
  rerun: 'the same command ran again later',
  'read-again': 'the file was read again later',
  edited: 'the file was edited later',
};

/** One masked output of a request, and whether the session had since replaced it. */
function maskedOutputLine(output: MaskedOutputInfo): string {
  const what = `    - ${output.toolName} ${output.callId || '(no id)'}: ${formatInteger(output.tokensBefore)} -> ${formatInteger(output.tokensAfter)} tokens`;
  const superseded = output.superseded;
  if (!superseded) return what;
  const why = SUPERSEDED_WHY[superseded.reason] ?? superseded.reason;
  return `${what}, superseded: ${why}${superseded.callId ? ` (call ${superseded.callId})` : ''}`;
}

function eventLines(report: ReplayReport, palette: Palette): string[] {
  const lines: string[] = [];
  report.strategies.forEach((strategy, index) => {
    const events = strategy.requests.filter(
      (row) => row.maskedCount > 0 || row.cacheBreak || row.failures > 0 || row.notice,
    );
    lines.push('', palette.series(index, `${strategy.name}: ${events.length} requests changed`));
    for (const row of events) {
      const what = [
        row.maskedCount > 0 ? `masked ${formatInteger(row.maskedCount)}` : '',
        row.offloadedBytes > 0 ? `${formatInteger(row.offloadedBytes)} bytes offloaded` : '',
        row.failures > 0 ? `${formatInteger(row.failures)} failed` : '',
        row.cacheBreak ? 'cache break' : row.cacheCold ? 'cache cold' : '',
        `context ${formatInteger(row.contextTokens)} tokens`,
      ].filter(Boolean);
      lines.push(
        `  ${row.session} request ${row.request + 1} (task ${row.task + 1}): ${what.join(', ')}`,
      );
      if (row.notice) lines.push(palette.dim(`    | ${row.notice}`));
      for (const output of row.maskedOutputs ?? [])
        lines.push(palette.dim(maskedOutputLine(output)));
    }
  });
  return lines;
}

export function renderReplayText(report: ReplayReport, options: ReplayTextOptions): string {
  const { palette } = options;
  const width = Math.max(40, Math.min(120, options.columns ?? 92));
  const lines = [palette.bold(heading(report))];
  if (report.inputs.builtinExample) lines.push(...wrapText(SYNTHETIC_NOTE, width));
  lines.push('');
  lines.push(
    renderSummaryTable(
      report.strategies.map((strategy) => strategy.summary),
      palette,
    ),
  );
  lines.push('');
  const terms = [...report.strategies.map((strategy) => strategy.name), 'cache break'];
  lines.push(...meaningLines(terms, width).map((line) => palette.dim(line)));
  const prose = (text: string) => wrapText(text, width, '  ').map((line) => palette.dim(line));
  if (report.settings.toolmask) lines.push(...prose(settingsLine(report.settings.toolmask)));
  lines.push(...prose(pricingLine(report)));
  const recorded = recordedLine(report);
  if (recorded) lines.push(...prose(recorded));
  if (options.chart) {
    const chart = renderTerminalChart(report.strategies, palette, {
      width: 100,
      maxLineWidth: Math.max(40, options.columns ?? 92),
    });
    lines.push('', chart);
  }
  if (options.documentation) {
    lines.push('', `More: toolmask replay --help, and ${options.documentation}`);
  }
  if (options.verbose) {
    lines.push(...eventLines(report, palette));
    if (options.noticeFolderNote) lines.push('', palette.dim(options.noticeFolderNote));
  }
  return lines.join('\n') + '\n';
}
