/**
 * Side requests folded into their sessions (session-of.ts, sessions.ts): by session signal
 * whatever the gap, by time without one, never into another run's session; a side request with
 * nowhere to go stays a session of its own, marked; the totals are every request's.
 */
import { describe, expect, it } from 'vitest';
import { NEAR_MS, sessionOf } from './session-of.js';
import { summarizeSessions } from './sessions.js';
import type { UsageRecord } from './usage-record.js';
import { usageRecordOf } from '../test-utils/usage-records.js';

function record(conversationId: string, at: number, extra: Partial<UsageRecord> = {}): UsageRecord {
  return usageRecordOf({
    ...{ at, conversationId, client: 'gemini-cli', model: 'gemini-2.5-pro' },
    ...{ promptTokens: 1_000, cachedTokens: 0, gatewayMs: 1 },
    ...extra,
  });
}

const router = (id: string, at: number, session?: string) =>
  record(id, at, {
    side: true,
    model: 'gemini-2.5-flash-lite',
    promptTokens: 40,
    ...(session ? { session } : {}),
  });

describe('side requests and their sessions', () => {
  it('two runs with a router call each are two sessions', () => {
    const records = [
      router('r1', 1_000, 's1'),
      record('main1', 2_000, { session: 's1' }),
      record('main1', 3_000, { session: 's1' }),
      router('r2', 10_000, 's2'),
      record('main2', 11_000, { session: 's2', model: 'gemini-2.5-flash' }),
    ];
    expect(sessionOf(records)).toEqual(['main1', 'main1', 'main1', 'main2', 'main2']);
    const report = summarizeSessions(records);
    expect(report.sessions.map((s) => [s.id, s.model, s.requests, s.sideRequests])).toEqual([
      ['main2', 'gemini-2.5-flash', 2, 1],
      ['main1', 'gemini-2.5-pro', 3, 1],
    ]);
    // The context is the session's own prompt; the router's tokens still count.
    expect(report.sessions[1]).toMatchObject({
      contextTokens: 1_000,
      peakContextTokens: 1_000,
      promptTokens: 2_040,
    });
    expect(report.totals).toMatchObject({ sessions: 2, requests: 5, sideRequests: 2 });
  });

  it('the same session signal folds whatever the gap; another signal never does', () => {
    const records = [
      record('main1', 0, { session: 's1' }),
      record('main2', 0, { session: 's2' }),
      router('r', 10 * NEAR_MS, 's1'),
    ];
    expect(sessionOf(records)[2]).toBe('main1');
  });

  it('without a signal: the nearest session of the same client within NEAR_MS', () => {
    const records = [
      record('near', 10_000),
      record('far', 0, { client: 'qwen-code' }),
      router('r1', 10_000 + NEAR_MS),
      router('r2', 10_000 + NEAR_MS + 1),
    ];
    expect(sessionOf(records)).toEqual(['near', 'far', 'near', 'r2']);
    const lonely = summarizeSessions(records).sessions.find((s) => s.id === 'r2');
    expect(lonely).toMatchObject({ sideOnly: true, requests: 1, sideRequests: 1 });
    expect(lonely?.model).toBe('gemini-2.5-flash-lite');
  });

  it("a side request in its own conversation's history stays there (a next-speaker check)", () => {
    const records = [record('main', 0), { ...router('main', 1), side: true as const }];
    expect(sessionOf(records)).toEqual(['main', 'main']);
    const [session] = summarizeSessions(records).sessions;
    expect(session).toMatchObject({ requests: 2, sideRequests: 1, contextTokens: 1_000 });
    expect(session?.sideOnly).toBeUndefined();
  });
});
