/**
 * The words of a call that a source-read preview looks for (sourceRead.ts), each found in one
 * pass over the text with the same results as the expressions it replaces (kept in
 * turnWords.test.ts):
 * - the identifiers in backticks of the turn's text: `` /`([^`\n]{1,80})`/g ``, then
 *   `/[A-Za-z_$][\w$]{2,}/g` inside each span;
 * - the words of the turn's text that look like code (`snake_case`, `camelCase`):
 *   `/\b[A-Za-z_]*(?:_[A-Za-z0-9]+|[a-z][A-Z])\w*\/g`;
 * - the identifiers in the quoted patterns of a command: `/(["'])((?:(?!\1).){1,200})\1/g`, then
 *   `/[A-Za-z_$][\w$]{2,}/g` inside each.
 * A turn's text is up to 16 K code units, read once per turn, and every turn of a one-call-per-turn
 * agent is new. On a cold pass the expressions' match arrays, and the backtracking of the
 * code-word one at every letter, cost more than these scans (issue 30); each stops when its
 * caller has the names it can keep.
 */

const isLower = (code: number) => code >= 97 && code <= 122;
const isUpper = (code: number) => code >= 65 && code <= 90;
const isDigit = (code: number) => code >= 48 && code <= 57;
/** `\w`: `[A-Za-z0-9_]` (NaN, past the end, is none). */
const isWordCode = (code: number) => isLower(code) || isUpper(code) || isDigit(code) || code === 95;
/** `[A-Za-z_]`. */
const isLetterOrUnderscore = (code: number) => isLower(code) || isUpper(code) || code === 95;
/** `[\w$]`: `[A-Za-z0-9_$]`. */
const isIdentifierPart = (code: number) =>
  isLower(code) || isUpper(code) || isDigit(code) || code === 95 || code === 36;
/** `[A-Za-z_$]`. */
const isIdentifierStart = (code: number) =>
  isLower(code) || isUpper(code) || code === 95 || code === 36;

/** Identifiers of at least three characters (`[A-Za-z_$][\w$]{2,}`) in `text[from, to)`. */
function identifiersIn(
  text: string,
  from: number,
  to: number,
  found: (word: string) => boolean,
): boolean {
  let at = from;
  while (at < to) {
    if (!isIdentifierStart(text.charCodeAt(at))) {
      at++;
      continue;
    }
    let end = at + 1;
    while (end < to && isIdentifierPart(text.charCodeAt(end))) end++;
    if (end - at >= 3) {
      if (!found(text.slice(at, end))) return false;
      at = end;
    } else {
      at++;
    }
  }
  return true;
}

/** The identifiers inside backticks (1 to 80 code units, no new line between), in order. */
export function backtickIdentifiers(text: string): string[] {
  const found: string[] = [];
  forEachBacktickIdentifier(text, (word) => found.push(word) > 0);
  return found;
}

/**
 * `backtickIdentifiers(text)`, each given to `visit` in order until it returns false.
 */
export function forEachBacktickIdentifier(text: string, visit: (word: string) => boolean): void {
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
      if (!identifiersIn(text, open + 1, close, visit)) return;
      open = text.indexOf('`', close + 1);
    } else {
      // No span from this backtick: the next one may open one.
      open = close;
    }
  }
}

/**
 * The words of `text` that look like code, in order, each given to `visit` until it returns
 * false: a run of `\w` that starts with a letter or `_` and, before its first digit, has a `_`
 * followed by a letter or digit, or a lower-case letter followed by an upper-case one (what
 * `/\b[A-Za-z_]*(?:_[A-Za-z0-9]+|[a-z][A-Z])\w*\/g` matches: the whole run or nothing).
 */
export function forEachCodeWord(text: string, visit: (word: string) => boolean): void {
  const length = text.length;
  let at = 0;
  while (at < length) {
    const first = text.charCodeAt(at);
    if (!isWordCode(first)) {
      at++;
      continue;
    }
    const start = at;
    let looksLikeCode = false;
    // The expression's `[A-Za-z_]*` gives back letters until one of the two pairs follows: a
    // pair that begins in the run of letters and `_` the word starts with.
    for (let index = start; index < length && !looksLikeCode; index++) {
      const code = text.charCodeAt(index);
      if (!isLetterOrUnderscore(code)) break;
      const next = text.charCodeAt(index + 1);
      looksLikeCode =
        (code === 95 && (isLower(next) || isUpper(next) || isDigit(next))) ||
        (isLower(code) && isUpper(next));
    }
    at = start + 1;
    while (at < length && isWordCode(text.charCodeAt(at))) at++;
    if (looksLikeCode && !visit(text.slice(start, at))) return;
  }
}

/** Code units `.` does not match: the line terminators. */
const isLineTerminator = (code: number) =>
  code === 10 || code === 13 || code === 0x2028 || code === 0x2029;

/** Longest quoted pattern read (the expression's `{1,200}`). */
const MAX_QUOTED_UNITS = 200;

/**
 * The identifiers in the quoted patterns of `text[0, end)`, in order, each given to `visit` until
 * it returns false: a pattern is 1 to 200 code units between two `"` or two `'`, without a line
 * terminator, the first quote that can open one taken first.
 */
export function forEachQuotedIdentifier(
  text: string,
  end: number,
  visit: (word: string) => boolean,
): void {
  let at = 0;
  while (at < end) {
    const quote = text.charCodeAt(at);
    if (quote !== 34 && quote !== 39) {
      at++;
      continue;
    }
    let close = at + 1;
    while (close < end && close - at <= MAX_QUOTED_UNITS) {
      const code = text.charCodeAt(close);
      if (code === quote || isLineTerminator(code)) break;
      close++;
    }
    const length = close - at - 1;
    if (
      close < end &&
      text.charCodeAt(close) === quote &&
      length >= 1 &&
      length <= MAX_QUOTED_UNITS
    ) {
      if (!identifiersIn(text, at + 1, close, visit)) return;
      at = close + 1;
    } else {
      at++;
    }
  }
}
