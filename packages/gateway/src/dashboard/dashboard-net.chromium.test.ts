/**
 * The dashboard's net figures in real headless Chromium at 1400 px: a Claude Code-like, a
 * Codex-like and a gemini-cli-like session through one gateway, each billed by a fake with its
 * provider's prefix-cache rules. Each session's row shows a money figure against no masking (its
 * model priced by the server's table), equal to what `/api/sessions` gives; the overview's card
 * shows the total; nothing overflows.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM_SKIP_MESSAGE,
  chromiumAvailable,
  launchChromium,
  overflowingElements,
  watchedPage,
} from '@toolmask/test-support/browser';
import type { RunningGateway } from '../listen-gateway.js';
import { BILLED_MODELS, billedSessionsThroughGateway } from '../test-utils/billed-sessions.js';
import { ownerHeaders } from '../test-utils/gemini-client.js';
import { drawn } from '../test-utils/dashboard-views.js';
import type { SessionsReport } from './api-types.js';

if (!chromiumAvailable)
  console.warn(`[toolmask] dashboard net browser test ${CHROMIUM_SKIP_MESSAGE}`);

describe.skipIf(!chromiumAvailable)('the dashboard’s net figures in headless Chromium', () => {
  let browser: Browser;
  let running: RunningGateway;
  const started: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    ({ running } = await billedSessionsThroughGateway(
      { toolProtectionThreshold: 3_000, minPrunableTokensThreshold: 6_000 },
      8,
      started,
    ));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const stop of started.reverse()) await stop();
  });

  it('shows a money figure for a Claude, a GPT and a Gemini session at 1400 px', async () => {
    const answer = await fetch(`${running.url}/api/sessions`, { headers: ownerHeaders(running) });
    const report = (await answer.json()) as SessionsReport;
    const { page, problems } = await watchedPage(browser, 1400);
    await page.goto(running.dashboardUrl);
    await drawn(page, 'overview');
    for (const model of Object.values(BILLED_MODELS)) {
      const session = report.sessions.find((candidate) => candidate.model === model)!;
      expect(session, model).toBeDefined();
      const cell = page.locator(
        `.session-row[data-session="${session.id}"] [data-column="netSavedTokens"] span`,
      );
      const saved = session.costWithoutMasking - session.cost;
      expect(Number(await cell.getAttribute('data-net')), model).toBeCloseTo(saved, 9);
      expect(await cell.textContent(), model).toMatch(/^\$\d+\.\d+ (less|more)$/);
    }
    const card = page.locator('.cards [data-metric="netSaved"]');
    expect(Number(await card.getAttribute('data-value'))).toBeCloseTo(
      report.totals.costWithoutMasking - report.totals.cost,
      9,
    );
    expect(await card.textContent()).toMatch(/^\$\d+\.\d+ (less|more)$/);
    expect(await overflowingElements(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
