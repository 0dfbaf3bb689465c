/**
 * `/api/timeline`: the prompt tokens sent across every session over time, next to what would have
 * been sent without masking (sent plus the tokens the masked outputs kept out), for the overview's
 * chart. The figures are running totals from the start of the kept history, so a few points taken
 * from them draw the same lines as every request would: at most `maxPoints` are answered, evenly
 * spread over the requests, the last always included. Side requests count: their tokens are sent.
 */
import type { UsageRecord } from './usage-record.js';

export interface TimelinePoint {
  /** Epoch ms of the request the running totals end at. */
  at: number;
  /** Running totals up to and including that request. */
  requests: number;
  promptTokens: number;
  cachedTokens: number;
  /** promptTokens plus the tokens kept out: what would have been sent without masking. */
  withoutMasking: number;
}

export interface Timeline {
  points: TimelinePoint[];
}

/** Enough for a chart as wide as a screen; a month of requests stays a small answer. */
export const MAX_TIMELINE_POINTS = 600;

export function summarizeTimeline(
  records: readonly UsageRecord[],
  maxPoints = MAX_TIMELINE_POINTS,
): Timeline {
  const ordered = [...records].sort((a, b) => a.at - b.at);
  const every = Math.max(1, Math.ceil(ordered.length / Math.max(1, maxPoints)));
  const points: TimelinePoint[] = [];
  const total = { requests: 0, promptTokens: 0, cachedTokens: 0, withoutMasking: 0 };
  ordered.forEach((record, index) => {
    const sent = record.promptTokens ?? 0;
    total.requests++;
    total.promptTokens += sent;
    total.cachedTokens += record.cachedTokens ?? 0;
    total.withoutMasking += sent + record.tokensKeptOut;
    if ((index + 1) % every === 0 || index === ordered.length - 1) {
      points.push({ at: record.at, ...total });
    }
  });
  return { points };
}
