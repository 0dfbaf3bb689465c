/**
 * The side-by-side summary of `toolmask replay`: one column per strategy, one row per figure.
 * Used by the terminal output and (as data) by the HTML report.
 */
import type { StrategySummary } from '../replay/types.js';
import type { Palette } from './color.js';
import { formatChange, formatInteger, formatMilliseconds } from './format.js';
import { renderTextTable } from './text-table.js';

export interface SummaryRow {
  label: string;
  cells: string[];
}

export function summaryRows(summaries: readonly StrategySummary[]): SummaryRow[] {
  const row = (label: string, pick: (summary: StrategySummary) => string): SummaryRow => ({
    label,
    cells: summaries.map(pick),
  });
  const rows = [
    row('requests', (s) => formatInteger(s.requestCount)),
    row('peak context tokens', (s) => formatInteger(s.peakContextTokens)),
    row('total input tokens', (s) => formatInteger(s.totalInputTokens)),
    row('  of which cached', (s) => formatInteger(s.cachedTokens)),
    row('billed tokens', (s) => formatInteger(s.billedTokens)),
  ];
  // Billed against no masking and against gemini-cli's built-in, when they were replayed.
  for (const name of ['none', 'gemini-cli']) {
    const baseline = summaries.find((s) => s.strategy === name);
    if (!baseline || summaries.length < 2) continue;
    rows.push(
      row(`  billed vs ${name}`, (s) =>
        s === baseline ? '' : formatChange(s.billedTokens, baseline.billedTokens),
      ),
    );
  }
  rows.push(
    row('cache breaks', (s) => formatInteger(s.cacheBreaks)),
    row('outputs masked', (s) => formatInteger(s.outputsMasked)),
  );
  if (summaries.some((s) => s.outputsSuperseded !== undefined)) {
    // Only a strategy that says which outputs it masked can say which were superseded.
    rows.push(
      row('  of which superseded', (s) =>
        s.outputsSuperseded === undefined ? '' : formatInteger(s.outputsSuperseded),
      ),
    );
  }
  rows.push(row('bytes offloaded', (s) => formatInteger(s.bytesOffloaded)));
  if (summaries.some((s) => s.failures > 0)) {
    rows.push(row('write failures', (s) => formatInteger(s.failures)));
  }
  rows.push(row('total pass time', (s) => formatMilliseconds(s.passMs)));
  return rows;
}

export function renderSummaryTable(
  summaries: readonly StrategySummary[],
  palette: Palette,
): string {
  const header = ['', ...summaries.map((s, index) => palette.series(index, s.strategy))];
  const body = summaryRows(summaries).map((row) => [row.label, ...row.cells]);
  return renderTextTable([header, ...body], { gap: 3 });
}
