import { describe, expect, it } from 'vitest';
import { summarizeRequests } from '../replay/summary.js';
import type { RequestRow } from '../replay/types.js';
import { createPalette } from './color.js';
import { renderTerminalChart } from './terminal-chart.js';

const rows = (values: number[]): RequestRow[] =>
  values.map((contextTokens, request) => ({
    session: 's',
    task: 0,
    request,
    contentCount: 1,
    contextTokens,
    cachedTokens: 0,
    billedTokens: contextTokens,
    cacheCold: false,
    cacheBreak: false,
    maskedCount: 0,
    offloadedBytes: 0,
    failures: 0,
    passMs: 0,
  }));

describe('renderTerminalChart', () => {
  it('draws one bar chart per strategy on a shared scale', () => {
    const replays = [
      { name: 'none', requests: rows([10, 20, 30, 40]) },
      { name: 'toolmask', requests: rows([10, 20, 10, 20]) },
    ].map((replay) => ({ ...replay, summary: summarizeRequests(replay.name, replay.requests) }));
    const chart = renderTerminalChart(replays, createPalette(false), { height: 1 });
    expect(chart.split('\n')).toEqual([
      'context tokens per request (4 requests; full height = 40 tokens)',
      'none      ▂▄▆█  peak 40',
      'toolmask  ▂▄▂▄  peak 20',
    ]);
  });

  it('buckets long runs into columns (largest request of each bucket)', () => {
    const replays = [{ name: 'none', requests: rows([1, 9, 1, 1, 1, 1]) }].map((replay) => ({
      ...replay,
      summary: summarizeRequests(replay.name, replay.requests),
    }));
    const chart = renderTerminalChart(replays, createPalette(false), { height: 1, width: 3 });
    expect(chart.split('\n')).toEqual([
      'context tokens per request (6 requests; full height = 9 tokens)',
      'each column shows the largest of 2 consecutive requests',
      'none  █▁▁  peak 9',
    ]);
    const uneven = renderTerminalChart(
      [{ name: 'none', requests: rows([1, 2, 3, 4, 5, 6, 7]) }].map((replay) => ({
        ...replay,
        summary: summarizeRequests(replay.name, replay.requests),
      })),
      createPalette(false),
      { height: 1, width: 3 },
    );
    expect(uneven.split('\n')[1]).toBe('each column shows the largest of 2-3 consecutive requests');
    const narrow = renderTerminalChart(replays, createPalette(false), {
      height: 1,
      maxLineWidth: 16,
    });
    expect(narrow.split('\n')[2]).toBe('none  █▁  peak 9');
  });
});
