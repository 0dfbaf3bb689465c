/**
 * The running totals `GET /api/summary` answers (summary-route.ts): every model request this
 * gateway process recorded since it started, and the same per session signal (the launcher's
 * `x-toolmask-session` header, one per `toolmask gemini` / `toolmask qwen` run). The launchers
 * print a run's figures when its client exits; `toolmask status` prints the gateway's.
 *
 * In memory, fed by each usage record as it is made: exact for this process (the usage files of
 * the state folder may also hold other gateways' records: a launcher's private gateways share the
 * folder), O(1) to read, and gone at a restart, which the answer's `startedAt` and `instanceId` let
 * a reader notice. At most `MAX_SESSIONS` sessions are kept, the least recently used dropped first.
 */
import type { PriceRow } from './model-prices.js';
import { recordNet } from './net-figures.js';
import { sessionDigestOf } from './session-digest.js';
import type { UsageRecord } from './usage-record.js';

/** Sums over recorded model requests. Tokens are the provider's, `tokensKeptOut` toolmask's estimate. */
export interface UsageFigures {
  requests: number;
  /** Requests whose answer carried the provider's usage report (prompt and cached tokens). */
  requestsWithUsage: number;
  promptTokens: number;
  cachedTokens: number;
  /**
   * Net figures (net-figures.ts): the requests the provider reported cache figures for, and over
   * them what was billed and what would have been billed without masking, in input-token
   * equivalents at the provider's relative prices (reads and writes weighed). Net saved =
   * `billedWithoutMasking - billed` (negative: masking billed more).
   */
  requestsNetMeasured: number;
  billed: number;
  billedWithoutMasking: number;
  /**
   * The same in USD, over the measured requests whose model the price table has
   * (model-prices.ts); `requestsUnpriced` counts the others.
   */
  cost: number;
  costWithoutMasking: number;
  requestsUnpriced: number;
  /** Outputs masked by these requests' passes (each output counted once, when first masked). */
  maskedOutputs: number;
  /** Estimated tokens the masked outputs would have added to these requests whole. */
  tokensKeptOut: number;
  bytesOffloaded: number;
  failures: number;
  /** Requests whose upstream could not be reached, and the last such upstream (its origin). */
  unreachable: number;
  unreachableUpstream?: string;
  /**
   * A session's figures only: the client's own session id in its last request (Claude Code's,
   * Codex's, OpenCode's), what its resume command takes; kept in memory, never written.
   */
  clientSession?: string;
  /** Epoch ms of the first and the last request counted (absent when none). */
  firstAt?: number;
  lastAt?: number;
}

/** `GET /api/summary[?session=<session signal>]`. */
export interface UsageSummary {
  instanceId: string;
  /** Epoch ms the gateway started: what `gateway` counts from. */
  startedAt: number;
  now: number;
  gateway: UsageFigures;
  /** The session's figures, when a session was asked for (zeros when it made no request yet). */
  session?: UsageFigures;
}

export const MAX_SESSIONS = 1_000;

export function emptyFigures(): UsageFigures {
  return {
    requests: 0,
    requestsWithUsage: 0,
    promptTokens: 0,
    cachedTokens: 0,
    requestsNetMeasured: 0,
    billed: 0,
    billedWithoutMasking: 0,
    cost: 0,
    costWithoutMasking: 0,
    requestsUnpriced: 0,
    maskedOutputs: 0,
    tokensKeptOut: 0,
    bytesOffloaded: 0,
    failures: 0,
    unreachable: 0,
  };
}

function add(figures: UsageFigures, record: UsageRecord, price: PriceRow | undefined): void {
  figures.requests++;
  if (record.promptTokens !== undefined) {
    figures.requestsWithUsage++;
    figures.promptTokens += record.promptTokens;
    figures.cachedTokens += record.cachedTokens ?? 0;
  }
  const net = recordNet(record, price);
  if (net) {
    figures.requestsNetMeasured++;
    figures.billed += net.billed;
    figures.billedWithoutMasking += net.withoutMasking;
    if (net.cost !== undefined) {
      figures.cost += net.cost;
      figures.costWithoutMasking += net.costWithoutMasking ?? 0;
    } else {
      figures.requestsUnpriced++;
    }
  }
  figures.maskedOutputs += record.newlyMasked;
  figures.tokensKeptOut += record.tokensKeptOut;
  figures.bytesOffloaded += record.bytesOffloaded;
  figures.failures += record.failures;
  if (record.unreachable !== undefined) {
    figures.unreachable++;
    figures.unreachableUpstream = record.unreachable;
  }
  figures.firstAt = Math.min(figures.firstAt ?? record.at, record.at);
  figures.lastAt = Math.max(figures.lastAt ?? record.at, record.at);
}

export class UsageTally {
  private readonly total = emptyFigures();
  /** By session digest; a Map keeps insertion order, which `add` turns into recency. */
  private readonly sessions = new Map<string, UsageFigures>();

  /** `priceOf`: a model's prompt prices (model-prices.ts), for the money figures. */
  constructor(
    private readonly priceOf: (model: string) => PriceRow | undefined = () => undefined,
  ) {}

  /** Counts one usage record (`clientSession`: the client's own session id). Never throws. */
  add(record: UsageRecord, clientSession?: string): void {
    const price = this.priceOf(record.model);
    add(this.total, record, price);
    if (record.session === undefined) return;
    const figures = this.sessions.get(record.session) ?? emptyFigures();
    this.sessions.delete(record.session);
    this.sessions.set(record.session, figures);
    add(figures, record, price);
    if (clientSession) figures.clientSession = clientSession;
    if (this.sessions.size > MAX_SESSIONS) {
      this.sessions.delete(this.sessions.keys().next().value as string);
    }
  }

  /** The gateway's figures, or one session signal's (by its raw value, as the client sent it). */
  figures(session?: string): UsageFigures {
    if (session === undefined) return { ...this.total };
    return { ...(this.sessions.get(sessionDigestOf(session)) ?? emptyFigures()) };
  }
}
