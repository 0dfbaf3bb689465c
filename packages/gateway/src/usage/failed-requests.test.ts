/**
 * Failed and aborted requests: counted per session and in total, and listed newest first with
 * status and reason (the upstream's own message for a 4xx/5xx, the origin that could not be
 * reached, a client gone); a request that got its answer is neither.
 */
import { describe, expect, it } from 'vitest';
import { failedRequests } from './failed-requests.js';
import { upstreamErrorMessage } from './failure-reason.js';
import { summarizeSessions } from './sessions.js';
import type { UsageRecord } from './usage-record.js';

function record(at: number, conversationId: string, extra: Partial<UsageRecord> = {}): UsageRecord {
  return {
    ...{ at, conversationId, client: 'codex', front: 'openai-responses', model: 'gpt-5' },
    ...{ status: 200, maskedOutputs: 0, newlyMasked: 0, tokensKeptOut: 0, bytesOffloaded: 0 },
    ...{ failures: 0, cacheLikelyCold: false, gatewayMs: 1 },
    ...extra,
  };
}

describe('failed requests', () => {
  const records = [
    record(1, 'a', { prompt: 'fix it', folder: '/w' }),
    record(2, 'a', { status: 429, error: 'Rate limit reached for gpt-5' }),
    record(3, 'b', { status: 0, unreachable: 'http://127.0.0.1:9' }),
    record(4, 'b', { status: 200, aborted: true }),
    record(5, 'b', { status: 503 }),
    record(6, 'b'),
  ];

  it('are counted per session and in total, and listed newest first', () => {
    const report = summarizeSessions(records);
    const byId = Object.fromEntries(report.sessions.map((session) => [session.id, session]));
    expect(byId['a']?.failed).toBe(1);
    expect(byId['b']?.failed).toBe(3);
    expect(report.totals.failed).toBe(4);
    expect(byId['a']).toMatchObject({ prompt: 'fix it', folder: '/w' });
    expect(
      report.failedRequests.map(({ at, session, status, kind, reason }) => ({
        ...{ at, session, status, kind, reason },
      })),
    ).toEqual([
      {
        at: 5,
        session: 'b',
        status: 503,
        kind: 'upstream-error',
        reason: 'the upstream answered 503',
      },
      {
        ...{ at: 4, session: 'b', status: 200, kind: 'client-aborted' },
        reason: 'the client went away before the answer ended',
      },
      {
        ...{ at: 3, session: 'b', status: 0, kind: 'unreachable' },
        reason: 'upstream http://127.0.0.1:9 could not be reached',
      },
      {
        at: 2,
        session: 'a',
        status: 429,
        kind: 'upstream-error',
        reason: 'Rate limit reached for gpt-5',
      },
    ]);
  });

  it('the list is bounded, the counts are not', () => {
    const many = Array.from({ length: 80 }, (_, index) => record(index, 'c', { status: 500 }));
    expect(
      failedRequests(
        many,
        many.map(() => 'c'),
      ),
    ).toHaveLength(50);
    expect(summarizeSessions(many).totals.failed).toBe(80);
  });
});

describe('upstreamErrorMessage', () => {
  it("reads each API's error message, else the first line, bounded", () => {
    expect(
      upstreamErrorMessage(
        '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      ),
    ).toBe('Overloaded');
    expect(
      upstreamErrorMessage(
        '[{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}]',
      ),
    ).toBe('Quota exceeded');
    expect(upstreamErrorMessage('event: error\ndata: {"error":{"message":"bad key"}}\n\n')).toBe(
      'bad key',
    );
    expect(upstreamErrorMessage('<html>\nBad Gateway')).toBe('<html>');
    expect(upstreamErrorMessage('')).toBeUndefined();
    expect(upstreamErrorMessage(`{"error":"${'x'.repeat(500)}"}`)).toHaveLength(200);
  });
});
