/**
 * Walking one JSON value over bytes, without parsing it: where it ends and what it weighs (about
 * one per value: the brackets, braces and commas outside strings, so a caller knows what parsing
 * it would cost), and whether it may hold a number JavaScript cannot write back exactly (so the
 * parsed value need not be walked again to tell: json-safety.ts). The scanner behind
 * json-layout.ts.
 *
 * Strings are skipped by searching for the next quote natively (`Buffer.indexOf`) and counting
 * the backslashes before it, so the bulk of a body (tool outputs are long strings) is never walked
 * byte by byte. It only finds boundaries: it assumes valid JSON (its callers fall back to a full
 * parse when anything is unexpected). A walk is resumable: a value of tens of megabytes of
 * brackets is walked a megabyte at a time, with a turn for the event loop between.
 */
import type { EventLoopPauser } from '@toolmask/core/utils';
import {
  QUOTE,
  BACKSLASH,
  OPEN_BRACE,
  CLOSE_BRACE,
  OPEN_BRACKET,
  CLOSE_BRACKET,
  COMMA,
  isSpace,
  skipSpace,
  WALK_SLICE_BYTES,
} from './json-bytes.js';
import { MAX_CHECKED_DEPTH } from './json-safety.js';

/** The offset just past the string starting at `position` (an opening quote), or -1. */
export function skipString(buffer: Buffer, position: number): number {
  return stringEnd(buffer, position + 1, Infinity);
}

/**
 * The offset just past the string whose content goes on at `at` (after its opening quote, or after
 * a quote that turned out to be escaped), or -1 when it never closes. Stops at the first quote at
 * or past `stopAt` that does not close it, and returns `-2 - (that quote + 1)`: the walk goes on
 * from there (a string of millions of escaped quotes is walked in stretches too).
 */
function stringEnd(buffer: Buffer, at: number, stopAt: number): number {
  for (;;) {
    const quote = buffer.indexOf(QUOTE, at);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (buffer[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
    if (at >= stopAt) return -2 - at;
  }
}

/** Where a resumable walk over one value is. */
interface Walk {
  /** Where it goes on. */
  at: number;
  /** Brackets and braces open. */
  depth: number;
  /** Containers and separators walked so far: about one per value. */
  weight: number;
  /** `at` is inside a string. */
  inString: boolean;
  started: boolean;
  /** Digits in a row just before `at` (outside strings, digits are numbers' only). */
  digits: number;
  /**
   * A number walked has more digits in a row than `EXACT_DIGITS`, or an exponent; or containers
   * are nested deeper than `MAX_CHECKED_DEPTH`.
   */
  inexact: boolean;
}

/**
 * A number with no run of more digits than this and no exponent is below 10^15 (under 2^53) and
 * finite: it is written back exactly (json-safety.ts). Any other may not be, and is checked.
 */
const EXACT_DIGITS = 15;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
/** The first letters of `true`, `false` and `null`. */
const LOWER_T = 0x74;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;

/** What `walkValue` returns when it stopped at `stopAt` before the value ended. */
const PAUSED = -2;

const newWalk = (at: number): Walk => ({
  at,
  depth: 0,
  weight: 0,
  inString: false,
  started: false,
  digits: 0,
  inexact: false,
});

/**
 * Walks the value that `walk` is in (it starts at `walk.at`, after any space) until it ends: the
 * offset just past it, or -1 when the bytes cannot be a value there; or, after passing `stopAt`,
 * PAUSED with `walk` where it stopped (call again to go on).
 */
function walkValue(buffer: Buffer, walk: Walk, stopAt: number): number {
  if (!walk.started) {
    const scalarEnd = startWalk(buffer, walk);
    if (scalarEnd !== undefined) return scalarEnd;
  }
  let at = walk.at;
  let depth = walk.depth;
  let weight = walk.weight;
  let digits = walk.digits;
  let inexact = walk.inexact;
  for (;;) {
    if (walk.inString) {
      const end = stringEnd(buffer, at, stopAt);
      if (end === -1) return -1;
      if (end < -1) {
        walk.at = -2 - end;
        walk.depth = depth;
        walk.weight = weight;
        walk.digits = 0;
        walk.inexact = inexact;
        return PAUSED;
      }
      at = end;
      walk.inString = false;
      if (depth === 0) {
        walk.weight = weight;
        return at;
      }
    }
    while (at < buffer.length) {
      if (at >= stopAt) {
        walk.at = at;
        walk.depth = depth;
        walk.weight = weight;
        walk.digits = digits;
        walk.inexact = inexact;
        return PAUSED;
      }
      const byte = buffer[at] as number;
      if (byte >= DIGIT_0 && byte <= DIGIT_9) {
        if (++digits > EXACT_DIGITS) inexact = true;
        at++;
        continue;
      }
      if ((byte === LOWER_E || byte === UPPER_E) && digits > 0) inexact = true;
      digits = 0;
      if (byte === QUOTE) {
        walk.inString = true;
        at++;
        break;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        // Deeper than roundTripsExactly walks: it refuses the value, so it must see it.
        if (++depth > MAX_CHECKED_DEPTH) inexact = true;
        weight++;
      } else if (byte === COMMA) weight++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) {
          walk.weight = weight;
          walk.inexact = inexact;
          return at + 1;
        }
      }
      at++;
    }
    if (!walk.inString) return -1;
  }
}

/**
 * Starts `walk` at its value (after any space): a number or a literal is walked whole, and the
 * offset just past it returned; a string, object or array is entered (`walk` just inside it).
 */
function startWalk(buffer: Buffer, walk: Walk): number | undefined {
  let at = skipSpace(buffer, walk.at);
  const first = buffer[at];
  if (first !== QUOTE && first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number or a literal: up to the next delimiter (a number alone is checked when parsed).
    walk.inexact = first !== LOWER_T && first !== LOWER_F && first !== LOWER_N;
    while (at < buffer.length) {
      const byte = buffer[at];
      if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isSpace(byte)) break;
      at++;
    }
    walk.weight = 1;
    return at;
  }
  walk.started = true;
  walk.weight = 1;
  if (first === QUOTE) walk.inString = true;
  else walk.depth = 1;
  walk.at = at + 1;
  return undefined;
}

/** The offset just past the JSON value starting at `position` (after any space), or -1. */
export function skipValue(buffer: Buffer, position: number): number {
  return walkValue(buffer, newWalk(position), Infinity);
}

/**
 * A value walked to its end: where it ends (-1: not a value there), its weight, and whether it
 * may hold a number that is not written back exactly (false: it holds none).
 */
export interface Walked {
  end: number;
  weight: number;
  inexact: boolean;
}

/**
 * The value starting at `position` walked to its end, a megabyte at a time with a turn for the
 * event loop between (the first megabyte without a promise: most values are that small).
 */
export function walkInSlices(
  buffer: Buffer,
  position: number,
  pause: EventLoopPauser,
): Walked | Promise<Walked> {
  const walk = newWalk(position);
  const end = walkValue(buffer, walk, position + WALK_SLICE_BYTES);
  if (end !== PAUSED) return { end, weight: walk.weight, inexact: walk.inexact };
  return (async () => {
    let next = PAUSED;
    while (next === PAUSED) {
      await pause();
      next = walkValue(buffer, walk, walk.at + WALK_SLICE_BYTES);
    }
    return { end: next, weight: walk.weight, inexact: walk.inexact };
  })();
}

/** The weight of the JSON text `buffer[start, end)`, walked in stretches; undefined when it is not one value. */
export async function weighJson(
  buffer: Buffer,
  start: number,
  end: number,
  pause: EventLoopPauser,
): Promise<number | undefined> {
  const text = end === buffer.length ? buffer : buffer.subarray(0, end);
  const walked = await walkInSlices(text, start, pause);
  if (walked.end < 0 || skipSpace(text, walked.end) !== end) return undefined;
  return walked.weight;
}
