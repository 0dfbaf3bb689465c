/**
 * `--report FILE.html`: one self-contained page (inline CSS and SVG, no scripts, no network) with
 * the summary table, context tokens per request and cumulative billed tokens per strategy.
 */
import { escapeHtml } from './escape-html.js';
import { formatInteger } from './format.js';
import type { ReplayReport } from './replay-report.js';
import { summaryRows } from './summary-table.js';
import { renderSvgLineChart, type ChartSeries } from './svg-line-chart.js';

const COLORS = ['#7a7a7a', '#0b84a5', '#f6a600', '#9d4edd', '#2a9d8f', '#d1495b'];

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1000px; color: #1d1d1f; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; }
.meta { color: #555; margin-top: 0; }
table.summary { border-collapse: collapse; margin: 16px 0 24px; }
table.summary th, table.summary td { padding: 4px 12px; border-bottom: 1px solid #e3e3e3; }
table.summary td.num, table.summary th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.summary th { text-align: left; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 8px 0 24px; }
svg .grid { stroke: #ececec; }
svg .boundary { stroke: #bbb; stroke-dasharray: 3 4; }
svg .tick, svg .legend, svg .axis-label { font-size: 12px; fill: #555; }
svg .chart-title { font-size: 15px; font-weight: 600; fill: #1d1d1f; }
.rejected { color: #a33; }
`;

function cumulative(values: readonly number[]): number[] {
  let total = 0;
  return values.map((value) => (total += value));
}

function sessionBoundaries(report: ReplayReport): number[] {
  const starts: number[] = [];
  let index = 0;
  for (const session of report.sessions) {
    starts.push(index);
    index += session.requestCount;
  }
  return starts;
}

function summaryTableHtml(report: ReplayReport): string {
  const summaries = report.strategies.map((strategy) => strategy.summary);
  const head = summaries.map((s) => `<th class="num">${escapeHtml(s.strategy)}</th>`).join('');
  const body = summaryRows(summaries)
    .map(
      (row) =>
        `<tr><th>${escapeHtml(row.label.trim())}</th>${row.cells
          .map((cell) => `<td class="num">${escapeHtml(cell)}</td>`)
          .join('')}</tr>`,
    )
    .join('\n');
  return `<table class="summary">\n<thead><tr><th></th>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

export function renderHtmlReport(report: ReplayReport): string {
  const series = (pick: (values: number[]) => number[], field: 'contextTokens' | 'billedTokens') =>
    report.strategies.map<ChartSeries>((strategy, index) => ({
      name: strategy.name,
      color: COLORS[index % COLORS.length] as string,
      values: pick(strategy.requests.map((row) => row[field])),
    }));
  const boundaries = sessionBoundaries(report);
  const requests = report.strategies[0]?.summary.requestCount ?? 0;
  const inputs = report.inputs.builtinExample
    ? 'the built-in example session'
    : report.inputs.paths.map(escapeHtml).join(', ');
  const fileList = (heading: string, entries: readonly { file: string; reason: string }[]) =>
    entries.length
      ? `<h2>${heading}</h2>\n<ul class="rejected">${entries
          .map((entry) => `<li>${escapeHtml(entry.file)}: ${escapeHtml(entry.reason)}</li>`)
          .join('')}</ul>`
      : '';
  const rejected =
    fileList('Files not replayed', report.inputs.rejected) +
    fileList('Files skipped (not sessions)', report.inputs.skipped);

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolmask replay report</title>
<style>${STYLE}</style>
</head>
<body>
<h1>toolmask replay</h1>
<p class="meta">${formatInteger(requests)} requests in ${formatInteger(report.sessions.length)} session(s) from ${inputs}${
    report.inputs.concat > 1 ? `, ${report.inputs.concat} tasks chained per session` : ''
  }. Cached tokens priced at ${report.pricing.cacheDiscount} of uncached${
    report.inputs.concat > 1
      ? report.pricing.warmTaskStarts
        ? '; chained tasks start warm'
        : '; each chained task starts cache-cold'
      : ''
  }. Tokens estimated with ${escapeHtml(report.pricing.tokenEstimator)}.</p>
${summaryTableHtml(report)}
${renderSvgLineChart({
  title: 'Context tokens per request',
  yLabel: 'tokens',
  series: series((values) => values, 'contextTokens'),
  boundaries,
})}
${renderSvgLineChart({
  title: 'Cumulative billed tokens',
  yLabel: 'billed tokens',
  series: series(cumulative, 'billedTokens'),
  boundaries,
  maxPoints: 1500,
})}
${rejected}
</body>
</html>
`;
}
