/**
 * Measures the schedule model of optimal-schedule.ts from the real pass, so the optimum keeps the
 * policy's own windows, snippets and "worth masking" rule.
 *
 * The strategy is replayed with every request flagged cold (`withColdSignal(strategy, true)`) and
 * observed (masking-moments.ts): each pass then masks everything prunable at that request, which
 * is exactly what an event there would do. Once with the policy's warm window and once with its
 * cold-moment window (the same run when they are equal). What an event masks grows with the
 * history and is never undone, so each run's masked outputs form a prefix in history order; the
 * builder checks that and throws if not.
 *
 * An output masked in the very request that first sends it (the size guard offloads a giant
 * output before it is ever sent) is masked so in every schedule: it is not part of the schedule,
 * and its content is counted with its snippet from the start.
 *
 * Token counts use one counter for contents and single parts; the model assumes a content's
 * tokens are the sum of its parts' (true of the replay's default counter).
 */
import { findRequestPoints, flattenSession, isColdRequest } from '../request-points.js';
import type { ColdRequestRule } from '../request-points.js';
import { defaultContentTokenCounter, type ContentTokenCounter } from '../content-meter.js';
import type { MaskingMoment } from '../masking-moments.js';
import type { Part, ReplaySession } from '../types.js';
import type { ScheduleModel } from './optimal-schedule.js';

export interface ScheduleModelInput {
  session: ReplaySession;
  /** The replay's cold requests (warm task starts, idle gaps). */
  rule?: ColdRequestRule;
  /** Moments of the every-request-cold run with the warm window. */
  warmWindowMoments: readonly MaskingMoment[];
  /** Moments of the every-request-cold run with the cold-moment window. @default warmWindowMoments */
  coldWindowMoments?: readonly MaskingMoment[];
  countTokens?: ContentTokenCounter;
}

const positionKey = (moment: MaskingMoment) => `${moment.contentIndex}:${moment.partIndex}`;

/** Masked before it was ever sent: the request's own pending content (see the module comment). */
function maskedWhenSent(moment: MaskingMoment, requestLengths: readonly number[]): boolean {
  return moment.contentIndex === (requestLengths[moment.request] as number) - 1;
}

/** Per request, how many outputs of `order` the run had masked; checks they form a prefix. */
function eventEnds(
  moments: readonly MaskingMoment[],
  order: ReadonlyMap<string, number>,
  requests: number,
  label: string,
): number[] {
  const firstMasked = new Map<number, number>();
  for (const moment of moments) {
    const position = order.get(positionKey(moment)) as number;
    if (!firstMasked.has(position)) firstMasked.set(position, moment.request);
  }
  const positions = [...firstMasked.keys()].sort((a, b) => a - b);
  positions.forEach((position, index) => {
    const previous = positions[index - 1];
    if (
      position !== index ||
      (previous !== undefined &&
        (firstMasked.get(previous) as number) > (firstMasked.get(position) as number))
    ) {
      throw new Error(`schedule model: the ${label} run did not mask a prefix of the outputs`);
    }
  });
  const ends: number[] = [];
  let masked = 0;
  for (let request = 0; request < requests; request++) {
    while (masked < positions.length && (firstMasked.get(masked) as number) <= request) masked++;
    ends.push(masked);
  }
  return ends;
}

export function buildScheduleModel(input: ScheduleModelInput): ScheduleModel {
  const countTokens = input.countTokens ?? defaultContentTokenCounter;
  const partTokens = (part: Part) => countTokens({ role: 'user', parts: [part] });
  const flat = flattenSession(input.session);
  const points = findRequestPoints(flat);
  const requestLengths = points.map((point) => point.index + 1);
  const coldWindowMoments = input.coldWindowMoments ?? input.warmWindowMoments;
  const savedTokens = (moment: MaskingMoment) =>
    partTokens(moment.original) - partTokens(moment.masked);

  const contentTokens = flat.map((entry) => countTokens(entry.content));
  const byPosition = new Map<string, MaskingMoment>();
  const sentMasked = new Set<string>();
  for (const moment of [...coldWindowMoments, ...input.warmWindowMoments]) {
    const key = positionKey(moment);
    if (maskedWhenSent(moment, requestLengths)) {
      if (sentMasked.has(key)) continue;
      sentMasked.add(key);
      contentTokens[moment.contentIndex] =
        (contentTokens[moment.contentIndex] as number) - savedTokens(moment);
    } else if (!byPosition.has(key)) {
      byPosition.set(key, moment);
    }
  }
  const prefixTokens = [0];
  for (const tokens of contentTokens) prefixTokens.push((prefixTokens.at(-1) as number) + tokens);
  const sorted = [...byPosition.values()].sort(
    (a, b) => a.contentIndex - b.contentIndex || a.partIndex - b.partIndex,
  );
  const order = new Map(sorted.map((moment, index) => [positionKey(moment), index]));
  const scheduled = (moments: readonly MaskingMoment[]) =>
    moments.filter((moment) => !sentMasked.has(positionKey(moment)));

  return {
    prefixTokens,
    requestLengths,
    cold: points.map((point, index) => isColdRequest(point, index, input.rule ?? {})),
    outputs: sorted.map((moment) => ({
      contentIndex: moment.contentIndex,
      partIndex: moment.partIndex,
      savedTokens: savedTokens(moment),
    })),
    warmEventEnds: eventEnds(
      scheduled(input.warmWindowMoments),
      order,
      points.length,
      'warm-window',
    ),
    coldEventEnds: eventEnds(scheduled(coldWindowMoments), order, points.length, 'cold-window'),
  };
}

/**
 * The schedule of a run observed on the same session (the masked prefix after each request), to
 * price it with `scheduleCost`. Throws if it masked an output the model does not know, or not a
 * prefix.
 */
export function observedStates(model: ScheduleModel, moments: readonly MaskingMoment[]): number[] {
  const order = new Map(
    model.outputs.map((output, index) => [`${output.contentIndex}:${output.partIndex}`, index]),
  );
  const scheduled = moments.filter((moment) => !maskedWhenSent(moment, model.requestLengths));
  for (const moment of scheduled) {
    if (!order.has(positionKey(moment))) {
      throw new Error(`schedule model: the observed run masked an output the model does not know`);
    }
  }
  return eventEnds(scheduled, order, model.requestLengths.length, 'observed');
}
