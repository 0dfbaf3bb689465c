/**
 * The session chart: prompt tokens per request as sent (a line with one point per request),
 * what would have been sent without masking (prompt tokens plus the tokens kept out, dashed),
 * the cached part of each prompt shaded under it, and each masking event (a request whose pass
 * masked outputs) marked by a vertical line. Drawn as SVG at the width it is given; every mark has
 * a `<title>` the browser shows on hover.
 */
import type { UsageRecord } from '../../src/dashboard/api-types.js';
import { h, svg } from './dom.js';
import { formatCompact, formatInteger } from './format.js';

const HEIGHT = 280;
const MARGIN = { top: 18, right: 16, bottom: 30, left: 52 };

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((factor) => factor * power >= value) ?? 10;
  return step * power;
}

function describe(record: UsageRecord, index: number): string {
  const parts = [`Request ${index + 1}`];
  if (record.promptTokens === undefined) {
    parts.push('no usage reported');
  } else {
    parts.push(
      `${formatInteger(record.promptTokens)} prompt tokens (${formatInteger(record.cachedTokens ?? 0)} cached)`,
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

function legend(): HTMLElement {
  const item = (kind: string, label: string) =>
    h('span', { class: 'legend-item' }, h('span', { class: `swatch ${kind}` }), label);
  return h(
    'div',
    { class: 'legend' },
    item('sent', 'prompt tokens sent'),
    item('without', 'without masking (sent + kept out)'),
    item('cached', 'cached'),
    item('event', 'masking event'),
  );
}

export function promptChart(requests: readonly UsageRecord[], width: number): HTMLElement {
  const plotWidth = Math.max(40, width - MARGIN.left - MARGIN.right);
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sent = requests.map((record) => record.promptTokens ?? 0);
  const without = requests.map((record, index) => (sent[index] ?? 0) + record.tokensKeptOut);
  const cached = requests.map((record) => record.cachedTokens ?? 0);
  const top = niceMax(Math.max(0, ...without));
  const step = plotWidth / Math.max(1, requests.length);
  const x = (index: number) => MARGIN.left + step * (index + 0.5);
  const y = (value: number) => MARGIN.top + plotHeight * (1 - value / top);
  const pointsOf = (values: readonly number[]) =>
    values.map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(' ');

  const grid = [0, 0.25, 0.5, 0.75, 1].map((fraction) =>
    svg(
      'g',
      { class: 'grid' },
      svg('line', {
        x1: MARGIN.left,
        x2: MARGIN.left + plotWidth,
        y1: y(top * fraction),
        y2: y(top * fraction),
      }),
      svg(
        'text',
        { x: MARGIN.left - 6, y: y(top * fraction) + 4, 'text-anchor': 'end' },
        formatCompact(top * fraction),
      ),
    ),
  );
  const labelEvery = Math.max(1, Math.ceil(requests.length / Math.max(1, plotWidth / 48)));
  const xLabels = requests
    .map((_, index) => index)
    .filter((index) => index % labelEvery === 0 || index === requests.length - 1)
    .map((index) =>
      svg(
        'text',
        { class: 'x-label', x: x(index), y: HEIGHT - 10, 'text-anchor': 'middle' },
        index + 1,
      ),
    );
  const cachedArea =
    requests.length > 0
      ? svg('polygon', {
          class: 'cached-area',
          points: `${x(0).toFixed(1)},${y(0)} ${pointsOf(cached)} ${x(requests.length - 1).toFixed(1)},${y(0)}`,
        })
      : null;
  const events = requests.flatMap((record, index) =>
    record.newlyMasked > 0
      ? [
          svg(
            'line',
            {
              class: 'mask-event',
              'data-request': index + 1,
              x1: x(index),
              x2: x(index),
              y1: MARGIN.top,
              y2: MARGIN.top + plotHeight,
            },
            svg('title', {}, describe(record, index)),
          ),
        ]
      : [],
  );
  const points = requests.map((record, index) =>
    svg(
      'circle',
      {
        class: record.promptTokens === undefined ? 'point no-usage' : 'point',
        'data-series': 'sent',
        'data-request': index + 1,
        cx: x(index),
        cy: y(sent[index] ?? 0),
        r: requests.length > 120 ? 2 : 3.5,
      },
      svg('title', {}, describe(record, index)),
    ),
  );
  const chart = svg(
    'svg',
    {
      class: 'prompt-chart',
      width,
      height: HEIGHT,
      viewBox: `0 0 ${width} ${HEIGHT}`,
      role: 'img',
      'aria-label': `Prompt tokens of ${requests.length} requests, sent and without masking`,
    },
    ...grid,
    cachedArea,
    ...events,
    svg('polyline', { class: 'line-without', points: pointsOf(without) }),
    svg('polyline', { class: 'line-sent', points: pointsOf(sent) }),
    ...points,
    ...xLabels,
  );
  return h(
    'figure',
    { class: 'chart' },
    legend(),
    chart,
    h('figcaption', { class: 'muted' }, 'request'),
  );
}
