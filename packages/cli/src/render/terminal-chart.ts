/**
 * The per-request chart of `toolmask replay`: context tokens of every request, one small bar chart
 * per strategy on a shared scale, so the strategies can be compared by eye. Requests are bucketed
 * into columns (each column shows the largest request of its bucket).
 */
import type { StrategyReplay } from '../replay/types.js';
import type { Palette } from './color.js';
import { formatInteger } from './format.js';

const BLOCKS = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

export interface TerminalChartOptions {
  /** Columns for the bars. @default 72 */
  width?: number;
  /** Whole lines (label, bars, peak) fit in this many columns: fewer bars when needed. */
  maxLineWidth?: number;
  /** Rows per strategy. @default 3 */
  height?: number;
}

function bucketMaxima(values: readonly number[], width: number): number[] {
  const columns = Math.max(1, Math.min(width, values.length));
  const maxima: number[] = [];
  for (let column = 0; column < columns; column++) {
    const start = Math.floor((column * values.length) / columns);
    const end = Math.max(start + 1, Math.floor(((column + 1) * values.length) / columns));
    let max = 0;
    for (let index = start; index < end; index++) max = Math.max(max, values[index] ?? 0);
    maxima.push(max);
  }
  return maxima;
}

function barRows(maxima: readonly number[], scale: number, height: number): string[] {
  const levels = height * 8;
  const filled = maxima.map((value) =>
    scale === 0 ? 0 : Math.max(value > 0 ? 1 : 0, Math.round((value / scale) * levels)),
  );
  const rows: string[] = [];
  for (let row = height - 1; row >= 0; row--) {
    rows.push(
      filled.map((level) => BLOCKS[Math.max(0, Math.min(8, level - row * 8))] as string).join(''),
    );
  }
  return rows;
}

/** What one column stands for when requests are bucketed (as `bucketMaxima` buckets them). */
function columnMeaning(requests: number, columns: number): string | undefined {
  if (columns >= requests) return undefined;
  const fewest = Math.floor(requests / columns);
  const most = Math.ceil(requests / columns);
  const size =
    fewest === most ? formatInteger(fewest) : `${formatInteger(fewest)}-${formatInteger(most)}`;
  return `each column shows the largest of ${size} consecutive requests`;
}

function peakLabel(replay: StrategyReplay): string {
  return `  peak ${formatInteger(replay.summary.peakContextTokens)}`;
}

export function renderTerminalChart(
  replays: readonly StrategyReplay[],
  palette: Palette,
  options: TerminalChartOptions = {},
): string {
  const height = options.height ?? 3;
  const requests = replays[0]?.requests.length ?? 0;
  if (requests === 0) return '';
  const scale = Math.max(...replays.map((replay) => replay.summary.peakContextTokens));
  const labelWidth = Math.max(...replays.map((replay) => replay.name.length)) + 2;
  const peakWidth = Math.max(...replays.map((replay) => peakLabel(replay).length));
  const room = (options.maxLineWidth ?? Infinity) - labelWidth - peakWidth;
  const columns = Math.max(1, Math.min(options.width ?? 72, room, requests));
  const header =
    `context tokens per request (${formatInteger(requests)} requests; ` +
    `full height = ${formatInteger(scale)} tokens)`;

  const lines = [palette.bold(header)];
  const bucketing = columnMeaning(requests, columns);
  if (bucketing) lines.push(palette.dim(bucketing));
  replays.forEach((replay, index) => {
    const maxima = bucketMaxima(
      replay.requests.map((row) => row.contextTokens),
      columns,
    );
    const rows = barRows(maxima, scale, height);
    rows.forEach((bars, row) => {
      const label = row === 0 ? replay.name : '';
      const suffix = row === rows.length - 1 ? peakLabel(replay) : '';
      lines.push(`${label.padEnd(labelWidth)}${palette.series(index, bars)}${palette.dim(suffix)}`);
    });
  });
  return lines.join('\n');
}
