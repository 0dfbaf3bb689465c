/**
 * The page as served: `index.html` with the first view's figures written into it, so the page
 * draws its first view at once, before any fetch (and a plain `chromium --screenshot` of it shows
 * the figures, not "Loading…"). The figures go into the `content` of a `<meta>` element, escaped
 * as an attribute value: they are data the page parses with `JSON.parse`, never markup or script,
 * so the Content Security Policy (no inline script) stays as it is, and a model name holding
 * `"><script>` stays those characters.
 */
import type { FirstView } from './api-types.js';

export const FIRST_VIEW_META = 'toolmask-first-view';

const ATTRIBUTE_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
};

export function escapeAttribute(text: string): string {
  return text.replace(/[&"'<>]/g, (character) => ATTRIBUTE_ESCAPES[character] as string);
}

/** `page` (index.html) with the meta element holding `view` before its `</head>`. */
export function withFirstView(page: string, view: FirstView): string {
  const meta = `<meta name="${FIRST_VIEW_META}" content="${escapeAttribute(JSON.stringify(view))}" />`;
  const end = page.indexOf('</head>');
  return end < 0 ? page : `${page.slice(0, end)}  ${meta}\n  ${page.slice(end)}`;
}
