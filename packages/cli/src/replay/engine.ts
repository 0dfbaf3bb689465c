/**
 * The replay engine: plays recorded sessions request by request through each strategy and prices
 * every request the same way, so strategies can be compared.
 *
 * Per session and strategy:
 * - the strategy's state is the last request it sent (history as masked so far); before each
 *   request the contents recorded since are appended, and the strategy's pass runs on that history
 *   and the pending user content, returning the request to send;
 * - cached tokens are the tokens of the longest prefix of contents unchanged since the previous
 *   request; billed tokens are `cacheWritePrice * uncached + cacheDiscount * cached` (the write
 *   price is 1 but under Anthropic's rules: pricing.ts);
 * - the first request of a session is cold; so is the first request of every chained task after
 *   the first (the person read the result, the cache expired), unless `warmTaskStarts`, and every
 *   request after an idle gap (`idleGaps`: the person paused in the middle of a task). Strategies
 *   are told through `cacheLikelyCold`, as a host would know from the request and the clock.
 *
 * - where a transcript recorded the provider's cached tokens for a request, that request is
 *   priced from the record instead (recorded-usage.ts).
 *
 * Token figures come from one estimator for every strategy (`estimateTokenCountSync` of
 * @toolmask/core unless `countTokens` is given), whatever a strategy counts internally.
 */
import {
  findRequestPoints,
  flattenSession,
  isColdRequest,
  type FlatContent,
  type RequestPoint,
} from './request-points.js';
import type { IdleGaps } from './idle-gaps.js';
import { summarizeRequests } from './summary.js';
import { ContentMeter, type ContentTokenCounter } from './content-meter.js';
import { billedTokens } from './pricing.js';
import { recordedCachedTokens, recordedRequests, summarizeRecorded } from './recorded-usage.js';
import type {
  Content,
  ReplayResult,
  ReplaySession,
  ReplayStrategy,
  RequestRow,
  StrategyReplay,
} from './types.js';
import { DEFAULT_CACHE_DISCOUNT } from './replay-defaults.js';

export interface ReplayOptions {
  /**
   * Price of a cached token relative to an uncached one.
   * @default 0.1
   */
  cacheDiscount?: number;
  /**
   * Price of a token that is not read from the cache (written to it), relative to an uncached
   * token with no cache: 1.25 under Anthropic's rules, 1 for OpenAI and Gemini (pricing.ts).
   * @default 1
   */
  cacheWritePrice?: number;
  /**
   * Price the first request of each chained task as warm (the person went on at once).
   * @default false
   */
  warmTaskStarts?: boolean;
  /**
   * Requests that follow an idle gap inside a task, per session id: priced cold, and the strategy
   * is told. @default none
   */
  idleGaps?: IdleGaps;
  /** Tokens of one content. @default estimateTokenCountSync(content.parts) */
  countTokens?: ContentTokenCounter;
  /** Called after each request of each strategy with the requests done and the total. */
  onProgress?: (done: number, total: number) => void;
  /** Milliseconds clock for pass times (for tests). @default performance.now */
  clock?: () => number;
}

export { DEFAULT_CACHE_DISCOUNT };

/** What every request of a replay is priced and clocked with. */
interface ReplayContext {
  cacheDiscount: number;
  cacheWritePrice: number;
  warmTaskStarts: boolean;
  idleGaps: IdleGaps | undefined;
  clock: () => number;
  meter: ContentMeter;
  /** Called after each request. */
  progress(): void;
}

/** A session as the engine plays it: its contents in order, its requests, their recorded usage. */
interface PreparedSession {
  session: ReplaySession;
  flat: FlatContent[];
  points: RequestPoint[];
  recorded: ReturnType<typeof recordedRequests>;
}

/**
 * One session through one strategy, request by request, its rows added to `rows`. Whether the
 * strategy reported its masked outputs (then every row says which, none included).
 */
async function replaySession(
  strategy: ReplayStrategy,
  { session, flat, points, recorded }: PreparedSession,
  context: ReplayContext,
  rows: RequestRow[],
): Promise<boolean> {
  const { meter } = context;
  const run = await strategy.startSession(session.id);
  let outputsReported = false;
  let consumed = 0;
  /** The last request sent: the history as the strategy masked it so far. */
  let previousRequest: readonly Content[] | undefined;
  for (const [requestIndex, point] of points.entries()) {
    const history = (previousRequest ?? []).concat(
      flat.slice(consumed, point.index).map((entry) => entry.content),
    );
    const pending = (flat[point.index] as { content: Content }).content;
    consumed = point.index + 1;
    const cacheCold = isColdRequest(point, requestIndex, {
      warmTaskStarts: context.warmTaskStarts,
      idleGaps: context.idleGaps?.get(session.id),
    });

    const started = context.clock();
    const outcome = await run.mask(history, pending, { cacheLikelyCold: cacheCold });
    const passMs = outcome.passMs ?? context.clock() - started;
    const request = outcome.contents;

    const contextTokens = meter.sum(request);
    const prefix = previousRequest ? meter.commonPrefix(previousRequest, request) : 0;
    const sharedPrefixTokens = meter.sum(request, prefix);
    const cachedTokens =
      recordedCachedTokens(recorded[requestIndex], sharedPrefixTokens) ??
      (cacheCold ? 0 : sharedPrefixTokens);
    const cacheBreak =
      !cacheCold && previousRequest !== undefined && prefix < previousRequest.length;
    previousRequest = request;

    const row: RequestRow = {
      session: session.id,
      task: point.task,
      request: requestIndex,
      contentCount: request.length,
      contextTokens,
      cachedTokens,
      billedTokens: billedTokens(
        contextTokens,
        cachedTokens,
        context.cacheDiscount,
        context.cacheWritePrice,
      ),
      cacheCold,
      cacheBreak,
      maskedCount: outcome.maskedCount,
      offloadedBytes: outcome.offloadedBytes,
      failures: outcome.failures,
      passMs,
    };
    if (outcome.notice) row.notice = outcome.notice;
    if (outcome.maskedOutputs) {
      outputsReported = true;
      if (outcome.maskedOutputs.length > 0) row.maskedOutputs = [...outcome.maskedOutputs];
    }
    rows.push(row);
    context.progress();
  }
  return outputsReported;
}

export async function replaySessions(
  sessions: readonly ReplaySession[],
  strategies: readonly ReplayStrategy[],
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const meter = new ContentMeter(options.countTokens);
  const prepared: PreparedSession[] = sessions.map((session) => {
    const flat = flattenSession(session);
    const points = findRequestPoints(flat);
    return { session, flat, points, recorded: recordedRequests(session, flat, points, meter) };
  });
  const total = prepared.reduce((sum, entry) => sum + entry.points.length, 0) * strategies.length;
  let done = 0;
  const context: ReplayContext = {
    cacheDiscount: options.cacheDiscount ?? DEFAULT_CACHE_DISCOUNT,
    cacheWritePrice: options.cacheWritePrice ?? 1,
    warmTaskStarts: options.warmTaskStarts ?? false,
    idleGaps: options.idleGaps,
    clock: options.clock ?? (() => performance.now()),
    meter,
    progress: () => options.onProgress?.(++done, total),
  };

  const replays: StrategyReplay[] = [];
  for (const strategy of strategies) {
    const rows: RequestRow[] = [];
    let outputsReported = false;
    for (const entry of prepared) {
      if (await replaySession(strategy, entry, context, rows)) outputsReported = true;
    }
    replays.push({
      name: strategy.name,
      summary: summarizeRequests(strategy.name, rows, { outputsReported }),
      requests: rows,
    });
  }

  const recordedUsage = summarizeRecorded(prepared.flatMap((entry) => entry.recorded));
  return {
    cacheDiscount: context.cacheDiscount,
    cacheWritePrice: context.cacheWritePrice,
    warmTaskStarts: context.warmTaskStarts,
    ...(recordedUsage ? { recordedUsage } : {}),
    sessions: prepared.map(({ session, flat, points }) => ({
      id: session.id,
      label: session.label,
      taskCount: session.tasks.length,
      contentCount: flat.length,
      requestCount: points.length,
    })),
    strategies: replays,
  };
}
