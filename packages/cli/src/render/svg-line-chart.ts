/**
 * A small self-contained SVG line chart (no scripts, no external resources): one polyline per
 * series over a shared x axis, y ticks with thousands separators, a legend, and optional faint
 * vertical lines (session boundaries).
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
  yLabel: string;
  series: readonly ChartSeries[];
  /** Indices (into values) where a new session starts. */
  boundaries?: readonly number[];
  width?: number;
  height?: number;
  /** Most points drawn per series; longer series are bucketed (bucket maximum). */
  maxPoints?: number;
}

const MARGIN = { top: 36, right: 24, bottom: 44, left: 84 };

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

export function renderSvgLineChart(options: SvgLineChartOptions): string {
  const width = options.width ?? 960;
  const height = options.height ?? 340;
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const count = Math.max(...options.series.map((series) => series.values.length), 1);
  const peak = Math.max(1, ...options.series.flatMap((series) => series.values));
  const step = niceStep(peak, 5);
  const yMax = Math.ceil(peak / step) * step;
  const x = (index: number) => MARGIN.left + (count <= 1 ? 0 : (index / (count - 1)) * plotWidth);
  const y = (value: number) => MARGIN.top + plotHeight - (value / yMax) * plotHeight;

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" aria-label="${escapeHtml(options.title)}">`,
    `<title>${escapeHtml(options.title)}</title>`,
    `<text x="${MARGIN.left}" y="20" class="chart-title">${escapeHtml(options.title)}</text>`,
  );
  for (let value = 0; value <= yMax; value += step) {
    const py = y(value).toFixed(1);
    parts.push(
      `<line x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${py}" y2="${py}" class="grid"/>`,
      `<text x="${MARGIN.left - 8}" y="${py}" class="tick" text-anchor="end" dominant-baseline="middle">${formatInteger(value)}</text>`,
    );
  }
  for (const boundary of options.boundaries ?? []) {
    if (boundary <= 0) continue;
    const px = x(boundary).toFixed(1);
    parts.push(
      `<line x1="${px}" x2="${px}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}" class="boundary"/>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left + plotWidth / 2}" y="${height - 8}" class="axis-label" text-anchor="middle">request</text>`,
    `<text x="14" y="${MARGIN.top + plotHeight / 2}" class="axis-label" text-anchor="middle" transform="rotate(-90 14 ${MARGIN.top + plotHeight / 2})">${escapeHtml(options.yLabel)}</text>`,
    `<text x="${MARGIN.left}" y="${MARGIN.top + plotHeight + 18}" class="tick">1</text>`,
    `<text x="${width - MARGIN.right}" y="${MARGIN.top + plotHeight + 18}" class="tick" text-anchor="end">${formatInteger(count)}</text>`,
  );
  options.series.forEach((series, index) => {
    const points = downsample(series.values, options.maxPoints ?? 1500)
      .map((point) => `${x(point.index).toFixed(1)},${y(point.value).toFixed(1)}`)
      .join(' ');
    parts.push(
      `<polyline class="series" data-series="${escapeHtml(series.name)}" fill="none" stroke="${series.color}" stroke-width="1.6" points="${points}"/>`,
    );
    const legendX = MARGIN.left + 12 + index * 150;
    parts.push(
      `<rect x="${legendX}" y="${MARGIN.top + 6}" width="12" height="12" fill="${series.color}"/>`,
      `<text x="${legendX + 18}" y="${MARGIN.top + 16}" class="legend">${escapeHtml(series.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}
