/**
 * Opens the HTML report in headless Chromium (Debian's `chromium`, driven by playwright-core,
 * which never downloads a browser) at two window widths, 600 and 1280 px, and checks what a
 * person sees: both charts with a line per strategy, the summary and the settings, no text that
 * runs into other text inside a chart, chart text at least 10 px tall, nothing wider than the
 * window. Screenshots are kept as test artifacts in `test-artifacts/` at the repository root.
 * Skipped with a note when /usr/bin/chromium is absent.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../test-data/run-cli.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`[toolmask] skipping HTML report browser test: ${CHROMIUM} is absent`);

const REPO = join(import.meta.dirname, '..', '..', '..', '..');
const ARTIFACTS = join(REPO, 'test-artifacts');
const TRACES = join(REPO, '..', 'shared', 'traces', 'mini-swe-agent-gemini3pro');
const work = mkdtempSync(join(tmpdir(), 'toolmask-report-'));

/** What the page shows, measured in the browser (a string: the project's lib has no DOM types). */
const MEASURE = `(() => {
  const box = (element) => {
    const r = element.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, height: r.height };
  };
  const charts = [...document.querySelectorAll('svg.chart')].map((svg) => ({
    title: svg.getAttribute('aria-label'),
    series: [...svg.querySelectorAll('polyline')].map((line) => line.dataset.series),
    points: [...svg.querySelectorAll('polyline')].map((line) => line.getAttribute('points').split(' ').length),
    boundaries: svg.querySelectorAll('line.boundary').length,
    texts: [...svg.querySelectorAll('text')].map((text) => ({ text: text.textContent, ...box(text) })),
    box: box(svg),
  }));
  return {
    charts,
    viewport: document.documentElement.clientWidth,
    scrollWidth: document.documentElement.scrollWidth,
    body: document.body.innerText,
    summaryHead: [...document.querySelectorAll('table.summary thead th')].map((th) => th.textContent),
    settings: [...document.querySelectorAll('table.settings th code')].map((code) => code.textContent),
  };
})()`;

interface Measured {
  charts: {
    title: string;
    series: string[];
    points: number[];
    boundaries: number;
    texts: {
      text: string;
      left: number;
      right: number;
      top: number;
      bottom: number;
      height: number;
    }[];
    box: { left: number; right: number };
  }[];
  viewport: number;
  scrollWidth: number;
  body: string;
  summaryHead: string[];
  settings: string[];
}

const overlaps = (
  a: { left: number; right: number; top: number; bottom: number },
  b: { left: number; right: number; top: number; bottom: number },
) =>
  a.left < b.right - 0.5 &&
  b.left < a.right - 0.5 &&
  a.top < b.bottom - 0.5 &&
  b.top < a.bottom - 0.5;

describe.skipIf(!available)('the HTML report in headless Chromium', () => {
  let browser: Browser;
  const reports: Record<string, string> = {};

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      chromiumSandbox: false,
      args: ['--disable-gpu', '--disable-dev-shm-usage'],
    });
    reports['builtin'] = join(work, 'builtin.html');
    const builtin = await runCliCaptured(['replay', '--compare', '--report', reports['builtin']]);
    expect(builtin.code).toBe(0);
    if (existsSync(TRACES)) {
      // Many sessions: boundaries, a long x axis and tick labels in the tens of millions.
      reports['traces'] = join(work, 'traces.html');
      const traces = await runCliCaptured([
        'replay',
        '--compare',
        '--concat',
        '8',
        '--report',
        reports['traces'],
        TRACES,
      ]);
      expect(traces.code).toBe(0);
    }
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(work, { recursive: true, force: true });
  });

  for (const width of [600, 1280]) {
    it(`reads well at ${width} px: charts, tables, settings, no overlap, nothing too wide or too small`, async () => {
      for (const [name, file] of Object.entries(reports)) {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        const problems: string[] = [];
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text());
        });
        page.on('pageerror', (error) => problems.push(error.message));
        await page.goto(pathToFileURL(file).href);
        await page.screenshot({
          path: join(ARTIFACTS, `report-${name}-${width}.png`),
          fullPage: true,
        });
        const measured = (await page.evaluate(MEASURE)) as Measured;
        await page.close();

        expect(problems, name).toEqual([]);
        expect(measured.scrollWidth, `${name}: page wider than the window`).toBeLessThanOrEqual(
          measured.viewport,
        );
        expect(measured.summaryHead, name).toEqual(['', 'none', 'toolmask', 'gemini-cli']);
        expect(measured.settings, name).toEqual(
          expect.arrayContaining(['toolProtectionThreshold', 'minPrunableThresholdTokens']),
        );
        expect(measured.body, name).not.toMatch(/\(s\)/);
        expect(
          measured.charts.map((chart) => chart.title),
          name,
        ).toEqual(['Context tokens per request', 'Cumulative billed tokens']);
        for (const chart of measured.charts) {
          const where = `${name} at ${width} px, ${chart.title}`;
          expect(chart.series, where).toEqual(['none', 'toolmask', 'gemini-cli']);
          for (const count of chart.points) expect(count, where).toBeGreaterThan(10);
          expect(chart.box.right, where).toBeLessThanOrEqual(measured.viewport);
          for (const text of chart.texts) {
            expect(text.height, `${where}: "${text.text}" is too small`).toBeGreaterThanOrEqual(10);
            expect(text.left, `${where}: "${text.text}" leaves the chart`).toBeGreaterThanOrEqual(
              chart.box.left - 0.5,
            );
          }
          const clashes = chart.texts.flatMap((a, i) =>
            chart.texts
              .slice(i + 1)
              .filter((b) => overlaps(a, b))
              .map((b) => `"${a.text}" / "${b.text}"`),
          );
          expect(clashes, where).toEqual([]);
          if (name === 'traces') {
            expect(chart.boundaries, where).toBeGreaterThan(5);
            expect(
              chart.texts.map((text) => text.text),
              where,
            ).toContain('session starts');
          }
        }
        if (name === 'traces')
          expect(measured.body).toMatch(/Dashed lines: a new session starts there/);
      }
    }, 60_000);
  }
});
