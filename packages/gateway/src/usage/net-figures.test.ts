/**
 * The net figures against a fake that bills with Anthropic's prefix-cache rules: the same Claude
 * Code-like session, masked and unmasked, each through its own gateway and fake. The masked run's
 * "without masking" figure is the unmasked run's bill as the fake itself totalled it, and its
 * "billed" figure the masked run's; the unmasked run's two figures are equal.
 */
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { anthropicAnswer, toolResultsOf } from '@toolmask/test-support/fake-anthropic';
import { startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { anthropicUsageOf, PrefixCacheBill } from '@toolmask/test-support/fake-prefix-bill';
import { runClaudeLikeSession } from '../test-utils/claude-like-session.js';
import {
  gatewayFixture,
  ownerHeaders,
  settled,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import type { UsageSummary } from './usage-tally.js';

const cleanups = cleanUpAfterEach();
const STEPS = 12;
const SESSION = 'net-session';

async function billedSession(masking: boolean, charsPerToken: number) {
  const fixture = await gatewayFixture({
    enabled: masking,
    toolProtectionThreshold: 3_000,
    minPrunableTokensThreshold: 6_000,
  });
  cleanups.push(fixture.cleanup);
  const bill = new PrefixCacheBill({ rules: 'anthropic', arrayPath: ['messages'], charsPerToken });
  const upstream = await startFakeUpstream((request) => {
    if (request.path !== '/v1/messages') return { status: 404, json: { type: 'error' } };
    const step = toolResultsOf(request.json).length;
    const usage = anthropicUsageOf(bill.bill(SESSION, request.json));
    return step < STEPS
      ? anthropicAnswer(
          [{ toolUse: { id: `toolu_${step}`, name: 'Bash', input: { command: `make ${step}` } } }],
          usage,
        )
      : anthropicAnswer([{ text: 'All built.' }], usage);
  });
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { anthropic: upstream.url },
  });
  cleanups.push(() => running.close());
  await runClaudeLikeSession(running.url, { session: SESSION });
  await settled(running);
  const answer = await fetch(`${running.url}/api/summary`, { headers: ownerHeaders(running) });
  const summary = (await answer.json()) as UsageSummary;
  return { figures: summary.gateway, bill: bill.total(SESSION) };
}

describe('net figures', () => {
  it.each([1, 4])(
    'match the fake’s own bills, masked and unmasked (%i characters a token)',
    async (charsPerToken) => {
      const masked = await billedSession(true, charsPerToken);
      const unmasked = await billedSession(false, charsPerToken);
      expect(masked.figures.maskedOutputs).toBeGreaterThan(0);
      expect(masked.figures.requestsNetMeasured).toBe(STEPS + 1);
      // What was billed is the provider's report: the fake's bill to the token.
      expect(Math.round(masked.figures.billed)).toBe(Math.round(masked.bill.billed));
      expect(Math.round(unmasked.figures.billed)).toBe(Math.round(unmasked.bill.billed));
      expect(unmasked.figures.billedWithoutMasking).toBe(unmasked.figures.billed);
      // In USD at claude-opus-5-5's prices (the session's model): $0.20 a read, $5 a write per 1M.
      const usd = (bill: { read: number; write: number }) =>
        (bill.read * 0.2 + bill.write * 5) / 1e6;
      expect(masked.figures.cost).toBeCloseTo(usd(masked.bill), 9);
      expect(masked.figures.requestsUnpriced).toBe(0);
      // Without masking: the unmasked run's own bill, to the token when a token is a character;
      // at 4 a token the fake rounds each request's count, the gateway its calibrated estimate.
      const tolerance = charsPerToken === 1 ? 0 : STEPS + 1;
      const estimated = Math.round(masked.figures.billedWithoutMasking);
      expect(Math.abs(estimated - Math.round(unmasked.bill.billed))).toBeLessThanOrEqual(tolerance);
      console.log(
        `${charsPerToken} chars/token: billed ${Math.round(masked.bill.billed)} masked, ${Math.round(unmasked.bill.billed)} unmasked (fake); gateway's without-masking ${estimated}`,
      );
    },
    60_000,
  );
});
