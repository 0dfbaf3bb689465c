/**
 * The dashboard in real headless Chromium (Debian's, driven by playwright-core), after two
 * recorded sessions (../shared/traces) were replayed through the gateway against a fake upstream,
 * each with a router call beside it as gemini-cli makes one: the overview shows exactly the totals
 * of `/api/sessions`, two sessions (the router calls folded in), and the chart of tokens over time;
 * the session chart has one point per request, an offloaded output opens with its exact text, the
 * console stays clean, nothing overflows at 1400, 900 or 700 px. What a person sees is measured:
 * the charts span the content column and are at least 280 px tall, the tables and previews use the
 * width, and no word is broken across lines (layout-probe.ts). The page draws its first view from
 * the figures written into it, with the API unreachable. Screenshots are saved as artifacts; after
 * a restart of the gateway the sessions are still listed and new ones arrive live.
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
  post,
  settled,
  startTestGateway,
  ownerHeaders,
} from '../test-utils/gemini-client.js';
import { GEMINI_CLI_USER_AGENT, cachingUpstream, replayTrace } from '../test-utils/replay-trace.js';
import { drawn, recordViewsSaid, until, viewsSaid } from '../test-utils/dashboard-views.js';
import type { SessionDetail, SessionOutputs, SessionsReport, Timeline } from './api-types.js';
import { boxOf, brokenWords, contentWidth } from './layout-probe.js';

const TRACE = 'mini-swe-agent-gemini3pro/django__django-11087';
/** A shorter session of another model, replayed first (so TRACE's is the newest). */
const OTHER_TRACE = 'mini-swe-agent-gemini3pro/astropy__astropy-14369';
const OTHER_MODEL = 'gemini-2.5-flash';
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

/**
 * The whole page (`<name>.png`) and what the window shows (`<name>-view.png`, for the docs; the
 * 900 px ones are artifacts only).
 */
async function screenshot(page: Page, name: string): Promise<void> {
  await fs.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const view = path.join(ARTIFACTS, `${name}-view.png`);
  await page.screenshot({ path: view });
  if (process.env['TOOLMASK_UPDATE_DOCS_IMAGES'] === '1' && !name.endsWith('-900')) {
    await fs.mkdir(DOCS_IMAGES, { recursive: true });
    await fs.copyFile(view, path.join(DOCS_IMAGES, `${name}.png`));
  }
}

/**
 * A router call as gemini-cli's model router makes one before a turn: one request of its own, with
 * a JSON schema for the answer, and the run's session header.
 */
async function routerCall(running: RunningGateway, session: string): Promise<void> {
  const answer = await post(
    `${running.url}/v1beta/models/gemini-2.5-flash-lite:generateContent`,
    {
      contents: [{ role: 'user', parts: [{ text: `route this request (${session})` }] }],
      systemInstruction: { parts: [{ text: 'Choose flash or pro for the request.' }] },
      generationConfig: {
        responseJsonSchema: { type: 'object', properties: { model_choice: { type: 'string' } } },
        responseMimeType: 'application/json',
      },
    },
    { 'user-agent': GEMINI_CLI_USER_AGENT, 'x-toolmask-session': session },
  );
  expect(answer.status).toBe(200);
}

/** The chart, tables and previews as a person sees them at this width. */
async function expectReadableLayout(page: Page, width: number, charts: string[]): Promise<void> {
  const content = await contentWidth(page);
  for (const chart of charts) {
    const box = await boxOf(page, chart);
    // The content column, less the panel's own padding.
    expect(box.width, `${chart} width at ${width} px`).toBeGreaterThanOrEqual(content - 40);
    expect(box.height, `${chart} height at ${width} px`).toBeGreaterThanOrEqual(280);
  }
  expect(await brokenWords(page, 'table th, table td, .session-facts')).toEqual([]);
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
  let otherReplayed = 0;

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
    const other = loadTraceSession(OTHER_TRACE, traces).contents.slice(0, 16);
    await routerCall(running, 'run-1');
    otherReplayed = await replayTrace(running.url, other, {
      model: OTHER_MODEL,
      headers: { 'x-toolmask-session': 'run-1' },
    });
    await routerCall(running, 'run-2');
    replayed = await replayTrace(running.url, loadTraceSession(TRACE, traces).contents, {
      headers: { 'x-toolmask-session': 'run-2' },
    });
    await settled(running);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await running?.close();
    await upstream?.close();
    await fixture?.cleanup();
  });

  it('the overview shows the totals of /api/sessions, two sessions with their router calls folded in, the chart of tokens over time; readable at 1400, 900 and 700 px', async () => {
    const report = await getJson<SessionsReport>(running, `${running.url}/api/sessions`);
    expect(report.totals.requests).toBe(replayed + otherReplayed + 2);
    expect(report.totals.maskedOutputs).toBeGreaterThan(0);
    // Two runs, two sessions: each router call is shown in its run's session.
    expect(report.sessions.map((session) => [session.model, session.sideRequests])).toEqual([
      ['gemini-3-pro-preview', 1],
      [OTHER_MODEL, 1],
    ]);
    const timeline = await getJson<Timeline>(running, `${running.url}/api/timeline`);
    const last = timeline.points.at(-1)!;
    expect(last.promptTokens).toBe(report.totals.promptTokens);
    expect(last.withoutMasking).toBe(report.totals.promptTokens + report.totals.tokensKeptOut);
    for (const width of [1400, 900, 700]) {
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
      // Each session is named by its task, the prompt in the body (not a dash).
      for (const prompt of await page.locator('.session-prompt').allTextContents()) {
        expect(prompt).toMatch(/^<pr_description> Consider the following PR description/);
      }
      // Net billed against no masking, as the server measured it, in money (Gemini 3 Pro's prices).
      expect(await metricValue(page, '.cards', 'netSaved')).toBeCloseTo(
        report.totals.costWithoutMasking - report.totals.cost,
        9,
      );
      expect(await page.locator('.cards [data-metric="netSaved"]').textContent()).toMatch(
        /^\$\d+\.\d+( less| more)?$/,
      );
      // The chart of tokens over time ends at the totals.
      const chart = page.locator('svg.timeline-chart');
      expect(Number(await chart.getAttribute('data-sent'))).toBe(last.promptTokens);
      expect(Number(await chart.getAttribute('data-without'))).toBe(last.withoutMasking);
      await expectReadableLayout(page, width, ['svg.timeline-chart']);
      const table = await boxOf(page, '#sessions-table');
      expect(table.width, `sessions table at ${width} px`).toBeGreaterThanOrEqual(
        (await contentWidth(page)) - 2,
      );
      expect(await overflowingElements(page)).toEqual([]);
      await screenshot(page, `dashboard-overview-${width}`);
      expect(problems).toEqual([]);
      await page.close();
    }
  });

  it('the first view is drawn from the figures in the page, with the API unreachable', async () => {
    const report = await getJson<SessionsReport>(running, `${running.url}/api/sessions`);
    const html = await (await fetch(`${running.url}/`, { headers: ownerHeaders(running) })).text();
    expect(html).toContain('<meta name="toolmask-first-view" content="{&quot;status&quot;');
    const { page } = await watchedPage(browser, 1400);
    // Every API request fails: what is drawn came with the page.
    await page.route('**/api/**', (route) => route.abort());
    await page.goto(running.dashboardUrl);
    await drawn(page, 'overview');
    expect(await page.locator('.session-row').count()).toBe(report.sessions.length);
    expect(await metricValue(page, '.cards', 'requests')).toBe(report.totals.requests);
    expect(await page.locator('svg.timeline-chart').count()).toBe(1);
    expect(await page.locator('#view').textContent()).not.toContain('Loading');
    await page.close();
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
    expect(detail.sideRequests?.length).toBe(1);
    for (const width of [1400, 900, 700]) {
      const { page, problems } = await watchedPage(browser, width);
      await page.goto(running.dashboardUrl);
      await drawn(page, 'overview');
      await recordViewsSaid(page);
      await page.locator('.session-row').first().click();
      await drawn(page, 'session');
      // The page says a view is there once its charts are drawn, not a frame before.
      const said = await viewsSaid(page);
      expect(said.at(-1)).toEqual({ view: 'session', charts: 1, drawn: 1 });
      expect(said.filter((view) => view.drawn < view.charts)).toEqual([]);
      expect(await page.locator('circle[data-series="sent"]').count()).toBe(detail.requests.length);
      expect(detail.requests.length).toBe(replayed);
      expect(await page.locator('line.mask-event').count()).toBe(
        detail.requests.filter((request) => request.newlyMasked > 0).length,
      );
      expect(await page.locator('#outputs-list > li').count()).toBe(outputs.outputs.length);
      expect(await metricValue(page, '.session', 'sideRequests')).toBe(1);
      await expectReadableLayout(page, width, ['svg.prompt-chart']);
      const preview = await boxOf(page, '#outputs-list pre.preview');
      expect(preview.width, `preview at ${width} px`).toBeGreaterThanOrEqual(
        0.8 * (await contentWidth(page)),
      );
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
