/**
 * `/api/sessions` gives each session its net figures and money: a Claude Code-like, a Codex-like
 * and a gemini-cli-like session, each billed by a fake with its provider's cache rules; every one
 * priced from the built-in table, and the totals their sums.
 */
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { BILLED_MODELS, billedSessionsThroughGateway } from '../test-utils/billed-sessions.js';
import { ownerHeaders } from '../test-utils/gemini-client.js';
import type { SessionsReport } from './sessions.js';

const cleanups = cleanUpAfterEach();

describe('/api/sessions net figures', () => {
  it('measures and prices a Claude, a GPT and a Gemini session', async () => {
    const { running, bill } = await billedSessionsThroughGateway(
      { toolProtectionThreshold: 3_000, minPrunableTokensThreshold: 6_000 },
      8,
      cleanups,
    );
    const answer = await fetch(`${running.url}/api/sessions`, { headers: ownerHeaders(running) });
    const report = (await answer.json()) as SessionsReport;
    const byModel = new Map(report.sessions.map((session) => [session.model, session]));
    const fakes = {
      claude: bill.anthropic.total('claude'),
      codex: bill.openai.total('codex'),
      gemini: bill.gemini.total('gemini'),
    };
    for (const kind of ['claude', 'codex', 'gemini'] as const) {
      const session = byModel.get(BILLED_MODELS[kind]);
      expect(session, kind).toBeDefined();
      expect(session!.requestsNetMeasured, kind).toBe(session!.requests);
      expect(session!.requestsUnpriced, kind).toBe(0);
      expect(session!.cost, kind).toBeGreaterThan(0);
      expect(session!.costWithoutMasking, kind).toBeGreaterThan(0);
      // What was billed is the fake's own bill (in input-token equivalents).
      expect(Math.round(session!.billed), kind).toBe(Math.round(fakes[kind].billed));
      expect(session!.maskedOutputs, kind).toBeGreaterThan(0);
    }
    const sum = report.sessions.reduce((total, session) => total + session.cost, 0);
    expect(report.totals.cost).toBeCloseTo(sum, 9);
    expect(report.totals.requestsNetMeasured).toBe(report.totals.requests);
  }, 60_000);
});
