/**
 * A small self-contained SVG line chart (no scripts, no external resources): one polyline per
 * series over a shared x axis, y ticks with thousands separators, a legend above the plot, and
 * optional dashed vertical lines (session boundaries) that the legend names.
 *
 * Layout, in the units of the viewBox: the title, then the legend row, then the y axis title
 * (horizontal, above the tick labels, so it can never run into them), then the plot, whose left
 * margin is as wide as the widest tick label. The viewBox is narrow (640 units) and the page caps
 * the chart's width, so text stays readable when a 600 px wide window scales the chart down.
 */
import { escapeHtml } from './escape-html.js';
import { formatInteger } from './format.js';

export interface ChartSeries {
  name: string;
  color: string;
  values: readonly number[];
}

export interface SvgLineChartOptions {
  title: string;
  /** The y axis title, e.g. `billed tokens`. */
  yLabel: string;
  series: readonly ChartSeries[];
  /** Indices (into values) where a new session starts. */
  boundaries?: readonly number[];
  /** What a boundary line means, in the legend. @default 'session starts' */
  boundaryLabel?: string;
  width?: number;
  height?: number;
  /** Most points drawn per series; longer series are bucketed (bucket maximum). */
  maxPoints?: number;
}

/** Font sizes in viewBox units, set on each text (the page's CSS sets colors only). */
const FONT = { title: 16, text: 13 };
/** A generous average advance of a 13-unit system-ui character (digits, commas, letters). */
const CHAR_WIDTH = 7.8;
const TITLE_Y = 18;
const LEGEND_Y = 42;
const AXIS_TITLE_Y = 68;
const PLOT_TOP = 80;
const MARGIN = { right: 14, bottom: 40 };

function niceStep(max: number, ticks: number): number {
  const raw = max / ticks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const normalized = raw / magnitude;
  const step = normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10;
  return step * magnitude;
}

function downsample(
  values: readonly number[],
  maxPoints: number,
): { index: number; value: number }[] {
  if (values.length <= maxPoints) return values.map((value, index) => ({ index, value }));
  const points: { index: number; value: number }[] = [];
  for (let bucket = 0; bucket < maxPoints; bucket++) {
    const start = Math.floor((bucket * values.length) / maxPoints);
    const end = Math.floor(((bucket + 1) * values.length) / maxPoints);
    let best = start;
    for (let index = start; index < end; index++) {
      if ((values[index] ?? 0) > (values[best] ?? 0)) best = index;
    }
    points.push({ index: best, value: values[best] ?? 0 });
  }
  return points;
}

const textWidth = (text: string) => text.length * CHAR_WIDTH;

/** Legend items left to right: a swatch per series, then the boundary line's meaning. */
function legend(options: SvgLineChartOptions, left: number, hasBoundaries: boolean): string[] {
  const parts: string[] = [];
  let x = left;
  const y = LEGEND_Y;
  for (const series of options.series) {
    parts.push(
      `<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${series.color}"/>`,
      `<text x="${x + 17}" y="${y}" class="legend" font-size="${FONT.text}">${escapeHtml(series.name)}</text>`,
    );
    x += 17 + textWidth(series.name) + 18;
  }
  if (hasBoundaries) {
    const label = options.boundaryLabel ?? 'session starts';
    parts.push(
      `<line x1="${x + 6}" x2="${x + 6}" y1="${y - 12}" y2="${y + 3}" class="boundary"/>`,
      `<text x="${x + 15}" y="${y}" class="legend" font-size="${FONT.text}">${escapeHtml(label)}</text>`,
    );
  }
  return parts;
}

export function renderSvgLineChart(options: SvgLineChartOptions): string {
  const width = options.width ?? 640;
  const height = options.height ?? 330;
  const count = Math.max(...options.series.map((series) => series.values.length), 1);
  const peak = Math.max(1, ...options.series.flatMap((series) => series.values));
  const step = niceStep(peak, 5);
  const yMax = Math.ceil(peak / step) * step;
  const ticks: number[] = [];
  for (let value = 0; value <= yMax; value += step) ticks.push(value);
  const left = Math.ceil(Math.max(...ticks.map((value) => textWidth(formatInteger(value))))) + 14;
  const plotWidth = width - left - MARGIN.right;
  const plotBottom = height - MARGIN.bottom;
  const plotHeight = plotBottom - PLOT_TOP;
  const x = (index: number) => left + (count <= 1 ? 0 : (index / (count - 1)) * plotWidth);
  const y = (value: number) => plotBottom - (value / yMax) * plotHeight;
  const boundaries = (options.boundaries ?? []).filter((boundary) => boundary > 0);

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" aria-label="${escapeHtml(options.title)}">`,
    `<title>${escapeHtml(options.title)}</title>`,
    `<text x="0" y="${TITLE_Y}" class="chart-title" font-size="${FONT.title}">${escapeHtml(options.title)}</text>`,
    ...legend(options, 0, boundaries.length > 0),
    `<text x="0" y="${AXIS_TITLE_Y}" class="axis-label" font-size="${FONT.text}">${escapeHtml(options.yLabel)}</text>`,
  ];
  for (const value of ticks) {
    const py = y(value).toFixed(1);
    parts.push(
      `<line x1="${left}" x2="${width - MARGIN.right}" y1="${py}" y2="${py}" class="grid"/>`,
      `<text x="${left - 8}" y="${py}" class="tick" font-size="${FONT.text}" text-anchor="end" dominant-baseline="middle">${formatInteger(value)}</text>`,
    );
  }
  for (const boundary of boundaries) {
    const px = x(boundary).toFixed(1);
    parts.push(
      `<line x1="${px}" x2="${px}" y1="${PLOT_TOP}" y2="${plotBottom}" class="boundary"/>`,
    );
  }
  parts.push(
    `<text x="${left}" y="${plotBottom + 18}" class="tick" font-size="${FONT.text}">1</text>`,
    `<text x="${width - MARGIN.right}" y="${plotBottom + 18}" class="tick" font-size="${FONT.text}" text-anchor="end">${formatInteger(count)}</text>`,
    `<text x="${left + plotWidth / 2}" y="${height - 6}" class="axis-label" font-size="${FONT.text}" text-anchor="middle">request</text>`,
  );
  for (const series of options.series) {
    const points = downsample(series.values, options.maxPoints ?? 1500)
      .map((point) => `${x(point.index).toFixed(1)},${y(point.value).toFixed(1)}`)
      .join(' ');
    parts.push(
      `<polyline class="series" data-series="${escapeHtml(series.name)}" fill="none" stroke="${series.color}" stroke-width="1.6" points="${points}"/>`,
    );
  }
  parts.push('</svg>');
  return parts.join('\n');
}
