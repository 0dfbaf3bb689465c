/**
 * Cache writes on the dashboard, in real headless Chromium: with only a Gemini session, the page
 * has no cache-write column, card or band (Gemini reports none); once a Claude Code session went
 * through the Anthropic front, the sessions table has the column (its figure on that row, nothing
 * on Gemini's), and its session view has the card next to the cache hits and the written band
 * over the cached one in the chart. The Gemini session's view still shows none of it.
 *
 * Screenshots go to `.tmp/artifacts/dashboard/` (`dashboard-cache-writes-*.png`).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM_SKIP_MESSAGE,
  chromiumAvailable,
  launchChromium,
  overflowingElements,
  watchedPage,
} from '@toolmask/test-support/browser';
import { shellCallingUpstream, type FakeUpstream } from '@toolmask/test-support/fake-upstream';
import type { RunningGateway } from '../listen-gateway.js';
import { claudeLikeUpstream, runClaudeLikeSession } from '../test-utils/claude-like-session.js';
import {
  gatewayFixture,
  ownerHeaders,
  runGeminiClient,
  settled,
  shellOutput,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import { drawn, openSession } from '../test-utils/dashboard-views.js';
import type { SessionsReport } from './api-types.js';

const ARTIFACTS = fileURLToPath(new URL('../../../../.tmp/artifacts/dashboard/', import.meta.url));
const CLAUDE_STEPS = 6;
/** Reads grow with the conversation; writes are the new tail each request. */
const claudeUsage = (step: number) => ({
  input: 300,
  cacheRead: 6_000 * step,
  cacheWrite: 2_500 + 100 * step,
});

if (!chromiumAvailable)
  console.warn(`[toolmask] cache-write browser tests ${CHROMIUM_SKIP_MESSAGE}`);

async function sessionsReport(running: RunningGateway): Promise<SessionsReport> {
  const answer = await fetch(`${running.url}/api/sessions`, { headers: ownerHeaders(running) });
  return (await answer.json()) as SessionsReport;
}

async function screenshot(page: Page, name: string): Promise<void> {
  await fs.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

describe.skipIf(!chromiumAvailable)('cache writes on the dashboard', () => {
  let browser: Browser;
  let running: RunningGateway;
  const upstreams: FakeUpstream[] = [];
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const fixture = await gatewayFixture({
      toolProtectionThreshold: 4_000,
      minPrunableTokensThreshold: 2_000,
    });
    cleanup = fixture.cleanup;
    const gemini = await shellCallingUpstream(4, (step) => ({
      prompt: 2_000 * (step + 1),
      cached: 1_500 * step,
    }));
    const anthropic = await claudeLikeUpstream(CLAUDE_STEPS, claudeUsage);
    upstreams.push(gemini, anthropic);
    running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { gemini: gemini.url, anthropic: anthropic.url },
    });
    await runGeminiClient({
      url: `${running.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
      prompt: 'build it',
      outputFor: (call) => ({ output: shellOutput(call.id) }),
      maxRequests: 8,
      headers: { 'user-agent': 'GeminiCLI-tui/0.61.0/gemini-2.5-flash (linux; x64; terminal)' },
    });
    await settled(running);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await running?.close();
    for (const upstream of upstreams) await upstream.close();
    await cleanup?.();
  });

  it('a Gemini session alone: no cache-write column, card or band', async () => {
    const { page, problems } = await watchedPage(browser, 1400);
    await page.goto(running.dashboardUrl);
    await drawn(page, 'overview');
    expect(await page.locator('.session-row').count()).toBe(1);
    expect(await page.locator('th [data-sort="cacheWriteTokens"]').count()).toBe(0);
    expect(await page.locator('.cards [data-metric="cacheWriteTokens"]').count()).toBe(0);
    await openSession(page, running, 'gemini-cli');
    expect(await page.locator('.cards [data-metric="cacheHitShare"]').count()).toBe(1);
    expect(await page.locator('.cards [data-metric="cacheWriteTokens"]').count()).toBe(0);
    expect(await page.locator('polygon.written-area').count()).toBe(0);
    expect(await page.locator('.legend .swatch.written').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('with a Claude Code session: its writes in the table, on its card and in its chart; still none for Gemini', async () => {
    expect(await runClaudeLikeSession(running.url)).toBe(CLAUDE_STEPS + 1);
    await settled(running);
    const report = await sessionsReport(running);
    const claude = report.sessions.find((session) => session.client === 'claude-code')!;
    const writes = Array.from({ length: CLAUDE_STEPS + 1 }, (_, step) => claudeUsage(step))
      .map((usage) => usage.cacheWrite)
      .reduce((sum, value) => sum + value, 0);
    expect(claude.cacheWriteTokens).toBe(writes);

    const { page, problems } = await watchedPage(browser, 1400);
    await page.goto(running.dashboardUrl);
    await drawn(page, 'overview');
    // The column is there, next to the cache hits; the Claude row has its figure, Gemini's none.
    const headers = await page.locator('#sessions-table th button.sort').allTextContents();
    const hits = headers.findIndex((text) => text.startsWith('Cache hits'));
    expect(headers[hits + 1]).toMatch(/^Cache writes/);
    const cell = (client: string) =>
      page
        .locator('.session-row', { has: page.locator(`td.client:text-is("${client}")`) })
        .locator('td[data-column="cacheWriteTokens"]');
    expect(await cell('claude-code').textContent()).toBe(writes.toLocaleString('en-US'));
    expect(await cell('gemini-cli').textContent()).toBe('');
    expect(
      Number(
        await page.locator('.cards [data-metric="cacheWriteTokens"]').getAttribute('data-value'),
      ),
    ).toBe(writes);
    expect(await overflowingElements(page)).toEqual([]);
    await screenshot(page, 'dashboard-cache-writes-overview-1400');

    await openSession(page, running, 'claude-code');
    const card = page.locator('.cards [data-metric="cacheWriteTokens"]');
    expect(Number(await card.getAttribute('data-value'))).toBe(writes);
    expect(await card.textContent()).toBe(writes.toLocaleString('en-US'));
    // Next to the cache hits.
    const cards = await page
      .locator('.cards .card-value')
      .evaluateAll((values) => values.map((value) => value.getAttribute('data-metric')));
    expect(cards[cards.indexOf('cacheHitShare') + 1]).toBe('cacheWriteTokens');
    expect(await page.locator('polygon.written-area').count()).toBe(1);
    expect(await page.locator('polygon.cached-area').count()).toBe(1);
    expect(await page.locator('.legend').textContent()).toContain('written to cache');
    expect(
      await page.locator('circle[data-series="sent"]').first().locator('title').textContent(),
    ).toContain(`${claudeUsage(0).cacheWrite.toLocaleString('en-US')} written to cache`);
    expect(await overflowingElements(page)).toEqual([]);
    await screenshot(page, 'dashboard-cache-writes-session-1400');

    await openSession(page, running, 'gemini-cli');
    expect(await page.locator('.cards [data-metric="cacheWriteTokens"]').count()).toBe(0);
    expect(await page.locator('polygon.written-area').count()).toBe(0);
    expect(await page.locator('.legend').textContent()).not.toContain('written');
    expect(problems).toEqual([]);
    await page.close();

    // The extra column still fits a narrow window.
    const narrow = await watchedPage(browser, 700);
    await narrow.page.goto(running.dashboardUrl);
    await drawn(narrow.page, 'overview');
    expect(await narrow.page.locator('th [data-sort="cacheWriteTokens"]').count()).toBe(1);
    expect(await overflowingElements(narrow.page)).toEqual([]);
    await screenshot(narrow.page, 'dashboard-cache-writes-overview-700');
    expect(narrow.problems).toEqual([]);
    await narrow.page.close();
  });
});
