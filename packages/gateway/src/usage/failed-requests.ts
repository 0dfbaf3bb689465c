/**
 * The requests that did not get a whole answer, as the dashboard lists them: the upstream could
 * not be reached (status 0, `unreachable`), it answered 4xx or 5xx (its own message when it sent
 * one, failure-reason.ts), or the client went away before the answer ended (`aborted`; status 0
 * without `unreachable` in records written before that mark existed). Pure: records in, rows out.
 */
import type { ClientKind, UsageRecord } from './usage-record.js';

/** The newest failed requests `/api/sessions` lists (each session counts all of its own). */
export const MAX_LISTED_FAILURES = 50;

export type FailureKind = 'unreachable' | 'upstream-error' | 'client-aborted';

export interface FailedRequest {
  at: number;
  /** The session it is shown in. */
  session: string;
  client: ClientKind;
  model: string;
  /** The upstream's status; 0 when there was none. */
  status: number;
  kind: FailureKind;
  /** What a person reads: the upstream's message, the origin that could not be reached, ... */
  reason: string;
}

/** Why `record` failed, or undefined when it got its answer. */
export function failureOf(record: UsageRecord): { kind: FailureKind; reason: string } | undefined {
  if (record.unreachable !== undefined) {
    return { kind: 'unreachable', reason: `upstream ${record.unreachable} could not be reached` };
  }
  if (record.status >= 400) {
    return {
      kind: 'upstream-error',
      reason: record.error ?? `the upstream answered ${record.status}`,
    };
  }
  if (record.aborted || record.status === 0) {
    return { kind: 'client-aborted', reason: 'the client went away before the answer ended' };
  }
  return undefined;
}

/** The failed requests among `records` (shown in `sessions[i]`), newest first, at most `max`. */
export function failedRequests(
  records: readonly UsageRecord[],
  sessions: readonly string[],
  max = MAX_LISTED_FAILURES,
): FailedRequest[] {
  const rows: FailedRequest[] = [];
  for (let index = records.length - 1; index >= 0 && rows.length < max; index--) {
    const record = records[index] as UsageRecord;
    const failure = failureOf(record);
    if (!failure) continue;
    rows.push({
      at: record.at,
      session: sessions[index] ?? record.conversationId,
      client: record.client,
      model: record.model,
      status: record.status,
      ...failure,
    });
  }
  return rows.sort((a, b) => b.at - a.at);
}
