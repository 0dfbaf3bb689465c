/** Totals of one strategy's requests. */
import type { RequestRow, StrategySummary } from './types.js';

export function summarizeRequests(
  strategy: string,
  requests: readonly RequestRow[],
  options: {
    /** The strategy reports its masked outputs: count the superseded ones. @default false */
    outputsReported?: boolean;
  } = {},
): StrategySummary {
  const summary: StrategySummary = {
    strategy,
    requestCount: requests.length,
    peakContextTokens: 0,
    totalInputTokens: 0,
    cachedTokens: 0,
    billedTokens: 0,
    cacheBreaks: 0,
    outputsMasked: 0,
    ...(options.outputsReported ? { outputsSuperseded: 0 } : {}),
    bytesOffloaded: 0,
    failures: 0,
    passMs: 0,
  };
  for (const row of requests) {
    summary.peakContextTokens = Math.max(summary.peakContextTokens, row.contextTokens);
    summary.totalInputTokens += row.contextTokens;
    summary.cachedTokens += row.cachedTokens;
    summary.billedTokens += row.billedTokens;
    if (row.cacheBreak) summary.cacheBreaks++;
    summary.outputsMasked += row.maskedCount;
    if (summary.outputsSuperseded !== undefined) {
      for (const output of row.maskedOutputs ?? [])
        if (output.superseded) summary.outputsSuperseded++;
    }
    summary.bytesOffloaded += row.offloadedBytes;
    summary.failures += row.failures;
    summary.passMs += row.passMs;
  }
  return summary;
}
