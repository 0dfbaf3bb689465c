/**
 * The dashboard in real headless Chromium (Debian's, driven by playwright-core), after a recorded
 * session (../shared/traces) was replayed through the gateway against a fake upstream: the
 * overview shows exactly the totals of `/api/sessions`, the session chart has one point per
 * request, an offloaded output opens with its exact text, the console stays clean, nothing
 * overflows at 1400 or 700 px (screenshots are saved as artifacts), and after a restart of the
 * gateway the sessions are still listed and new ones arrive live.
 *
 * Screenshots go to `.tmp/artifacts/dashboard/`; with TOOLMASK_UPDATE_DOCS_IMAGES=1 also to
 * docs/images/ (the ones docs/dashboard.md shows).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACES_SKIP_MESSAGE, loadTraceSession, tracesDir } from '@toolmask/test-support/traces';
import type { RunningGateway } from '../listen-gateway.js';
import {
  CHROMIUM_SKIP_MESSAGE,
  chromiumAvailable,
  launchChromium,
  overflowingElements,
  watchedPage,
} from '@toolmask/test-support/browser';
import type { FakeUpstream } from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  settled,
  startTestGateway,
  ownerHeaders,
} from '../test-utils/gemini-client.js';
import { cachingUpstream, replayTrace } from '../test-utils/replay-trace.js';
import type { SessionDetail, SessionOutputs, SessionsReport } from './api-types.js';

const TRACE = 'mini-swe-agent-gemini3pro/django__django-11087';
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const ARTIFACTS = path.join(REPO_ROOT, '.tmp', 'artifacts', 'dashboard');
const DOCS_IMAGES = path.join(REPO_ROOT, 'docs', 'images');

const traces = tracesDir();
if (!chromiumAvailable) console.warn(`[toolmask] dashboard browser tests ${CHROMIUM_SKIP_MESSAGE}`);
else if (!traces) console.warn(`[toolmask] dashboard browser tests ${TRACES_SKIP_MESSAGE}`);

async function getJson<T>(running: RunningGateway, url: string): Promise<T> {
  const answer = await fetch(url, { headers: ownerHeaders(running) });
  expect(answer.status).toBe(200);
  return (await answer.json()) as T;
}

/** The whole page (`<name>.png`) and what the window shows (`<name>-view.png`, for the docs). */
async function screenshot(page: Page, name: string): Promise<void> {
  await fs.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const view = path.join(ARTIFACTS, `${name}-view.png`);
  await page.screenshot({ path: view });
  if (process.env['TOOLMASK_UPDATE_DOCS_IMAGES'] === '1') {
    await fs.mkdir(DOCS_IMAGES, { recursive: true });
    await fs.copyFile(view, path.join(DOCS_IMAGES, `${name}.png`));
  }
}

/**
 * Waits until `expression` is true in the page. (Evaluated over the debugging protocol: the
 * page's Content Security Policy forbids `eval`, so `waitForFunction` with a string cannot run.)
 */
async function until(page: Page, expression: string): Promise<void> {
  await expect.poll(() => page.evaluate(expression), { timeout: 15_000 }).toBe(true);
}

/** Waits until the view `view` is on screen. */
function drawn(page: Page, view: string): Promise<void> {
  return until(page, `document.body.dataset.view === ${JSON.stringify(view)}`);
}

function metricValue(page: Page, scope: string, metric: string): Promise<number> {
  return page
    .locator(`${scope} [data-metric="${metric}"]`)
    .first()
    .getAttribute('data-value')
    .then(Number);
}

describe.skipIf(!chromiumAvailable || !traces)('the dashboard in headless Chromium', () => {
  let browser: Browser;
  let upstream: FakeUpstream;
  let running: RunningGateway;
  let fixture: Awaited<ReturnType<typeof gatewayFixture>>;
  let replayed = 0;

  beforeAll(async () => {
    fixture = await gatewayFixture({
      toolProtectionThreshold: 6_000,
      minPrunableTokensThreshold: 3_000,
    });
    upstream = await cachingUpstream();
    running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { gemini: upstream.url },
    });
    replayed = await replayTrace(running.url, loadTraceSession(TRACE, traces).contents);
    await settled(running);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await running?.close();
    await upstream?.close();
    await fixture?.cleanup();
  });

  it('the overview shows the totals of /api/sessions; no overflow at 1400 and 700 px', async () => {
    const report = await getJson<SessionsReport>(running, `${running.url}/api/sessions`);
    expect(report.totals.requests).toBe(replayed);
    expect(report.totals.maskedOutputs).toBeGreaterThan(0);
    for (const width of [1400, 700]) {
      const { page, problems } = await watchedPage(browser, width);
      await page.goto(running.dashboardUrl);
      await drawn(page, 'overview');
      for (const metric of [
        'requests',
        'promptTokens',
        'cachedTokens',
        'cacheHitShare',
        'tokensKeptOut',
        'maskedOutputs',
        'failures',
      ] as const) {
        expect(await metricValue(page, '.cards', metric), metric).toBe(report.totals[metric]);
      }
      expect(await page.locator('.cards [data-metric="requests"]').textContent()).toBe(
        report.totals.requests.toLocaleString('en-US'),
      );
      expect(await page.locator('.cards [data-metric="promptTokens"]').textContent()).toBe(
        report.totals.promptTokens.toLocaleString('en-US'),
      );
      expect(await page.locator('.session-row').count()).toBe(report.sessions.length);
      expect(Number(await metricValue(page, '.cards', 'moneySaved'))).toBeGreaterThan(0);
      expect(await overflowingElements(page)).toEqual([]);
      await screenshot(page, `dashboard-overview-${width}`);
      expect(problems).toEqual([]);
      await page.close();
    }
  });

  it('the session view: one chart point per request, masking events marked, an output opens with its exact text', async () => {
    const report = await getJson<SessionsReport>(running, `${running.url}/api/sessions`);
    const id = report.sessions[0]!.id;
    const detail = await getJson<SessionDetail>(running, `${running.url}/api/sessions/${id}`);
    const outputs = await getJson<SessionOutputs>(
      running,
      `${running.url}/api/sessions/${id}/outputs`,
    );
    expect(outputs.outputs.length).toBe(report.sessions[0]!.maskedOutputs);
    for (const width of [1400, 700]) {
      const { page, problems } = await watchedPage(browser, width);
      await page.goto(running.dashboardUrl);
      await drawn(page, 'overview');
      await page.locator('.session-row').first().click();
      await drawn(page, 'session');
      expect(await page.locator('circle[data-series="sent"]').count()).toBe(detail.requests.length);
      expect(detail.requests.length).toBe(replayed);
      expect(await page.locator('line.mask-event').count()).toBe(
        detail.requests.filter((request) => request.newlyMasked > 0).length,
      );
      expect(await page.locator('#outputs-list > li').count()).toBe(outputs.outputs.length);
      expect(await overflowingElements(page)).toEqual([]);
      await screenshot(page, `dashboard-session-${width}`);

      const chosen = outputs.outputs.length - 1;
      await page.locator('#outputs-list > li').nth(chosen).locator('.open-output').click();
      await page.waitForSelector('#output-dialog[data-loaded="complete"]');
      const text = await page.locator('#output-text').textContent();
      expect(text).toBe(await fs.readFile(outputs.outputs[chosen]!.file, 'utf8'));
      expect(await overflowingElements(page)).toEqual([]);
      if (width === 1400) await screenshot(page, 'dashboard-output-1400');
      await page.locator('#output-close').click();
      expect(problems).toEqual([]);
      await page.close();
    }
  });

  it('the settings panel shows the settings in force, the version and the uptime', async () => {
    const { page, problems } = await watchedPage(browser, 1400);
    await page.goto(running.dashboardUrl);
    await page.goto(`${running.url}/#/settings`);
    await drawn(page, 'settings');
    expect(await page.locator('#about [data-key="version"] td').textContent()).toMatch(/^\d+\.\d+/);
    expect(await page.locator('#about [data-key="uptime"] td').textContent()).toMatch(/\d+[smhd]/);
    expect(
      await page.locator('#settings-masking [data-key="toolProtectionThreshold"] td').textContent(),
    ).toBe('6000');
    expect(
      await page.locator('#settings-gateway [data-key="retentionDays"] td').textContent(),
    ).toBe('30');
    expect(await page.locator('#price-table .price-row').count()).toBeGreaterThan(3);
    expect(await overflowingElements(page)).toEqual([]);
    await screenshot(page, 'dashboard-settings-1400');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('after a restart the sessions are still listed, and new ones arrive live', async () => {
    const before = await getJson<SessionsReport>(running, `${running.url}/api/sessions`);
    await running.close();
    running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { gemini: upstream.url },
    });
    const { page, problems } = await watchedPage(browser, 1400);
    await page.goto(running.dashboardUrl);
    await drawn(page, 'overview');
    const listed = await page
      .locator('.session-row')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session')));
    expect(listed).toEqual(before.sessions.map((session) => session.id));
    expect(await metricValue(page, '.cards', 'requests')).toBe(before.totals.requests);

    // A new conversation while the page is open: the server-sent event redraws the page.
    await page.waitForSelector('#live[data-state="live"]');
    await replayTrace(running.url, [
      { role: 'user', parts: [{ text: 'a second task' }] },
      { role: 'model', parts: [{ text: 'done' }] },
    ]);
    await until(
      page,
      `document.querySelectorAll('.session-row').length === ${before.sessions.length + 1}`,
    );
    expect(await metricValue(page, '.cards', 'requests')).toBe(before.totals.requests + 1);
    expect(problems).toEqual([]);
    await page.close();
  });
});
