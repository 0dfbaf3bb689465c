/**
 * The running sum of an estimate over a stream of code units (`Tally`): each unit adds the cost
 * of its class after the class of the unit before it (tokenModel.ts), as plain text or as it
 * appears inside a JSON string literal (escapes fed as the characters `JSON.stringify` writes,
 * without building them). These loops are the estimator's hot path: two table look-ups per code
 * unit. A giant string (over `SAMPLED_ABOVE_UNITS`) is fed from 32 evenly spaced windows, scaled
 * to its length; the same string always gets the same estimate.
 */
import { sliceCodePoints } from '../codePoints.js';
import {
  CLASS_COUNT,
  CharClass,
  ESCAPED,
  JSON_CLASS,
  JSON_ESCAPES,
  START_CLASS,
  SURROGATE,
  TEXT_CLASS,
} from './tokenClasses.js';
import { PAIR_COST } from './tokenModel.js';

/**
 * What the hot loops read for every code unit, which they take into locals first: an imported
 * binding is read through its module on every use (reading the imports in the loops made the
 * estimates of JSON strings and objects 10-50% slower).
 */
const TABLES = {
  textClass: TEXT_CLASS,
  jsonClass: JSON_CLASS,
  pairCost: PAIR_COST,
  classCount: CLASS_COUNT,
  jsonEscapes: JSON_ESCAPES,
  escaped: ESCAPED,
  surrogate: SURROGATE,
} as const;

export interface Tally {
  /** Class of the last code unit fed. */
  prev: number;
  /** Tokens so far (fractional). */
  tokens: number;
}

export const newTally = (): Tally => ({ prev: START_CLASS, tokens: 0 });

/** Feeds one code unit of known class. */
export function feedClass(t: Tally, cls: number): void {
  t.tokens += TABLES.pairCost[t.prev * TABLES.classCount + cls] ?? 0;
  t.prev = cls;
}

/**
 * The class of the last code unit the last hot loop fed. The loops return their sum and leave
 * their last class here rather than in a `Tally`: a store to an object after a loop that V8
 * compiled while running it (on-stack replacement) has no type feedback yet, and leaving that
 * loop threw the compiled code away again, once per call, in a fresh process.
 */
let lastClass: number = START_CLASS;

/** `tokens` plus the code units of a plain text after a unit of class `prev`. The hot path. */
function textTokens(s: string, prev: number, tokens: number): number {
  const { textClass, pairCost, classCount } = TABLES;
  for (let i = 0, n = s.length; i < n; i++) {
    const cls = textClass[s.charCodeAt(i)] as number;
    tokens += pairCost[prev * classCount + cls] as number;
    prev = cls;
  }
  lastClass = prev;
  return tokens;
}

/** Feeds the code units of a plain text. */
function feedTextExact(t: Tally, s: string): void {
  t.tokens = textTokens(s, t.prev, t.tokens);
  t.prev = lastClass;
}

/**
 * Feeds the code units of `s` as they appear inside a JSON string literal: `"`, `\` and control
 * characters replaced by their escape sequences (the quotes around the literal are not fed here).
 */
function feedJsonCharsExact(t: Tally, s: string): void {
  const { textClass, jsonClass, pairCost, classCount, jsonEscapes, escaped, surrogate } = TABLES;
  let prev = t.prev;
  let tokens = t.tokens;
  for (let i = 0, n = s.length; i < n; i++) {
    const c = s.charCodeAt(i);
    let cls = jsonClass[c] as number;
    if (cls >= surrogate) {
      // Rare. A well-formed surrogate pair is written as it is; anything else is replaced by its
      // escape sequence, e.g. `\n` (a backslash, then a letter) or `\ud800` (a lone surrogate).
      const paired =
        cls === surrogate &&
        (c < 0xdc00
          ? (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00
          : i > 0 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800);
      if (paired) {
        cls = textClass[c] as number;
      } else {
        const escape = cls === escaped ? (jsonEscapes[c] as string) : `\\u${c.toString(16)}`;
        for (let j = 0; j < escape.length - 1; j++) {
          const e = textClass[escape.charCodeAt(j)] as number;
          tokens += pairCost[prev * classCount + e] as number;
          prev = e;
        }
        cls = textClass[escape.charCodeAt(escape.length - 1)] as number;
      }
    }
    tokens += pairCost[prev * classCount + cls] as number;
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

export function feedText(t: Tally, s: string): void {
  if (s.length <= SAMPLED_ABOVE_UNITS) feedTextExact(t, s);
  else feedMaybeSampled(t, s, feedTextExact);
}

function feedJsonChars(t: Tally, s: string): void {
  if (s.length <= SAMPLED_ABOVE_UNITS) feedJsonCharsExact(t, s);
  else feedMaybeSampled(t, s, feedJsonCharsExact);
}

/** Estimated tokens of a text from the start of a line (`estimateTextTokens`), not rounded. */
export function plainTextTokens(s: string): number {
  if (s.length <= SAMPLED_ABOVE_UNITS) return textTokens(s, START_CLASS, 0);
  const t = newTally();
  feedMaybeSampled(t, s, feedTextExact);
  return t.tokens;
}

/** Feeds a JSON string literal: quote, escaped content, quote. */
export function feedJsonString(t: Tally, s: string): void {
  feedClass(t, CharClass.QUOTE);
  feedJsonChars(t, s);
  feedClass(t, CharClass.QUOTE);
}
