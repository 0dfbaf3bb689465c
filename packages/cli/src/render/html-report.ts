/**
 * `--report FILE.html`: one self-contained page (inline CSS and SVG, no scripts, no network) with
 * the summary table, context tokens per request and cumulative billed tokens per strategy (session
 * boundaries dashed and named in the legend), the settings used, and the files not replayed.
 * Readable from 600 px wide up: the charts are capped in width and scale down with the window.
 */
import { escapeHtml } from './escape-html.js';
import { formatInteger } from './format.js';
import { settingsTableHtml } from './html-settings.js';
import type { ReplayReport } from './replay-report.js';
import { summaryRows } from './summary-table.js';
import { renderSvgLineChart, type ChartSeries } from './svg-line-chart.js';

const COLORS = ['#6b6b6b', '#0b84a5', '#d98c00', '#9d4edd', '#2a9d8f', '#d1495b'];

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; margin: 24px auto; max-width: 820px; color: #1d1d1f; padding: 0 16px; }
h1 { font-size: 24px; margin-bottom: 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; }
.meta, .caption { color: #555; }
.meta { margin-top: 0; }
.caption { font-size: 14px; margin: 4px 0 20px; }
table { border-collapse: collapse; }
table.summary, table.settings { margin: 8px 0 16px; }
table th, table td { padding: 4px 12px 4px 0; border-bottom: 1px solid #e3e3e3; text-align: left; vertical-align: top; }
table.summary td.num, table.summary th.num { text-align: right; font-variant-numeric: tabular-nums; padding-left: 12px; }
table.settings td { overflow-wrap: anywhere; }
table.settings tr.group th { padding-top: 12px; border-bottom: 1px solid #bbb; }
table.settings .where { font-weight: normal; color: #555; font-family: ui-monospace, monospace; font-size: 13px; }
.wide { overflow-x: auto; }
svg.chart { display: block; width: 100%; max-width: 720px; height: auto; margin: 16px 0 0; }
svg .grid { stroke: #ececec; }
svg .boundary { stroke: #888; stroke-dasharray: 4 4; }
svg .tick, svg .legend, svg .axis-label { fill: #444; }
svg .chart-title { font-weight: 600; fill: #1d1d1f; }
.rejected { color: #a33; overflow-wrap: anywhere; }
`;

const plural = (count: number, word: string) =>
  `${formatInteger(count)} ${word}${count === 1 ? '' : 's'}`;

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
  return `<div class="wide"><table class="summary">\n<thead><tr><th></th>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table></div>`;
}

function fileList(heading: string, entries: readonly { file: string; reason: string }[]): string {
  if (entries.length === 0) return '';
  const items = entries
    .map((entry) => `<li>${escapeHtml(entry.file)}: ${escapeHtml(entry.reason)}</li>`)
    .join('');
  return `<h2>${heading}</h2>\n<ul class="rejected">${items}</ul>`;
}

function metaHtml(report: ReplayReport): string {
  const requests = report.strategies[0]?.summary.requestCount ?? 0;
  const inputs = report.inputs.builtinExample
    ? 'the built-in example session (synthetic: five coding tasks in one long gemini-cli session)'
    : report.inputs.paths.map(escapeHtml).join(', ');
  const chained =
    report.inputs.concat > 1 ? `, ${report.inputs.concat} tasks chained per session` : '';
  return (
    `${plural(requests, 'request')} per strategy in ${plural(report.sessions.length, 'session')} ` +
    `from ${inputs}${chained}. Tokens estimated with ${escapeHtml(report.pricing.tokenEstimator)}.`
  );
}

export function renderHtmlReport(report: ReplayReport): string {
  const series = (pick: (values: number[]) => number[], field: 'contextTokens' | 'billedTokens') =>
    report.strategies.map<ChartSeries>((strategy, index) => ({
      name: strategy.name,
      color: COLORS[index % COLORS.length] as string,
      values: pick(strategy.requests.map((row) => row[field])),
    }));
  const boundaries = sessionBoundaries(report);
  const caption =
    boundaries.length > 1
      ? `<p class="caption">Dashed lines: a new session starts there (${plural(report.sessions.length, 'session')} replayed one after another; each starts with a cold prompt cache and an empty history).</p>`
      : '';

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
<p class="meta">${metaHtml(report)}</p>
${summaryTableHtml(report)}
<p class="caption"><b>none</b>: no masking. <b>toolmask</b>: this project's masking pass. <b>gemini-cli</b>: the masking built into @google/gemini-cli-core, run on the same input. A <b>cache break</b> is a request that changes something already sent, so the prompt cache covers only what comes before it. Billed tokens = uncached + ${report.pricing.cacheDiscount} &times; cached.</p>
${renderSvgLineChart({
  title: 'Context tokens per request',
  yLabel: 'tokens',
  series: series((values) => values, 'contextTokens'),
  boundaries,
})}
${caption}
${renderSvgLineChart({
  title: 'Cumulative billed tokens',
  yLabel: 'billed tokens',
  series: series(cumulative, 'billedTokens'),
  boundaries,
  maxPoints: 1500,
})}
<h2>Settings used</h2>
${settingsTableHtml(report)}
${fileList('Files not replayed', report.inputs.rejected)}
${fileList('Files skipped (not sessions)', report.inputs.skipped)}
</body>
</html>
`;
}
