/**
 * What a person sees of the dashboard, measured in the page (for the browser tests): the box of an
 * element, the width of the content column, and the words that the layout broke across lines.
 * Evaluated as strings: the page's Content Security Policy forbids `eval`, and playwright's own
 * function serialization would need it.
 */
import type { Page } from 'playwright-core';

export interface Box {
  width: number;
  height: number;
}

/** The rendered box of the first element matching `selector` (zero when there is none). */
export function boxOf(page: Page, selector: string): Promise<Box> {
  return page.evaluate(`(() => {
    const element = document.querySelector(${JSON.stringify(selector)});
    if (!element) return { width: 0, height: 0 };
    const rect = element.getBoundingClientRect();
    return { width: Math.round(rect.width), height: Math.round(rect.height) };
  })()`);
}

/** The width the page's content column offers (`#view` without its padding). */
export function contentWidth(page: Page): Promise<number> {
  return page.evaluate(`(() => {
    const view = document.getElementById('view');
    const style = getComputedStyle(view);
    return Math.round(view.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight));
  })()`);
}

/**
 * Each word (a run of non-space characters) inside an element matching `selector` whose rendered
 * characters sit on more than one line: "gemi / ni-2.5- / flash" is one such word. A break between
 * words (at a space) is fine. Returned as `word (lines)`.
 */
export function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(`(() => {
    const found = [];
    for (const element of document.querySelectorAll(${JSON.stringify(selector)})) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent || '';
        for (const match of text.matchAll(/\\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set();
          for (const rect of range.getClientRects()) {
            if (rect.width > 0) tops.add(Math.round(rect.top));
          }
          if (tops.size > 1) found.push(match[0] + ' (' + tops.size + ' lines)');
        }
      }
    }
    return found;
  })()`);
}
