/**
 * The character level of the shell scanner (shellScript.ts): the codes it tests, what each
 * character does in an unquoted word, the plain run of a word, and three pure reads of the script
 * at a position (a redirection's operator, a file descriptor before one, where an expansion ends).
 * Each reads a bounded stretch, or scans forward once; none uses a regular expression but
 * `PLAIN_RUN`, a single character class.
 */

// Character codes the scanner tests (`charCodeAt`: no one-character strings made).
export const TAB = 9;
export const NEWLINE = 10;
export const CR = 13;
export const SPACE = 32;
export const DOUBLE_QUOTE = 34;
export const HASH = 35;
export const DOLLAR = 36;
export const AMPERSAND = 38;
export const SINGLE_QUOTE = 39;
export const OPEN = 40;
export const CLOSE = 41;
export const STAR = 42;
export const HYPHEN = 45;
export const ZERO = 48;
export const NINE = 57;
export const SEMICOLON = 59;
export const LESS = 60;
export const GREATER = 62;
export const QUESTION = 63;
export const BRACKET = 91;
export const BACKSLASH = 92;
export const BACKQUOTE = 96;
export const BRACE_OPEN = 123;
export const PIPE = 124;
export const BRACE_CLOSE = 125;
export const TILDE = 126;

/** What a character does in an unquoted word (ASCII; any other character is `LITERAL`). */
export const LITERAL = 0;
/** Ends the word: a blank or an operator (`\n ; & | ( ) < >`). */
export const WORD_END = 1;
/** A glob character (`*`, `?`, `[`): kept, and the word is dynamic. */
export const GLOB = 2;
/** A quote, an escape or an expansion (`' " \ $` and a backquote): read apart. */
export const SPECIAL = 3;
export const WORD_CLASS = new Uint8Array(128);
for (const code of [
  TAB,
  NEWLINE,
  CR,
  SPACE,
  SEMICOLON,
  AMPERSAND,
  PIPE,
  OPEN,
  CLOSE,
  LESS,
  GREATER,
]) {
  WORD_CLASS[code] = WORD_END;
}
for (const code of [STAR, QUESTION, BRACKET]) WORD_CLASS[code] = GLOB;
for (const code of [SINGLE_QUOTE, DOUBLE_QUOTE, BACKSLASH, DOLLAR, BACKQUOTE]) {
  WORD_CLASS[code] = SPECIAL;
}

/**
 * A run of `LITERAL` characters (no blank, operator, glob, quote, escape or expansion), matched
 * where the scan is (sticky): the one regular expression of the scan, a single character class
 * without alternation or backtracking, so linear like the rest.
 */
export const PLAIN_RUN = /[^\t\n\r ;&|()<>*?['"\\$`]+/y;

export const isDigit = (code: number) => code >= ZERO && code <= NINE;
/** `[A-Za-z0-9_]`: a character of a `$name`. */
export const isNameChar = (code: number) =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || isDigit(code) || code === 95;

/** The operator at `at` (`&>>`, `&>`, `<<<`, `<<-`, `<<`, `<&`, `<>`, `<`, `>>`, `>&`, `>|`, `>`). */
export function redirectOperator(text: string, at: number): string {
  const first = text.charCodeAt(at);
  const second = text.charCodeAt(at + 1);
  if (first === AMPERSAND) return text.charCodeAt(at + 2) === GREATER ? '&>>' : '&>';
  if (first === LESS) {
    if (second === LESS) {
      const third = text.charCodeAt(at + 2);
      return third === LESS ? '<<<' : third === HYPHEN ? '<<-' : '<<';
    }
    return second === AMPERSAND ? '<&' : second === GREATER ? '<>' : '<';
  }
  if (second === GREATER) return '>>';
  return second === AMPERSAND ? '>&' : second === PIPE ? '>|' : '>';
}

/** Digits at `at` followed at once by `<` or `>` (at most 3 digits: a descriptor). */
export function fdBeforeRedirect(text: string, at: number): boolean {
  let end = at;
  while (isDigit(text.charCodeAt(end)) && end - at < 4) end++;
  const next = text.charCodeAt(end);
  return end - at <= 3 && (next === LESS || next === GREATER);
}

/** Where `$name`, `${…}`, `$(…)` or a backquoted command at `at` ends. */
export function expansionEnd(text: string, at: number): number {
  const length = text.length;
  if (text.charCodeAt(at) === BACKQUOTE) {
    const end = text.indexOf('`', at + 1);
    return end < 0 ? length : end + 1;
  }
  const open = text.charCodeAt(at + 1);
  if (open === OPEN || open === BRACE_OPEN) {
    const close = open === OPEN ? CLOSE : BRACE_CLOSE;
    let depth = 0;
    for (let index = at + 1; index < length; index++) {
      const code = text.charCodeAt(index);
      if (code === SINGLE_QUOTE) {
        const end = text.indexOf("'", index + 1);
        if (end < 0) break;
        index = end;
      } else if (code === BACKSLASH) {
        index++;
      } else if (code === open) {
        depth++;
      } else if (code === close && --depth === 0) {
        return index + 1;
      }
    }
    return length;
  }
  let end = at + 1;
  while (end < length && isNameChar(text.charCodeAt(end))) end++;
  return end;
}
