/**
 * The calibration the net figures rest on: in a Codex-like session (Responses API) whose fake
 * counts tokens its own way, the gateway's prediction of each prompt from the conversation's
 * measured tokens per character agrees with the tokens the provider then reports within 10%,
 * from the fourth request on.
 */
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { BILLED_MODELS, billedSessionsThroughGateway } from '../test-utils/billed-sessions.js';
import { ownerHeaders } from '../test-utils/gemini-client.js';
import type { SessionDetail, SessionsReport } from '../dashboard/api-types.js';

const cleanups = cleanUpAfterEach();

describe('calibration', () => {
  it('predicts a Codex session’s prompt tokens within 10% after three requests', async () => {
    const { running } = await billedSessionsThroughGateway(
      { toolProtectionThreshold: 3_000, minPrunableTokensThreshold: 6_000 },
      10,
      cleanups,
    );
    const get = async <T>(url: string) =>
      (await (await fetch(`${running.url}${url}`, { headers: ownerHeaders(running) })).json()) as T;
    const report = await get<SessionsReport>('/api/sessions');
    const codex = report.sessions.find((session) => session.model === BILLED_MODELS.codex)!;
    const detail = await get<SessionDetail>(`/api/sessions/${codex.id}`);
    expect(detail.requests.length).toBe(11);
    expect(detail.requests.some((request) => request.newlyMasked > 0)).toBe(true);
    for (const request of detail.requests.slice(3)) {
      const error =
        Math.abs(request.estimatedPromptTokens! - request.promptTokens!) / request.promptTokens!;
      expect(error).toBeLessThanOrEqual(0.1);
    }
    expect(detail.requests[0]!.estimatedPromptTokens).toBeUndefined();
  }, 60_000);
});
