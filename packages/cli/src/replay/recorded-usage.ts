/**
 * Usage a transcript recorded (OpenAI-style `usage` on the answers) and what replay does with it.
 *
 * Where the provider reported `cached_tokens` for a request, that request is priced with the cache
 * the provider really gave instead of the prefix model, for every strategy alike: a strategy is
 * cached at most what the provider cached of the recorded request (in the estimator's units:
 * `cached_tokens × estimated tokens of the recorded request / prompt_tokens`), and never more than
 * the prefix it kept unchanged since its own previous request (an edit breaks the cache there).
 * The recorded request is what `none` sends, so `none` is priced as the provider billed it.
 */
import type { ContentMeter } from './content-meter.js';
import type { FlatContent, RequestPoint } from './request-points.js';
import type { RecordedUsage, RecordedUsageSummary, ReplaySession } from './types.js';

/** Recorded usage of each request point that has one, with the recorded request's estimate. */
export interface RecordedRequest {
  usage: RecordedUsage;
  /** Tokens of the request as recorded (all contents up to the pending one), by the estimator. */
  estimatedTokens: number;
}

/** The recorded usage of the request at each point (undefined where the transcript has none). */
export function recordedRequests(
  session: ReplaySession,
  flat: readonly FlatContent[],
  points: readonly RequestPoint[],
  meter: ContentMeter,
): (RecordedRequest | undefined)[] {
  // Usage sits on the model content the request produced: the entry after the pending content.
  const usageByFlatIndex: (RecordedUsage | undefined)[] = [];
  for (const task of session.tasks) {
    task.contents.forEach((_, index) => usageByFlatIndex.push(task.recordedUsage?.[index]));
  }
  if (!usageByFlatIndex.some((usage) => usage !== undefined)) return points.map(() => undefined);

  const contents = flat.map((entry) => entry.content);
  return points.map((point) => {
    const answer = flat[point.index + 1];
    const usage = usageByFlatIndex[point.index + 1];
    if (!usage || answer?.content.role !== 'model' || answer.task !== point.task) return undefined;
    return { usage, estimatedTokens: meter.sum(contents, point.index + 1) };
  });
}

/**
 * Cached tokens of a strategy's request priced from the record, or undefined when the provider
 * did not report its cache for this request. `sharedPrefixTokens`: tokens of the leading contents
 * the request shares with the strategy's previous one (0 for the first).
 */
export function recordedCachedTokens(
  recorded: RecordedRequest | undefined,
  sharedPrefixTokens: number,
): number | undefined {
  const cached = recorded?.usage.cachedTokens;
  if (recorded === undefined || cached === undefined) return undefined;
  const { promptTokens } = recorded.usage;
  const scaled =
    promptTokens > 0 ? Math.round((cached * recorded.estimatedTokens) / promptTokens) : 0;
  return Math.min(scaled, sharedPrefixTokens);
}

export function summarizeRecorded(
  recorded: readonly (RecordedRequest | undefined)[],
): RecordedUsageSummary | undefined {
  const present = recorded.filter((entry): entry is RecordedRequest => entry !== undefined);
  if (present.length === 0) return undefined;
  return {
    requests: present.length,
    pricedFromRecord: present.filter((entry) => entry.usage.cachedTokens !== undefined).length,
    promptTokens: present.reduce((sum, entry) => sum + entry.usage.promptTokens, 0),
    cachedTokens: present.reduce((sum, entry) => sum + (entry.usage.cachedTokens ?? 0), 0),
    estimatedPromptTokens: present.reduce((sum, entry) => sum + entry.estimatedTokens, 0),
  };
}
