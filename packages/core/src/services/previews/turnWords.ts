/**
 * The identifiers in backticks of the text of the turn that made a call, which a source-read
 * preview looks for (sourceRead.ts), found in one pass over the text with the same results as
 * the expressions it replaces (kept in turnWords.test.ts): `` /`([^`\n]{1,80})`/g ``, then
 * `/[A-Za-z_$][\w$]{2,}/g` inside each span. A turn's text is up to 16 K code units, read once per
 * turn, and every turn of a one-call-per-turn agent is new: the expressions and the match arrays
 * of every span cost twice this scan on a cold pass (issue 30). The other words it looks for (code
 * written `snake_case` or `camelCase`) stay an expression: compiled, it is faster than a scan.
 */

const isLower = (code: number) => code >= 97 && code <= 122;
const isUpper = (code: number) => code >= 65 && code <= 90;
const isDigit = (code: number) => code >= 48 && code <= 57;
/** `[\w$]`: `[A-Za-z0-9_$]`. */
const isIdentifierPart = (code: number) =>
  isLower(code) || isUpper(code) || isDigit(code) || code === 95 || code === 36;
/** `[A-Za-z_$]`. */
const isIdentifierStart = (code: number) =>
  isLower(code) || isUpper(code) || code === 95 || code === 36;

/** Identifiers of at least three characters (`[A-Za-z_$][\w$]{2,}`) in `text[from, to)`. */
function identifiersIn(text: string, from: number, to: number, found: string[]): void {
  let at = from;
  while (at < to) {
    if (!isIdentifierStart(text.charCodeAt(at))) {
      at++;
      continue;
    }
    let end = at + 1;
    while (end < to && isIdentifierPart(text.charCodeAt(end))) end++;
    if (end - at >= 3) {
      found.push(text.slice(at, end));
      at = end;
    } else {
      at++;
    }
  }
}

/** The identifiers inside backticks (1 to 80 code units, no new line between), in order. */
export function backtickIdentifiers(text: string): string[] {
  const found: string[] = [];
  let open = text.indexOf('`');
  // The first new line after `open`, looked for forward only (one pass over the text).
  let newLine = -1;
  while (open !== -1) {
    const close = text.indexOf('`', open + 1);
    if (close === -1) break;
    if (newLine !== -2 && newLine <= open) newLine = text.indexOf('\n', open + 1);
    if (newLine === -1) newLine = -2; // none left
    const length = close - open - 1;
    if (length >= 1 && length <= 80 && (newLine === -2 || newLine > close)) {
      identifiersIn(text, open + 1, close, found);
      open = text.indexOf('`', close + 1);
    } else {
      // No span from this backtick: the next one may open one.
      open = close;
    }
  }
  return found;
}
