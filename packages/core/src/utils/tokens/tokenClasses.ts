/**
 * The character classes of the token model (tokenModel.ts): every UTF-16 code unit falls into
 * one of twelve, seven ASCII classes whose pair costs are fitted and five non-ASCII ones with
 * hand-set costs. Two tables built once at load (64 KB each) give the class of a code unit in one
 * look-up: as plain text, and inside a JSON string, where the units `JSON.stringify` escapes
 * (control characters, `"`, `\`) and lone surrogates are marked, with their escape sequences.
 */

/**
 * Character classes of the model. The first seven are ASCII classes whose pair costs are fitted;
 * the others are non-ASCII classes with hand-set costs.
 */
export const TOKEN_CLASS_NAMES = [
  'lower', // a-z
  'upper', // A-Z
  'digit', // 0-9
  'space', // ' '
  'break', // \n, \t, \r and the other control characters
  'quote', // " and \ (the characters that JSON escapes with a backslash, and the backslash itself)
  'punct', // every other printable ASCII character
  'letter', // U+00C0-U+1FFF: accented Latin, Greek, Cyrillic, Hebrew, Arabic, Indic, ...
  'cjk', // Han, kana, Hangul, CJK punctuation, full-width forms
  'symbol', // any other BMP character: typographic punctuation, arrows, box drawing, ...
  'astral', // high surrogate: emoji and other characters outside the BMP
  'astralTail', // low surrogate: second half of a surrogate pair, costs nothing more
] as const;

/** Class indices, in the order of TOKEN_CLASS_NAMES (a const enum: literals the JIT folds). */
export const enum CharClass {
  LOWER,
  UPPER,
  DIGIT,
  SPACE,
  BREAK,
  QUOTE,
  PUNCT,
  LETTER,
  CJK,
  SYMBOL,
  ASTRAL,
  ASTRAL_TAIL,
}
/** TOKEN_CLASS_NAMES.length, as a literal for the JIT (checked by the type below). */
export const CLASS_COUNT = 12;
const _classCountMatches: (typeof TOKEN_CLASS_NAMES)['length'] extends typeof CLASS_COUNT
  ? true
  : never = true;
export const ASCII_CLASS_COUNT = 7;
/** Class assumed before the first character of a text (as if it started a line). */
export const START_CLASS = CharClass.BREAK;

/** Class of every UTF-16 code unit (64 KB, built once). */
export const TEXT_CLASS = new Uint8Array(65536);
/**
 * The same inside JSON strings, with ESCAPED for the code units JSON.stringify always escapes and
 * SURROGATE for those it escapes when unpaired.
 */
export const JSON_CLASS = new Uint8Array(65536);
export const ESCAPED = 255;
export const SURROGATE = 254;
/** Escape sequence that JSON.stringify writes for each code unit it escapes. */
export const JSON_ESCAPES: string[] = [];

function asciiClass(c: number): number {
  if (c >= 97 && c <= 122) return CharClass.LOWER;
  if (c >= 65 && c <= 90) return CharClass.UPPER;
  if (c >= 48 && c <= 57) return CharClass.DIGIT;
  if (c === 32) return CharClass.SPACE;
  if (c < 32 || c === 127) return CharClass.BREAK;
  if (c === 34 || c === 92) return CharClass.QUOTE;
  return CharClass.PUNCT;
}

function nonAsciiClass(c: number): number {
  if (c < 0x2000) return c >= 0xc0 ? CharClass.LETTER : CharClass.SYMBOL;
  if (c < 0x2e80) return CharClass.SYMBOL;
  if (c < 0xa000) return CharClass.CJK;
  if (c < 0xac00) return CharClass.SYMBOL;
  if (c < 0xd800) return CharClass.CJK; // Hangul syllables (U+AC00-U+D7AF) and Jamo extensions
  if (c < 0xdc00) return CharClass.ASTRAL;
  if (c < 0xe000) return CharClass.ASTRAL_TAIL;
  if (c >= 0xf900 && c < 0xfb00) return CharClass.CJK;
  if (c >= 0xff00 && c < 0xfff0) return CharClass.CJK;
  return CharClass.SYMBOL;
}

for (let c = 0; c < 65536; c++) {
  const cls = c < 128 ? asciiClass(c) : nonAsciiClass(c);
  TEXT_CLASS[c] = cls;
  JSON_CLASS[c] = cls;
  if (c >= 0xd800 && c < 0xe000) JSON_CLASS[c] = SURROGATE;
  if (c < 32 || c === 34 || c === 92) {
    JSON_CLASS[c] = ESCAPED;
    JSON_ESCAPES[c] = JSON.stringify(String.fromCharCode(c)).slice(1, -1);
  }
}

/** Class of a code unit (0-65535). Exported for the fitting script. */
export function tokenCharClass(code: number): number {
  return TEXT_CLASS[code & 0xffff] as number;
}
