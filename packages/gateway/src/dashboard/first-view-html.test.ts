/**
 * The first view written into the page (first-view-html.ts): one `<meta>` in the head whose
 * attribute holds the JSON exactly, with markup from a session escaped (never an element).
 */
import { describe, expect, it } from 'vitest';
import type { FirstView } from './api-types.js';
import { withFirstView } from './first-view-html.js';

const PAGE = '<!doctype html><html><head><title>t</title></head><body></body></html>';

describe('withFirstView', () => {
  it('puts the figures in one meta element, escaped', () => {
    const hostile = `"><script>alert(1)</script>&amp;'`;
    const view = { status: { version: hostile }, sessions: {}, timeline: { points: [] } };
    const html = withFirstView(PAGE, view as unknown as FirstView);
    expect(html).not.toContain('<script>');
    const match = /<meta name="toolmask-first-view" content="([^"]*)" \/>\s*<\/head>/.exec(html);
    expect(match).not.toBeNull();
    const decoded = match![1]!
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    expect(JSON.parse(decoded)).toEqual(view);
  });
});
