/**
 * `/api/sessions`: the usage records folded per conversation, and the totals, as the dashboard
 * and scripts read them. Tokens are the provider's own counts; `tokensKeptOut` is toolmask's
 * estimate of what the masked outputs would have added whole.
 */
import type { ClientKind, UsageRecord } from './usage-record.js';

export interface SessionSummary {
  id: string;
  client: ClientKind;
  model: string;
  startedAt: number;
  lastAt: number;
  requests: number;
  promptTokens: number;
  cachedTokens: number;
  /** Prompt tokens of the newest request (the context now) and the largest. */
  contextTokens: number;
  peakContextTokens: number;
  /** cachedTokens / promptTokens over requests that reported usage. */
  cacheHitShare: number;
  maskedOutputs: number;
  tokensKeptOut: number;
  bytesOffloaded: number;
  failures: number;
}

export interface SessionsReport {
  totals: Omit<
    SessionSummary,
    'id' | 'client' | 'model' | 'startedAt' | 'lastAt' | 'contextTokens' | 'peakContextTokens'
  > & {
    sessions: number;
  };
  sessions: SessionSummary[];
}

export function summarizeSessions(records: readonly UsageRecord[]): SessionsReport {
  const byId = new Map<string, SessionSummary>();
  for (const record of records) {
    let session = byId.get(record.conversationId);
    if (!session) {
      session = {
        id: record.conversationId,
        client: record.client,
        model: record.model,
        startedAt: record.at,
        lastAt: record.at,
        requests: 0,
        promptTokens: 0,
        cachedTokens: 0,
        contextTokens: 0,
        peakContextTokens: 0,
        cacheHitShare: 0,
        maskedOutputs: 0,
        tokensKeptOut: 0,
        bytesOffloaded: 0,
        failures: 0,
      };
      byId.set(record.conversationId, session);
    }
    session.requests++;
    session.lastAt = Math.max(session.lastAt, record.at);
    session.model = record.model || session.model;
    if (record.promptTokens !== undefined) {
      session.promptTokens += record.promptTokens;
      session.cachedTokens += record.cachedTokens ?? 0;
      session.contextTokens = record.promptTokens;
      session.peakContextTokens = Math.max(session.peakContextTokens, record.promptTokens);
    }
    session.maskedOutputs += record.newlyMasked;
    session.tokensKeptOut += record.tokensKeptOut;
    session.bytesOffloaded += record.bytesOffloaded;
    session.failures += record.failures;
  }
  const sessions = [...byId.values()].sort((a, b) => b.lastAt - a.lastAt);
  const totals: SessionsReport['totals'] = {
    sessions: sessions.length,
    requests: 0,
    promptTokens: 0,
    cachedTokens: 0,
    cacheHitShare: 0,
    maskedOutputs: 0,
    tokensKeptOut: 0,
    bytesOffloaded: 0,
    failures: 0,
  };
  for (const session of sessions) {
    session.cacheHitShare =
      session.promptTokens > 0 ? session.cachedTokens / session.promptTokens : 0;
    totals.requests += session.requests;
    totals.promptTokens += session.promptTokens;
    totals.cachedTokens += session.cachedTokens;
    totals.maskedOutputs += session.maskedOutputs;
    totals.tokensKeptOut += session.tokensKeptOut;
    totals.bytesOffloaded += session.bytesOffloaded;
    totals.failures += session.failures;
  }
  totals.cacheHitShare = totals.promptTokens > 0 ? totals.cachedTokens / totals.promptTokens : 0;
  return { totals, sessions };
}
