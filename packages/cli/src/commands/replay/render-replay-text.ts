/**
 * The terminal output of `toolmask replay`: a heading, the side-by-side summary table, the
 * per-request chart and, with `--verbose`, every request where a strategy changed the history,
 * with the notice line the person would have seen before that request.
 */
import type { ToolOutputMaskingConfig } from '@toolmask/core';
import type { Palette } from '../../render/color.js';
import { formatInteger } from '../../render/format.js';
import type { ReplayReport } from '../../render/replay-report.js';
import { renderSummaryTable } from '../../render/summary-table.js';
import { renderTerminalChart } from '../../render/terminal-chart.js';

export interface ReplayTextOptions {
  palette: Palette;
  chart: boolean;
  verbose: boolean;
  columns?: number;
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
  return `billed = uncached + ${report.pricing.cacheDiscount} x cached${chained}; tokens estimated the same way for every strategy`;
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
    }
  });
  return lines;
}

export function renderReplayText(report: ReplayReport, options: ReplayTextOptions): string {
  const { palette } = options;
  const lines = [palette.bold(heading(report)), ''];
  lines.push(
    renderSummaryTable(
      report.strategies.map((strategy) => strategy.summary),
      palette,
    ),
  );
  lines.push('');
  if (report.settings.toolmask) lines.push(palette.dim(settingsLine(report.settings.toolmask)));
  lines.push(palette.dim(pricingLine(report)));
  if (options.chart) {
    const width = Math.max(20, Math.min(100, (options.columns ?? 92) - 24));
    lines.push('', renderTerminalChart(report.strategies, palette, { width }));
  }
  if (options.verbose) lines.push(...eventLines(report, palette));
  return lines.join('\n') + '\n';
}
