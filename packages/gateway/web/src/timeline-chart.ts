/**
 * The overview's chart: prompt tokens sent across every session over time (running totals from the
 * start of the kept history), against what would have been sent without masking, the gap between
 * them shaded: the tokens masking kept out. The x axis is time; a long idle stretch is a flat line.
 * The last totals are in `data-sent` and `data-without` (tests and scripts read them).
 */
import type { Timeline, TimelinePoint } from '../../src/dashboard/api-types.js';
import {
  axisTitles,
  CHART_HEIGHT as HEIGHT,
  CHART_MARGIN as MARGIN,
  legendItem,
  niceMax,
  yGrid,
} from './chart-axes.js';
import { chartFrame } from './chart-frame.js';
import { h, svg } from './dom.js';
import {
  formatClock,
  formatCompact,
  formatDate,
  formatInteger,
  formatShare,
  formatTime,
} from './format.js';

/** A time label as fine as the span needs: seconds for minutes, hours for a day, dates beyond. */
function timeLabel(at: number, spanMs: number): string {
  if (spanMs < 10 * 60_000) return formatClock(at, true);
  if (spanMs < 36 * 3_600_000) return formatClock(at);
  return formatDate(at);
}

function legend(): HTMLElement {
  return h(
    'div',
    { class: 'legend' },
    legendItem('sent', 'prompt tokens sent'),
    legendItem('without', 'without masking'),
    legendItem('kept', 'kept out by masking'),
  );
}

function describe(point: TimelinePoint): string {
  return (
    `${formatTime(point.at)} · ${formatInteger(point.requests)} requests · ` +
    `${formatInteger(point.promptTokens)} prompt tokens sent · ` +
    `${formatInteger(point.withoutMasking)} without masking`
  );
}

function drawChart(points: readonly TimelinePoint[], width: number): SVGSVGElement {
  const plotWidth = Math.max(40, width - MARGIN.left - MARGIN.right);
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const first = points[0]?.at ?? 0;
  const last = points.at(-1)?.at ?? first;
  const span = Math.max(1, last - first);
  const top = niceMax(Math.max(0, ...points.map((point) => point.withoutMasking)));
  // One point alone sits in the middle; several span the plot.
  const x = (at: number) =>
    MARGIN.left + (points.length > 1 ? (plotWidth * (at - first)) / span : plotWidth / 2);
  const y = (value: number) => MARGIN.top + plotHeight * (1 - value / top);
  const line = (value: (point: TimelinePoint) => number) =>
    points.map((point) => `${x(point.at).toFixed(1)},${y(value(point)).toFixed(1)}`);
  const sent = line((point) => point.promptTokens);
  const without = line((point) => point.withoutMasking);
  const ticks = Math.max(2, Math.min(7, Math.floor(plotWidth / 130)));
  // A label the one before already shows (a span of seconds) is left out.
  const xLabels = Array.from({ length: ticks }, (_, index) => first + (span * index) / (ticks - 1))
    .filter(() => points.length > 1)
    .map((at, index, all) => ({ at, index, text: timeLabel(at, span), all }))
    .filter(
      ({ text, index, all }) => index === 0 || timeLabel(all[index - 1] as number, span) !== text,
    )
    .map(({ at, index, text }) =>
      svg(
        'text',
        {
          class: 'x-label',
          x: x(at),
          y: MARGIN.top + plotHeight + 16,
          'text-anchor': index === 0 ? 'start' : index === ticks - 1 ? 'end' : 'middle',
        },
        text,
      ),
    );
  const end = points.at(-1);
  return svg(
    'svg',
    {
      class: 'timeline-chart',
      width,
      height: HEIGHT,
      viewBox: `0 0 ${width} ${HEIGHT}`,
      role: 'img',
      'aria-label': 'Prompt tokens sent over time, and without masking, across sessions',
      'data-sent': end?.promptTokens ?? 0,
      'data-without': end?.withoutMasking ?? 0,
    },
    ...yGrid(top, y, plotWidth),
    svg('polygon', {
      class: 'kept-out-area',
      points: [...without, ...[...sent].reverse()].join(' '),
    }),
    svg('polyline', { class: 'line-without', points: without.join(' ') }),
    svg('polyline', { class: 'line-sent', points: sent.join(' ') }),
    end
      ? svg(
          'circle',
          { class: 'point', cx: x(end.at), cy: y(end.promptTokens), r: 3.5 },
          svg('title', {}, describe(end)),
        )
      : null,
    ...xLabels,
    ...axisTitles(width, 'time', 'prompt tokens, running total'),
  );
}

export function timelineChart(timeline: Timeline): HTMLElement {
  const end = timeline.points.at(-1);
  if (!end) return h('p', { class: 'empty' }, 'No requests yet.');
  const keptOut = end.withoutMasking - end.promptTokens;
  const share = end.withoutMasking > 0 ? keptOut / end.withoutMasking : 0;
  return h(
    'figure',
    { class: 'chart timeline' },
    h(
      'p',
      { class: 'chart-summary' },
      h('strong', {}, formatCompact(end.promptTokens)),
      ' prompt tokens sent, ',
      h('strong', {}, formatCompact(end.withoutMasking)),
      ' without masking: ',
      h('strong', {}, formatShare(share)),
      ' fewer (estimate).',
    ),
    legend(),
    chartFrame((width) => drawChart(timeline.points, width), 'timeline-chart'),
  );
}
