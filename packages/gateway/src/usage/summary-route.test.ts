/**
 * `GET /api/summary`: the gateway's totals since it started, and one session signal's (the
 * launcher's header, given raw), equal to what `/api/sessions` folds from the same records; the
 * access secret is required; a session that made no request has zeros.
 */
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { ownerHeaders } from '../test-utils/gemini-client.js';
import { shellSessionThroughGateway } from '../test-utils/shell-session.js';
import type { SessionsReport } from './sessions.js';
import { sessionDigestOf } from './session-digest.js';
import { MAX_SESSIONS, UsageTally, emptyFigures, type UsageSummary } from './usage-tally.js';
import type { UsageRecord } from './usage-record.js';
import { usageRecordOf } from '../test-utils/usage-records.js';

const cleanups = cleanUpAfterEach();

describe('GET /api/summary', () => {
  it("counts the gateway's requests and a launch's by its session header", async () => {
    const { running } = await shellSessionThroughGateway(
      {
        settings: { toolProtectionThreshold: 4_000, minPrunableTokensThreshold: 2_000 },
        steps: 6,
        usage: (step) => ({ prompt: 1_000 * (step + 1), cached: 900 * step }),
        headers: { 'x-toolmask-session': 'launch-1' },
      },
      cleanups,
    );
    const owner = ownerHeaders(running);
    const answer = await fetch(`${running.url}/api/summary?session=launch-1`, { headers: owner });
    expect(answer.status).toBe(200);
    const summary = (await answer.json()) as UsageSummary;
    const report = (await (
      await fetch(`${running.url}/api/sessions`, { headers: owner })
    ).json()) as SessionsReport;
    expect(summary.gateway).toMatchObject({
      requests: report.totals.requests,
      maskedOutputs: report.totals.maskedOutputs,
      promptTokens: report.totals.promptTokens,
      cachedTokens: report.totals.cachedTokens,
      tokensKeptOut: report.totals.tokensKeptOut,
    });
    expect(summary.gateway.maskedOutputs).toBeGreaterThan(0);
    expect(summary.session).toEqual(summary.gateway);
    const other = (await (
      await fetch(`${running.url}/api/summary?session=another-launch`, { headers: owner })
    ).json()) as UsageSummary;
    expect(other.session).toEqual(emptyFigures());
    expect(other.instanceId).toBe(running.gateway.instanceId);
    // Figures of the owner's sessions: not without the secret.
    expect((await fetch(`${running.url}/api/summary`)).status).toBe(401);
    expect((await fetch(`${running.url}/api/summary?session=`, { headers: owner })).status).toBe(
      400,
    );
  });
});

describe('UsageTally', () => {
  it('keeps at most MAX_SESSIONS sessions, the least recently used dropped first', () => {
    const tally = new UsageTally();
    const record = (session: string): UsageRecord => ({
      ...usageRecordOf({ at: 1 }),
      // Records hold the digest of the session signal; the tally is asked with the raw value.
      session: sessionDigestOf(session),
    });
    tally.add(record('first'));
    tally.add(record('second'));
    for (let index = 0; index < MAX_SESSIONS - 2; index++) tally.add(record(`s${index}`));
    tally.add(record('first')); // used again: now the most recent
    tally.add(record('one more'));
    expect(tally.figures().requests).toBe(MAX_SESSIONS + 2);
    expect(tally.figures('first').requests).toBe(2);
    expect(tally.figures('second').requests).toBe(0);
    expect(tally.figures('one more').requests).toBe(1);
  });
});
