/**
 * `/api/sessions`: the usage records folded per session, and the totals, as the dashboard and
 * scripts read them. A session is a conversation with the side requests made for it folded in
 * (session-of.ts). Tokens are the provider's own counts; `tokensKeptOut` is toolmask's estimate of
 * what the masked outputs would have added whole.
 */
import { failedRequests, failureOf, type FailedRequest } from './failed-requests.js';
import type { PriceRow } from './model-prices.js';
import { recordNet } from './net-figures.js';
import { sessionOf } from './session-of.js';
import type { ClientKind, UsageRecord } from './usage-record.js';

export interface SessionSummary {
  id: string;
  client: ClientKind;
  model: string;
  startedAt: number;
  lastAt: number;
  /**
   * The person's first prompt and the working folder, as the session's first request named them
   * (request-facts.ts; a side request's only when the session has nothing else).
   */
  prompt?: string;
  folder?: string;
  /** Every request, side requests included. */
  requests: number;
  /** Of those, side requests (a router call, a next-speaker check, a title): counted, not charted. */
  sideRequests: number;
  /** Nothing but side requests, with no session found to fold them into. */
  sideOnly?: true;
  promptTokens: number;
  cachedTokens: number;
  /**
   * Prompt tokens written to the provider's cache, summed over the requests whose provider reports
   * them (Anthropic); 0 for the others, which the dashboard then leaves out.
   */
  cacheWriteTokens: number;
  /** Prompt tokens of the newest request (the context now) and the largest; side requests aside. */
  contextTokens: number;
  peakContextTokens: number;
  /** cachedTokens / promptTokens over requests that reported usage. */
  cacheHitShare: number;
  maskedOutputs: number;
  tokensKeptOut: number;
  /**
   * Net billed against no masking, from the provider's usage (net-figures.ts, as in
   * `/api/summary`): over the requests with cache figures, billed and billed without masking in
   * input-token equivalents, and in USD over those whose model has a price.
   */
  requestsNetMeasured: number;
  billed: number;
  billedWithoutMasking: number;
  /** `billedWithoutMasking - billed`: what masking saved (negative: what it cost). */
  netSavedTokens: number;
  cost: number;
  costWithoutMasking: number;
  requestsUnpriced: number;
  bytesOffloaded: number;
  failures: number;
  /** Requests whose upstream could not be reached, and the last such upstream (its origin). */
  unreachable: number;
  unreachableUpstream?: string;
  /** Requests without a whole answer: unreachable, 4xx/5xx, left by the client (failed-requests.ts). */
  failed: number;
}

export interface SessionsReport {
  totals: Omit<
    SessionSummary,
    | 'id'
    | 'client'
    | 'model'
    | 'startedAt'
    | 'lastAt'
    | 'contextTokens'
    | 'peakContextTokens'
    | 'sideOnly'
    | 'unreachableUpstream'
    | 'prompt'
    | 'folder'
  > & {
    sessions: number;
  };
  sessions: SessionSummary[];
  /** The newest failed requests (failed-requests.ts), newest first. */
  failedRequests: FailedRequest[];
}

export function summarizeSessions(
  records: readonly UsageRecord[],
  priceOf: (model: string) => PriceRow | undefined = () => undefined,
): SessionsReport {
  const byId = new Map<string, SessionSummary>();
  const ids = sessionOf(records);
  const withMain = new Set(ids.filter((id, index) => !records[index]?.side));
  records.forEach((record, index) => {
    const id = ids[index] as string;
    let session = byId.get(id);
    if (!session) {
      session = emptySession(id, record, !withMain.has(id));
      byId.set(id, session);
    }
    addRecord(session, record, withMain.has(id));
    addNet(session, record, priceOf(record.model));
  });
  const sessions = [...byId.values()].sort((a, b) => b.lastAt - a.lastAt);
  for (const session of sessions) {
    session.cacheHitShare =
      session.promptTokens > 0 ? session.cachedTokens / session.promptTokens : 0;
  }
  return { totals: totalsOf(sessions), sessions, failedRequests: failedRequests(records, ids) };
}

/** A session as its first record starts it. */
function emptySession(id: string, first: UsageRecord, sideOnly: boolean): SessionSummary {
  return {
    id,
    client: first.client,
    model: '',
    startedAt: first.at,
    lastAt: first.at,
    requests: 0,
    sideRequests: 0,
    ...(sideOnly ? { sideOnly: true as const } : {}),
    promptTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    contextTokens: 0,
    peakContextTokens: 0,
    cacheHitShare: 0,
    maskedOutputs: 0,
    tokensKeptOut: 0,
    ...emptyNet(),
    bytesOffloaded: 0,
    failures: 0,
    unreachable: 0,
    failed: 0,
  };
}

type NetFigures = Pick<
  SessionSummary,
  | 'requestsNetMeasured'
  | 'billed'
  | 'billedWithoutMasking'
  | 'netSavedTokens'
  | 'cost'
  | 'costWithoutMasking'
  | 'requestsUnpriced'
>;

function emptyNet(): NetFigures {
  return {
    requestsNetMeasured: 0,
    billed: 0,
    billedWithoutMasking: 0,
    netSavedTokens: 0,
    cost: 0,
    costWithoutMasking: 0,
    requestsUnpriced: 0,
  };
}

function addNet(net: NetFigures, record: UsageRecord, price: PriceRow | undefined): void {
  const figures = recordNet(record, price);
  if (!figures) return;
  net.requestsNetMeasured++;
  net.billed += figures.billed;
  net.billedWithoutMasking += figures.withoutMasking;
  net.netSavedTokens = net.billedWithoutMasking - net.billed;
  if (figures.cost === undefined) {
    net.requestsUnpriced++;
  } else {
    net.cost += figures.cost;
    net.costWithoutMasking += figures.costWithoutMasking ?? 0;
  }
}

function sumNet(total: NetFigures, session: NetFigures): void {
  total.requestsNetMeasured += session.requestsNetMeasured;
  total.billed += session.billed;
  total.billedWithoutMasking += session.billedWithoutMasking;
  total.netSavedTokens = total.billedWithoutMasking - total.billed;
  total.cost += session.cost;
  total.costWithoutMasking += session.costWithoutMasking;
  total.requestsUnpriced += session.requestsUnpriced;
}

/** One more record of the session (`hasMain`: the session has requests that are not side ones). */
function addRecord(session: SessionSummary, record: UsageRecord, hasMain: boolean): void {
  session.requests++;
  session.startedAt = Math.min(session.startedAt, record.at);
  session.lastAt = Math.max(session.lastAt, record.at);
  if (record.side) session.sideRequests++;
  // The session's model and context are its own requests': a router's prompt is not the
  // session's context. A session of side requests alone has nothing else to show.
  if (!record.side || !hasMain) {
    // The first request that names them (a conversation's first request).
    if (session.prompt === undefined && record.prompt) session.prompt = record.prompt;
    if (session.folder === undefined && record.folder) session.folder = record.folder;
    session.client = record.client;
    session.model = record.model || session.model;
    if (record.promptTokens !== undefined) {
      session.contextTokens = record.promptTokens;
      session.peakContextTokens = Math.max(session.peakContextTokens, record.promptTokens);
    }
  }
  if (record.promptTokens !== undefined) {
    session.promptTokens += record.promptTokens;
    session.cachedTokens += record.cachedTokens ?? 0;
    session.cacheWriteTokens += record.cacheWriteTokens ?? 0;
  }
  session.maskedOutputs += record.newlyMasked;
  session.tokensKeptOut += record.tokensKeptOut;
  session.bytesOffloaded += record.bytesOffloaded;
  session.failures += record.failures;
  if (record.unreachable !== undefined) {
    session.unreachable++;
    session.unreachableUpstream = record.unreachable;
  }
  if (failureOf(record)) session.failed++;
}

/** The sums over every session. */
function totalsOf(sessions: readonly SessionSummary[]): SessionsReport['totals'] {
  const totals: SessionsReport['totals'] = {
    sessions: sessions.length,
    requests: 0,
    sideRequests: 0,
    promptTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    cacheHitShare: 0,
    maskedOutputs: 0,
    tokensKeptOut: 0,
    ...emptyNet(),
    bytesOffloaded: 0,
    failures: 0,
    unreachable: 0,
    failed: 0,
  };
  for (const session of sessions) {
    sumNet(totals, session);
    totals.requests += session.requests;
    totals.sideRequests += session.sideRequests;
    totals.promptTokens += session.promptTokens;
    totals.cachedTokens += session.cachedTokens;
    totals.cacheWriteTokens += session.cacheWriteTokens;
    totals.maskedOutputs += session.maskedOutputs;
    totals.tokensKeptOut += session.tokensKeptOut;
    totals.bytesOffloaded += session.bytesOffloaded;
    totals.failures += session.failures;
    totals.unreachable += session.unreachable;
    totals.failed += session.failed;
  }
  totals.cacheHitShare = totals.promptTokens > 0 ? totals.cachedTokens / totals.promptTokens : 0;
  return totals;
}
