/**
 * Waiting for the dashboard's views in the browser tests, and opening a client's session from the
 * overview. Expressions are evaluated over the debugging protocol: the page's Content Security
 * Policy forbids `eval`, so playwright's `waitForFunction` with a string cannot run.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { RunningGateway } from '../listen-gateway.js';

/** Waits until `expression` is true in the page. */
export async function until(page: Page, expression: string): Promise<void> {
  await expect.poll(() => page.evaluate(expression), { timeout: 15_000 }).toBe(true);
}

/** Waits until the view `view` (`overview`, `session`, `settings`) is on screen. */
export function drawn(page: Page, view: string): Promise<void> {
  return until(page, `document.body.dataset.view === ${JSON.stringify(view)}`);
}

/**
 * From now on, records each view the page says is on screen and whether every chart in it had
 * its SVG at that moment (a MutationObserver's record comes before the page's next rendering
 * step); `viewsSaid` reads the records.
 */
export async function recordViewsSaid(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    window.viewsSaid = [];
    new MutationObserver(() => {
      const plots = [...document.querySelectorAll('.chart-plot')];
      window.viewsSaid.push({
        view: document.body.dataset.view,
        charts: plots.length,
        drawn: plots.filter((plot) => plot.querySelector('svg')).length,
      });
    }).observe(document.body, { attributes: true, attributeFilter: ['data-view'] });
  })()`);
}

export function viewsSaid(
  page: Page,
): Promise<Array<{ view: string; charts: number; drawn: number }>> {
  return page.evaluate('window.viewsSaid');
}

/** The rows of `client`'s session in the sessions table (its name, its figures). */
export function sessionRowsOf(page: Page, client: string) {
  return page.locator('tbody.session-group', {
    has: page.locator(`td.client:text-is("${client}")`),
  });
}

/** Opens the overview and then the session of `client`. */
export async function openSession(
  page: Page,
  running: RunningGateway,
  client: string,
): Promise<void> {
  await page.goto(running.dashboardUrl);
  await drawn(page, 'overview');
  await sessionRowsOf(page, client).click();
  await drawn(page, 'session');
}
