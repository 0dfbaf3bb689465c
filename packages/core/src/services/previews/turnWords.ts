/**
 * The words of a call that a source-read preview looks for (sourceRead.ts), in the order found:
 * - the identifiers in backticks of the turn's text: `` /`([^`\n]{1,80})`/g ``, then
 *   `/[A-Za-z_$][\w$]{2,}/g` inside each span;
 * - the words of the turn's text that look like code (`snake_case`, `camelCase`);
 * - the identifiers in the quoted patterns of a command (a `grep` or `sed` address).
 * Each is given to a visitor that says when it has enough: the caller keeps at most a few dozen
 * names, and the rest of a 16 K turn text is then not read.
 *
 * Expressions, not scans over char codes: on a cold pass (a fresh gateway, issue 30) the code
 * that reads a turn runs for the first time, and a loop over its char codes runs in the
 * interpreter, ten to twenty times slower than an expression's compiled match (measured on the
 * first trace chain's 333 turns, each in a fresh process: code words 2 ms against 31–65 ms,
 * backticks 3 ms against 7–13 ms, quoted patterns 1.6 ms against 24–29 ms).
 */

/** An identifier of at least three characters. */
const IDENTIFIER = /[A-Za-z_$][\w$]{2,}/g;
/** A span in backticks: 1 to 80 code units, no new line. */
const BACKTICKED = /`([^`\n]{1,80})`/g;
/** A word that looks like code: `snake_case`, `camelCase`, `_private`, `x_1`. */
const CODE_WORD = /\b[A-Za-z_]*(?:_[A-Za-z0-9]+|[a-z][A-Z])\w*/g;
/** A quoted pattern: 1 to 200 code units between two `"` or two `'`, on one line. */
const QUOTED = /(["'])((?:(?!\1).){1,200})\1/g;

/** The identifiers of `text`, each given to `visit` until it returns false; false then. */
function eachIdentifier(text: string, visit: (word: string) => boolean): boolean {
  for (const word of text.matchAll(IDENTIFIER)) if (!visit(word[0])) return false;
  return true;
}

/** The identifiers inside backticks, in order. */
export function backtickIdentifiers(text: string): string[] {
  const found: string[] = [];
  forEachBacktickIdentifier(text, (word) => found.push(word) > 0);
  return found;
}

/** `backtickIdentifiers(text)`, each given to `visit` in order until it returns false. */
export function forEachBacktickIdentifier(text: string, visit: (word: string) => boolean): void {
  if (!text.includes('`')) return;
  for (const quoted of text.matchAll(BACKTICKED)) {
    if (!eachIdentifier(quoted[1] as string, visit)) return;
  }
}

/** The words of `text` that look like code (`CODE_WORD`), in order, until `visit` returns false. */
export function forEachCodeWord(text: string, visit: (word: string) => boolean): void {
  for (const word of text.matchAll(CODE_WORD)) if (!visit(word[0])) return;
}

/**
 * The identifiers in the quoted patterns (`QUOTED`) of `text[0, end)`, in order, until `visit`
 * returns false.
 */
export function forEachQuotedIdentifier(
  text: string,
  end: number,
  visit: (word: string) => boolean,
): void {
  const head = end < text.length ? text.slice(0, end) : text;
  if (!head.includes('"') && !head.includes("'")) return;
  for (const quoted of head.matchAll(QUOTED)) {
    if (!eachIdentifier(quoted[2] as string, visit)) return;
  }
}
