/**
 * The session chart: prompt tokens per request as sent (a line with one point per request),
 * what would have been sent without masking (prompt tokens plus the tokens kept out, dashed),
 * the cached part of each prompt shaded under it (and, for a provider that reports them, the part
 * written to its cache this request shaded above that), and each masking event (a request whose pass
 * masked outputs) marked by a vertical line. Drawn as SVG at its box's width (chart-frame.ts),
 * 300 px tall; every mark has a `<title>` the browser shows on hover.
 */
import type { UsageRecord } from '../../src/dashboard/api-types.js';
import {
  axisTitles,
  xLabelIndexes,
  CHART_HEIGHT as HEIGHT,
  CHART_MARGIN as MARGIN,
  legendItem,
  niceMax,
  yGrid,
} from './chart-axes.js';
import { chartFrame } from './chart-frame.js';
import { h, svg } from './dom.js';
import { formatInteger } from './format.js';

function describe(record: UsageRecord, index: number): string {
  const parts = [`Request ${index + 1}`];
  if (record.promptTokens === undefined) {
    parts.push('no usage reported');
  } else {
    const written = record.cacheWriteTokens
      ? `, ${formatInteger(record.cacheWriteTokens)} written to cache`
      : '';
    parts.push(
      `${formatInteger(record.promptTokens)} prompt tokens (${formatInteger(record.cachedTokens ?? 0)} cached${written})`,
    );
  }
  if (record.tokensKeptOut > 0) parts.push(`${formatInteger(record.tokensKeptOut)} kept out`);
  if (record.newlyMasked > 0) {
    parts.push(
      `masked ${record.newlyMasked} output(s)${record.trigger ? ` (${record.trigger})` : ''}`,
    );
  }
  return parts.join(' · ');
}

function legend(writes: boolean): HTMLElement {
  return h(
    'div',
    { class: 'legend' },
    legendItem('sent', 'prompt tokens sent'),
    legendItem('without', 'without masking (sent + kept out)'),
    legendItem('cached', 'cached'),
    writes ? legendItem('written', 'written to cache') : null,
    legendItem('event', 'masking event'),
  );
}

/** Whether any request reported cache writes: only then is that band drawn and named. */
function hasWrites(requests: readonly UsageRecord[]): boolean {
  return requests.some((record) => (record.cacheWriteTokens ?? 0) > 0);
}

/** Where a request and a token count sit on the chart. */
interface Scale {
  plotWidth: number;
  plotHeight: number;
  x(index: number): number;
  y(value: number): number;
  pointsOf(values: readonly number[]): string;
}

function scaleOf(count: number, top: number, width: number): Scale {
  const plotWidth = Math.max(40, width - MARGIN.left - MARGIN.right);
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const step = plotWidth / Math.max(1, count);
  const x = (index: number) => MARGIN.left + step * (index + 0.5);
  const y = (value: number) => MARGIN.top + plotHeight * (1 - value / top);
  const pointsOf = (values: readonly number[]) =>
    values.map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(' ');
  return { plotWidth, plotHeight, x, y, pointsOf };
}

/** Request numbers under the plot, as many as fit. */
function xLabels(count: number, scale: Scale): SVGElement[] {
  return xLabelIndexes(count, scale.plotWidth).map((index) =>
    svg(
      'text',
      {
        class: 'x-label',
        x: scale.x(index),
        y: MARGIN.top + scale.plotHeight + 16,
        'text-anchor': 'middle',
      },
      index + 1,
    ),
  );
}

/** The cached part of each prompt, and above it the part written to the cache (if reported). */
function cacheAreas(requests: readonly UsageRecord[], scale: Scale): (SVGElement | null)[] {
  if (requests.length === 0) return [null, null];
  const cached = requests.map((record) => record.cachedTokens ?? 0);
  // Written sits on top of cached: both are parts of the prompt (Anthropic's input is the rest).
  const writtenTop = requests.map(
    (record, index) => (cached[index] ?? 0) + (record.cacheWriteTokens ?? 0),
  );
  const { x, y, pointsOf } = scale;
  const cachedArea = svg('polygon', {
    class: 'cached-area',
    points: `${x(0).toFixed(1)},${y(0)} ${pointsOf(cached)} ${x(requests.length - 1).toFixed(1)},${y(0)}`,
  });
  const writtenArea = hasWrites(requests)
    ? svg('polygon', {
        class: 'written-area',
        points: `${pointsOf(writtenTop)} ${[...cached]
          .map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`)
          .reverse()
          .join(' ')}`,
      })
    : null;
  return [cachedArea, writtenArea];
}

/** A vertical line at each request whose pass masked outputs. */
function maskEvents(requests: readonly UsageRecord[], scale: Scale): SVGElement[] {
  return requests.flatMap((record, index) =>
    record.newlyMasked > 0
      ? [
          svg(
            'line',
            {
              class: 'mask-event',
              'data-request': index + 1,
              x1: scale.x(index),
              x2: scale.x(index),
              y1: MARGIN.top,
              y2: MARGIN.top + scale.plotHeight,
            },
            svg('title', {}, describe(record, index)),
          ),
        ]
      : [],
  );
}

/** One point per request at the prompt tokens sent, with its description on hover. */
function sentPoints(
  requests: readonly UsageRecord[],
  sent: readonly number[],
  scale: Scale,
): SVGElement[] {
  return requests.map((record, index) =>
    svg(
      'circle',
      {
        class: record.promptTokens === undefined ? 'point no-usage' : 'point',
        'data-series': 'sent',
        'data-request': index + 1,
        cx: scale.x(index),
        cy: scale.y(sent[index] ?? 0),
        r: requests.length > 120 ? 2 : 3.5,
      },
      svg('title', {}, describe(record, index)),
    ),
  );
}

function drawChart(requests: readonly UsageRecord[], width: number): SVGSVGElement {
  const sent = requests.map((record) => record.promptTokens ?? 0);
  const without = requests.map((record, index) => (sent[index] ?? 0) + record.tokensKeptOut);
  const top = niceMax(Math.max(0, ...without));
  const scale = scaleOf(requests.length, top, width);
  return svg(
    'svg',
    {
      class: 'prompt-chart',
      width,
      height: HEIGHT,
      viewBox: `0 0 ${width} ${HEIGHT}`,
      role: 'img',
      'aria-label': `Prompt tokens of ${requests.length} requests, sent and without masking`,
    },
    ...yGrid(top, scale.y, scale.plotWidth),
    ...cacheAreas(requests, scale),
    ...maskEvents(requests, scale),
    svg('polyline', { class: 'line-without', points: scale.pointsOf(without) }),
    svg('polyline', { class: 'line-sent', points: scale.pointsOf(sent) }),
    ...sentPoints(requests, sent, scale),
    ...xLabels(requests.length, scale),
    ...axisTitles(width, 'request', 'prompt tokens'),
  );
}

export function promptChart(requests: readonly UsageRecord[]): HTMLElement {
  return h(
    'figure',
    { class: 'chart' },
    legend(hasWrites(requests)),
    chartFrame((width) => drawChart(requests, width), 'prompt-chart'),
  );
}
