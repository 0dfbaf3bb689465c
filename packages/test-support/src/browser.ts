/**
 * Headless Chromium for the dashboard's tests: the Debian package (`/usr/bin/chromium`) driven
 * by playwright-core (which never downloads a browser). Tests skip with a note where it is absent.
 * Helpers collect console errors and uncaught exceptions, and find elements that stick out of the
 * viewport or of their own box.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM_PATH);
export const CHROMIUM_SKIP_MESSAGE = `skipped: ${CHROMIUM_PATH} is absent (apt-get install -y chromium; .ci/run installs it)`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    chromiumSandbox: false,
    args: ['--disable-gpu', '--disable-dev-shm-usage'],
  });
}

/** A page whose console errors and uncaught exceptions are collected in `problems`. */
export async function watchedPage(
  browser: Browser,
  width: number,
  height = 900,
): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width, height } });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return { page, problems };
}

/**
 * Elements that overflow: the page wider than the viewport, or an element whose content is
 * wider than its box without a scroll bar to show it (scroll containers are fine).
 */
export function overflowingElements(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const found = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) {
      found.push('page: ' + root.scrollWidth + ' > ' + root.clientWidth);
    }
    for (const element of document.body.querySelectorAll('*')) {
      const style = getComputedStyle(element);
      if (style.display === 'none' || style.display === 'contents') continue;
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) continue;
      if (rect.right > root.clientWidth + 1 || rect.left < -1) {
        found.push(element.tagName.toLowerCase() + '.' + element.getAttribute('class') + ' at ' + Math.round(rect.left) + '..' + Math.round(rect.right));
        continue;
      }
      const scrolls = /(auto|scroll)/.test(style.overflowX) || style.overflowX === 'hidden';
      if (!scrolls && element.scrollWidth > element.clientWidth + 1 && element.clientWidth > 0 && !(element instanceof SVGElement)) {
        found.push(element.tagName.toLowerCase() + '.' + element.getAttribute('class') + ' content ' + element.scrollWidth + ' > ' + element.clientWidth);
      }
    }
    return found;
  })()`);
}
