import { describe, expect, it } from 'vitest';
import type { StrategySummary } from '../replay/types.js';
import { summaryRows } from './summary-table.js';

const summary = (strategy: string, billedTokens: number): StrategySummary => ({
  strategy,
  requestCount: 3,
  peakContextTokens: 100,
  totalInputTokens: 300,
  cachedTokens: 0,
  billedTokens,
  cacheBreaks: 0,
  outputsMasked: 0,
  bytesOffloaded: 0,
  failures: 0,
  passMs: 0,
});

describe('summaryRows', () => {
  it("reports billed against no masking and against gemini-cli's built-in (issue 34)", () => {
    const rows = summaryRows([
      summary('none', 1000),
      summary('gemini-cli', 800),
      summary('toolmask', 600),
    ]);
    const cells = (label: string) => rows.find((row) => row.label === label)?.cells;
    expect(cells('  billed vs none')).toEqual(['', '-20.0%', '-40.0%']);
    expect(cells('  billed vs gemini-cli')).toEqual(['+25.0%', '', '-25.0%']);
  });

  it('has no comparison row for a strategy that was not replayed', () => {
    const rows = summaryRows([summary('none', 1000), summary('toolmask', 600)]);
    expect(rows.map((row) => row.label)).not.toContain('  billed vs gemini-cli');
  });
});
