/**
 * Synchronous token estimates for history parts, calibrated against the Gemma 3 tokenizer.
 *
 * Model. Every UTF-16 code unit of the text that would be sent (for a function response: of
 * `JSON.stringify(response)`, without building that string) falls into one of a few character
 * classes, and costs a fractional number of tokens that depends on its class AND on the class of
 * the code unit before it. That single pair table captures what a BPE tokenizer does with text
 * and code: a letter after a letter usually continues the current token (cheap), a letter after
 * punctuation starts a new one (about one token), every digit is its own token in Gemma 3, a run
 * of spaces collapses into one token, `\n` inside JSON costs its backslash and its letter, and so
 * on. The estimate is the sum of the pair costs, computed in one `charCodeAt` loop with two table
 * look-ups per code unit (hundreds of MB/s).
 *
 * The ASCII part of the table (7 x 7 classes) is fitted, the non-ASCII costs are set by hand; see
 * {@link TOKEN_MODEL} for how. A giant string (over {@link SAMPLED_ABOVE_UNITS} code units) is
 * estimated from 32 evenly spaced windows of it, scaled to its length. Accuracy and speed are measured by `node bench/tokenAccuracy.mjs`
 * (docs/benchmarks.md, section 2).
 */
import type { Part } from '@google/gemini-cli-core';
import { sliceCodePoints } from './codePoints.js';

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
const enum CharClass {
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
const CLASS_COUNT = 12;
const _classCountMatches: (typeof TOKEN_CLASS_NAMES)['length'] extends typeof CLASS_COUNT
  ? true
  : never = true;
const ASCII_CLASS_COUNT = 7;
/** Class assumed before the first character of a text (as if it started a line). */
const START_CLASS = CharClass.BREAK;

/**
 * All constants of the estimator.
 *
 * `asciiPairCost[previous][current]` (rows and columns in the order of
 * {@link TOKEN_CLASS_NAMES}, first seven) is the number of Gemma 3 tokens that a character of class
 * `current` adds after a character of class `previous`. It was fitted by `node
 * bench/fitTokenModel.mjs`: non-negative least squares of the reference token counts on the pair
 * counts, each item's squared error divided by its token count (so that long and short items both
 * matter and the aggregate stays unbiased) plus a tiny ridge term that makes the solution unique,
 * rounded to 3 decimals, on the "fit" half of the recorded sessions in
 * ../shared/traces (every second session of each folder: tool outputs as JSON and model/user text,
 * items of 200+ characters); the other half is held out for the figures in docs/benchmarks.md.
 *
 * Only sums of costs along a text are meaningful: a cost can move between "entering a class" and
 * "leaving it" without changing any total, so single entries should not be read on their own.
 *
 * Non-ASCII characters are rare in that corpus. A non-ASCII letter is costed like an ASCII
 * lower-case letter, any other non-ASCII character like ASCII punctuation, plus a per-character
 * extra set by hand from Gemma 3 counts of short multilingual samples (printed by the bench):
 * CJK text runs at ~0.4-0.65 tokens per character, alphabetic scripts at ~0.3-0.45 per character,
 * symbols at ~1 and emoji at ~1-2 each.
 */
export const TOKEN_MODEL = {
  asciiPairCost: [
    // lower  upper  digit  space  break  quote  punct     (current)
    [0.06, 0.707, 1.119, 0.714, 0.882, 0.691, 0.541], // after lower
    [0.18, 0.29, 0.23, 0.528, 0.62, 1.299, 0.807], // after upper
    [0.544, 3.087, 1.037, 0.681, 1.545, 0.233, 0.479], // after digit
    [0.04, 0, 1.243, 0.045, 0.038, 0, 0], // after space
    [0.669, 0.929, 0.811, 0.951, 0.721, 0.16, 0.105], // after break
    [1.854, 1.402, 1.453, 0, 1.728, 0.072, 0.394], // after quote
    [1.387, 0.66, 1.711, 1.248, 1.31, 0, 0.074], // after punct
  ],
  /** Extra cost of a non-ASCII letter over an ASCII lower-case letter in the same position. */
  letterExtra: 0.12,
  /** Extra cost of a CJK character over ASCII punctuation in the same position. */
  cjkExtra: 0.45,
  /** Extra cost of another BMP non-ASCII character over ASCII punctuation. */
  symbolExtra: 0.1,
  /** Extra cost of a character outside the BMP (surrogate pair) over ASCII punctuation. */
  astralExtra: 0.5,
  /** Fixed estimate for an image part (inlineData / fileData with an image/* MIME type). */
  imageTokens: 3000,
  /** Fixed estimate for a PDF part (~100 pages at 258 tokens a page). */
  pdfTokens: 25_800,
  /** Added to each functionResponse for its name, id and framing. */
  functionResponseOverhead: 10,
  /** Nesting limit for functionResponse.parts inside functionResponse.parts. */
  maxPartDepth: 3,
  /** Nesting limit for objects and arrays inside a response value. */
  maxValueDepth: 64,
} as const;

// ---------------------------------------------------------------------------------------------
// Tables

/** Class of every UTF-16 code unit (64 KB, built once). */
const TEXT_CLASS = new Uint8Array(65536);
/**
 * The same inside JSON strings, with ESCAPED for the code units JSON.stringify always escapes and
 * SURROGATE for those it escapes when unpaired.
 */
const JSON_CLASS = new Uint8Array(65536);
const ESCAPED = 255;
const SURROGATE = 254;
/** Escape sequence that JSON.stringify writes for each code unit it escapes. */
const JSON_ESCAPES: string[] = [];

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

/**
 * For each class: the ASCII class whose pair costs it borrows, and the extra cost it adds when it
 * is the current class. Exported for the fitting script.
 */
export const TOKEN_CLASS_ALIAS: readonly number[] = [];
export const TOKEN_CLASS_EXTRA: readonly number[] = [];
const ALIAS = TOKEN_CLASS_ALIAS as number[];
const EXTRA = TOKEN_CLASS_EXTRA as number[];
for (let cls = 0; cls < CLASS_COUNT; cls++) {
  ALIAS[cls] =
    cls < ASCII_CLASS_COUNT ? cls : cls === CharClass.LETTER ? CharClass.LOWER : CharClass.PUNCT;
  EXTRA[cls] =
    cls === CharClass.LETTER
      ? TOKEN_MODEL.letterExtra
      : cls === CharClass.CJK
        ? TOKEN_MODEL.cjkExtra
        : cls === CharClass.SYMBOL
          ? TOKEN_MODEL.symbolExtra
          : cls === CharClass.ASTRAL
            ? TOKEN_MODEL.astralExtra
            : 0;
}

/** Pair cost table, index `previous * CLASS_COUNT + current`. */
const PAIR_COST = new Float64Array(CLASS_COUNT * CLASS_COUNT);
for (let prev = 0; prev < CLASS_COUNT; prev++) {
  for (let cur = 0; cur < CLASS_COUNT; cur++) {
    PAIR_COST[prev * CLASS_COUNT + cur] =
      cur === CharClass.ASTRAL_TAIL // already paid for by its high surrogate
        ? 0
        : (TOKEN_MODEL.asciiPairCost[ALIAS[prev] as number]?.[ALIAS[cur] as number] ?? 0) +
          (EXTRA[cur] as number);
  }
}

// ---------------------------------------------------------------------------------------------
// Tally: running sum over a stream of code units

interface Tally {
  /** Class of the last code unit fed. */
  prev: number;
  /** Tokens so far (fractional). */
  tokens: number;
}

const newTally = (): Tally => ({ prev: START_CLASS, tokens: 0 });

/** Feeds one code unit of known class. */
function feedClass(t: Tally, cls: number): void {
  t.tokens += PAIR_COST[t.prev * CLASS_COUNT + cls] ?? 0;
  t.prev = cls;
}

/** Feeds the code units of a plain text. This loop is the hot path. */
function feedTextExact(t: Tally, s: string): void {
  let prev = t.prev;
  let tokens = t.tokens;
  for (let i = 0, n = s.length; i < n; i++) {
    const cls = TEXT_CLASS[s.charCodeAt(i)] as number;
    tokens += PAIR_COST[prev * CLASS_COUNT + cls] as number;
    prev = cls;
  }
  t.prev = prev;
  t.tokens = tokens;
}

/**
 * Feeds the code units of `s` as they appear inside a JSON string literal: `"`, `\` and control
 * characters replaced by their escape sequences (the quotes around the literal are not fed here).
 */
function feedJsonCharsExact(t: Tally, s: string): void {
  let prev = t.prev;
  let tokens = t.tokens;
  for (let i = 0, n = s.length; i < n; i++) {
    const c = s.charCodeAt(i);
    let cls = JSON_CLASS[c] as number;
    if (cls >= SURROGATE) {
      // Rare. A well-formed surrogate pair is written as it is; anything else is replaced by its
      // escape sequence, e.g. `\n` (a backslash, then a letter) or `\ud800` (a lone surrogate).
      const paired =
        cls === SURROGATE &&
        (c < 0xdc00
          ? (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00
          : i > 0 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800);
      if (paired) {
        cls = TEXT_CLASS[c] as number;
      } else {
        const escape = cls === ESCAPED ? (JSON_ESCAPES[c] as string) : `\\u${c.toString(16)}`;
        for (let j = 0; j < escape.length - 1; j++) {
          const e = TEXT_CLASS[escape.charCodeAt(j)] as number;
          tokens += PAIR_COST[prev * CLASS_COUNT + e] as number;
          prev = e;
        }
        cls = TEXT_CLASS[escape.charCodeAt(escape.length - 1)] as number;
      }
    }
    tokens += PAIR_COST[prev * CLASS_COUNT + cls] as number;
    prev = cls;
  }
  t.prev = prev;
  t.tokens = tokens;
}

// ---------------------------------------------------------------------------------------------
// Giant strings: estimated from samples

/**
 * A string longer than this (8 M code units, ~8 MB of logs) is estimated from samples: walking
 * every code unit of a 200 MB output costs seconds, and its estimate only decides that it is
 * far above any threshold. Below it, every code unit is counted.
 */
export const SAMPLED_ABOVE_UNITS = 1 << 23;
/** Evenly spaced windows (the first at the start, the last at the end) of this many code units. */
const SAMPLE_WINDOWS = 32;
const SAMPLE_WINDOW_UNITS = 1 << 14;

/**
 * Feeds `s` with `feed` exactly, or, when it is giant, feeds 32 windows of it (512 K code units,
 * a few ms; never splitting a surrogate pair) and scales their tokens to its length. Deterministic: the
 * same string always gets the same estimate. The last window ends the string, so the class of
 * the last code unit carries on as if every unit had been fed.
 */
function feedMaybeSampled(t: Tally, s: string, feed: (t: Tally, s: string) => void): void {
  if (s.length <= SAMPLED_ABOVE_UNITS) {
    feed(t, s);
    return;
  }
  const sample: Tally = { prev: t.prev, tokens: 0 };
  const step = (s.length - SAMPLE_WINDOW_UNITS) / (SAMPLE_WINDOWS - 1);
  let sampledUnits = 0;
  for (let window = 0; window < SAMPLE_WINDOWS; window++) {
    const start = Math.round(window * step);
    const piece = sliceCodePoints(s, start, start + SAMPLE_WINDOW_UNITS);
    feed(sample, piece);
    sampledUnits += piece.length;
  }
  t.tokens += sampledUnits > 0 ? sample.tokens * (s.length / sampledUnits) : 0;
  t.prev = sample.prev;
}

function feedText(t: Tally, s: string): void {
  feedMaybeSampled(t, s, feedTextExact);
}

function feedJsonChars(t: Tally, s: string): void {
  feedMaybeSampled(t, s, feedJsonCharsExact);
}

/** Feeds a JSON string literal: quote, escaped content, quote. */
function feedJsonString(t: Tally, s: string): void {
  feedClass(t, CharClass.QUOTE);
  feedJsonChars(t, s);
  feedClass(t, CharClass.QUOTE);
}

/**
 * Feeds what JSON.stringify would write for `value` (as an array element or property value).
 * Returns false when JSON.stringify would omit it (undefined, functions, symbols), in which case
 * nothing was fed. Never throws.
 */
function feedJsonValue(
  t: Tally,
  value: unknown,
  key: string,
  ancestors: unknown[],
  depth: number,
): boolean {
  // toJSON (Dates and custom objects) replaces the value, as in JSON.stringify.
  if (value !== null && (typeof value === 'object' || typeof value === 'bigint')) {
    try {
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') value = toJSON.call(value, key);
    } catch {
      return false; // JSON.stringify would throw; count nothing for this value
    }
  }
  // Boxed primitives are written as their primitive value.
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    try {
      value = value.valueOf();
    } catch {
      return false;
    }
  }
  switch (typeof value) {
    case 'string':
      feedJsonString(t, value);
      return true;
    case 'number':
      feedText(t, Number.isFinite(value) ? String(value) : 'null');
      return true;
    case 'boolean':
      feedText(t, value ? 'true' : 'false');
      return true;
    case 'bigint':
      // JSON.stringify throws on BigInt; count its digits, which is what a serialiser would send.
      feedText(t, value.toString());
      return true;
    case 'object':
      break;
    default:
      return false; // undefined, function, symbol
  }
  if (value === null) {
    feedText(t, 'null');
    return true;
  }
  // Cycles (JSON.stringify would throw) and excessive depth: stop here.
  if (depth >= TOKEN_MODEL.maxValueDepth || ancestors.includes(value)) return false;
  ancestors.push(value);
  try {
    if (Array.isArray(value)) {
      feedClass(t, CharClass.PUNCT); // [
      let length = 0;
      try {
        length = value.length;
      } catch {
        length = 0;
      }
      for (let i = 0; i < length; i++) {
        if (i > 0) feedClass(t, CharClass.PUNCT); // ,
        let element: unknown;
        try {
          element = value[i];
        } catch {
          element = null;
        }
        if (!feedJsonValue(t, element, String(i), ancestors, depth + 1)) {
          feedText(t, 'null');
        }
      }
      feedClass(t, CharClass.PUNCT); // ]
    } else {
      feedClass(t, CharClass.PUNCT); // {
      let keys: string[] = [];
      try {
        keys = Object.keys(value);
      } catch {
        keys = [];
      }
      let first = true;
      for (const k of keys) {
        let property: unknown;
        try {
          property = (value as Record<string, unknown>)[k];
        } catch {
          continue; // a throwing getter: skip the property
        }
        if (property === undefined || typeof property === 'function') continue;
        if (typeof property === 'symbol') continue;
        // The separator and key are fed before knowing whether the value serialises; a value
        // that turns out not to (toJSON throwing, a cycle) leaves them counted, which is harmless.
        if (!first) feedClass(t, CharClass.PUNCT); // ,
        feedJsonString(t, k);
        feedClass(t, CharClass.PUNCT); // :
        if (!feedJsonValue(t, property, k, ancestors, depth + 1)) feedText(t, 'null');
        first = false;
      }
      feedClass(t, CharClass.PUNCT); // }
    }
  } finally {
    ancestors.pop();
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Public API

/** Estimated Gemma 3 token count of a text. */
export function estimateTextTokens(text: string): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  const t = newTally();
  feedText(t, text);
  return Math.ceil(t.tokens);
}

/**
 * ~ token count of JSON.stringify(response), computed WITHOUT building that string: the value is
 * walked, strings are counted in place with their JSON escapes, keys and punctuation are fed as
 * JSON.stringify would write them. Never throws: cycles are cut, nesting deeper than
 * {@link TOKEN_MODEL}.maxValueDepth is not counted, BigInt counts its digits, a toJSON or getter
 * that throws drops its value, undefined/functions/symbols are left out as JSON.stringify does.
 */
export function estimateFunctionResponseTokens(response: unknown): number {
  try {
    const t = newTally();
    feedJsonValue(t, response, '', [], 0);
    return Math.ceil(t.tokens);
  } catch {
    return 0; // unreachable in practice (e.g. stack exhausted by a hostile Proxy)
  }
}

function mediaTokens(mimeType: unknown): number | undefined {
  if (typeof mimeType !== 'string') return undefined;
  if (mimeType.startsWith('image/')) return TOKEN_MODEL.imageTokens;
  if (mimeType.startsWith('application/pdf')) return TOKEN_MODEL.pdfTokens;
  return undefined;
}

function estimatePartTokens(part: Part, depth: number): number {
  if (part === null || typeof part !== 'object') return 0;
  if (typeof part.text === 'string') return estimateTextTokens(part.text);
  const fr = part.functionResponse;
  if (fr) {
    let total = TOKEN_MODEL.functionResponseOverhead;
    if (fr.response !== undefined) total += estimateFunctionResponseTokens(fr.response);
    const nested = fr.parts;
    if (Array.isArray(nested) && nested.length > 0) {
      total += estimateTokenCountSync(nested as Part[], depth + 1);
    }
    return total;
  }
  const media = mediaTokens(part.inlineData?.mimeType ?? part.fileData?.mimeType);
  if (media !== undefined) return media;
  // functionCall, executableCode, codeExecutionResult, other media: their JSON size.
  return estimateFunctionResponseTokens(part);
}

/**
 * Total estimated tokens of a list of gemini Parts: text parts by their text, functionResponse
 * parts by their response plus a small fixed overhead (nested functionResponse.parts are recursed
 * up to {@link TOKEN_MODEL}.maxPartDepth levels), images and PDFs by fixed estimates, any other
 * part by its JSON. The total is the sum of the per-part (integer) estimates.
 */
export function estimateTokenCountSync(parts: readonly Part[], depth = 0): number {
  if (depth > TOKEN_MODEL.maxPartDepth || !Array.isArray(parts)) return 0;
  let total = 0;
  for (const part of parts) {
    try {
      total += estimatePartTokens(part, depth);
    } catch {
      // A hostile part (throwing getters on the part itself): count nothing for it.
    }
  }
  return total;
}
