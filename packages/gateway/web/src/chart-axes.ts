/**
 * What the dashboard's two charts share: their height and margins, a round top for the y axis,
 * its grid lines with labels, and the axis titles. Sized for reading: 300 px tall, 12 px labels.
 */
import { h, svg } from './dom.js';
import { formatCompact } from './format.js';

export const CHART_HEIGHT = 300;
export const CHART_MARGIN = { top: 14, right: 18, bottom: 46, left: 70 };

/** An axis label: 750k, 1.13M (no trailing `.0`, three figures at most past a thousand). */
export function formatAxis(value: number): string {
  if (value < 1_000) return formatCompact(value);
  const [divisor, unit] = value >= 1e6 ? [1e6, 'M'] : [1e3, 'k'];
  return `${Number((value / divisor).toPrecision(3))}${unit}`;
}

/** The smallest round number (1, 1.5, 2, 2.5, ... × a power of ten) at or above `value`. */
export function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((factor) => factor * power >= value) ?? 10;
  return step * power;
}

/** The least room a request number under the chart gets, in px (four digits at 12 px fit in 32). */
export const X_LABEL_GAP = 48;

/** The smallest step of 1, 2, 5 × a power of ten at or above `value`. */
function roundStep(value: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(1, value)));
  return ([1, 2, 5, 10].find((factor) => factor * power >= value) ?? 10) * power;
}

/**
 * Which of `count` evenly spaced requests get their number under the plot (`plotWidth` px wide):
 * the first, every round step (5, 10, 15 … as numbers) and the last, never two closer than
 * `X_LABEL_GAP` px: the last one replaces the step before it when they would touch.
 */
export function xLabelIndexes(count: number, plotWidth: number): number[] {
  if (count <= 0) return [];
  const spacing = plotWidth / count;
  const step = roundStep(Math.ceil(X_LABEL_GAP / Math.max(spacing, 1e-6)));
  const candidates = [0];
  for (let number = step; number <= count; number += step) {
    if (number - 1 > 0) candidates.push(number - 1);
  }
  const kept: number[] = [];
  for (const index of candidates) {
    const previous = kept[kept.length - 1];
    if (previous === undefined || (index - previous) * spacing >= X_LABEL_GAP) kept.push(index);
  }
  const last = count - 1;
  if (kept[kept.length - 1] !== last) {
    while (kept.length > 1 && (last - (kept[kept.length - 1] as number)) * spacing < X_LABEL_GAP) {
      kept.pop();
    }
    if (kept.length === 0 || (last - (kept[kept.length - 1] as number)) * spacing >= X_LABEL_GAP) {
      kept.push(last);
    }
  }
  return kept;
}

/** Five horizontal grid lines from 0 to `top`, labelled on the left. */
export function yGrid(top: number, y: (value: number) => number, plotWidth: number): SVGGElement[] {
  return [0, 0.25, 0.5, 0.75, 1].map((fraction) =>
    svg(
      'g',
      { class: 'grid' },
      svg('line', {
        x1: CHART_MARGIN.left,
        x2: CHART_MARGIN.left + plotWidth,
        y1: y(top * fraction),
        y2: y(top * fraction),
      }),
      svg(
        'text',
        { x: CHART_MARGIN.left - 8, y: y(top * fraction) + 4, 'text-anchor': 'end' },
        formatAxis(top * fraction),
      ),
    ),
  );
}

/** The x axis title under the plot and the y axis title along its left edge. */
export function axisTitles(width: number, xTitle: string, yTitle: string): SVGTextElement[] {
  const plotBottom = CHART_HEIGHT - CHART_MARGIN.bottom;
  const middleY = CHART_MARGIN.top + (plotBottom - CHART_MARGIN.top) / 2;
  return [
    svg(
      'text',
      {
        class: 'axis-title',
        x: CHART_MARGIN.left + (width - CHART_MARGIN.left - CHART_MARGIN.right) / 2,
        y: CHART_HEIGHT - 6,
        'text-anchor': 'middle',
      },
      xTitle,
    ),
    svg(
      'text',
      {
        class: 'axis-title',
        x: 14,
        y: middleY,
        'text-anchor': 'middle',
        transform: `rotate(-90 14 ${middleY})`,
      },
      yTitle,
    ),
  ];
}

/** One entry of a chart's legend: its swatch (styled by `kind`) and its label. */
export function legendItem(kind: string, label: string): HTMLElement {
  return h('span', { class: 'legend-item' }, h('span', { class: `swatch ${kind}` }), label);
}
