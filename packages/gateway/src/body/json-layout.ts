/**
 * Where things are in a JSON request body, as byte offsets, without parsing it: the array holding
 * the conversation (`contents`, `request.contents`, `messages`) and its elements. The gateway uses
 * it to read only what is new in a request (a client resends its whole history, so all but the end
 * is the bytes it sent last time) and to write back only what it changed; decoding, parsing and
 * serializing a whole 1 MB body on every request would cost several milliseconds.
 *
 * The scanner is a minimal JSON tokenizer over bytes: strings are skipped by searching for the next
 * quote natively (`Buffer.indexOf`) and counting the backslashes before it, so the bulk of a body
 * (tool outputs are long strings) is never walked byte by byte. It only finds boundaries: it
 * assumes valid JSON (the caller falls back to a full parse when anything is unexpected, and a
 * property test checks it against `JSON.stringify`). It also weighs what it walks (about one per
 * value: the brackets, braces and commas outside strings), so the caller knows what parsing an
 * element would cost before it parses it.
 *
 * A body may be tens of megabytes of brackets, which take a scanner in JavaScript a few hundred
 * milliseconds: every walk over a body is resumable, and gives the event loop a turn (`pause`)
 * after each megabyte. The strict check, for what is too heavy to hand to `JSON.parse` at once, is
 * json-check.ts.
 */

import { eventLoopPauser, type EventLoopPauser } from '@toolmask/core/utils';
import {
  QUOTE,
  BACKSLASH,
  OPEN_BRACE,
  CLOSE_BRACE,
  OPEN_BRACKET,
  CLOSE_BRACKET,
  COMMA,
  COLON,
  isSpace,
  skipSpace,
  WALK_SLICE_BYTES,
} from './json-bytes.js';

export { WALK_SLICE_BYTES };

/** The offset just past the string starting at `position` (an opening quote), or -1. */
function skipString(buffer: Buffer, position: number): number {
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
}

/** What `walkValue` returns when it stopped at `stopAt` before the value ended. */
const PAUSED = -2;

const newWalk = (at: number): Walk => ({
  at,
  depth: 0,
  weight: 0,
  inString: false,
  started: false,
});

/**
 * Walks the value that `walk` is in (it starts at `walk.at`, after any space) until it ends: the
 * offset just past it, or -1 when the bytes cannot be a value there; or, after passing `stopAt`,
 * PAUSED with `walk` where it stopped (call again to go on).
 */
function walkValue(buffer: Buffer, walk: Walk, stopAt: number): number {
  let at = walk.at;
  let depth = walk.depth;
  let weight = walk.weight;
  if (!walk.started) {
    at = skipSpace(buffer, at);
    const first = buffer[at];
    if (first !== QUOTE && first !== OPEN_BRACE && first !== OPEN_BRACKET) {
      // A number or a literal: up to the next delimiter.
      while (at < buffer.length) {
        const byte = buffer[at];
        if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isSpace(byte))
          break;
        at++;
      }
      walk.weight = 1;
      return at;
    }
    walk.started = true;
    weight = 1;
    if (first === QUOTE) walk.inString = true;
    else depth = 1;
    at++;
  }
  for (;;) {
    if (walk.inString) {
      const end = stringEnd(buffer, at, stopAt);
      if (end === -1) return -1;
      if (end < -1) {
        walk.at = -2 - end;
        walk.depth = depth;
        walk.weight = weight;
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
        return PAUSED;
      }
      const byte = buffer[at];
      if (byte === QUOTE) {
        walk.inString = true;
        at++;
        break;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        depth++;
        weight++;
      } else if (byte === COMMA) weight++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) {
          walk.weight = weight;
          return at + 1;
        }
      }
      at++;
    }
    if (!walk.inString) return -1;
  }
}

/** The offset just past the JSON value starting at `position` (after any space), or -1. */
export function skipValue(buffer: Buffer, position: number): number {
  return walkValue(buffer, newWalk(position), Infinity);
}

/** A value walked to its end: where it ends (-1: not a value there) and its weight. */
interface Walked {
  end: number;
  weight: number;
}

/**
 * The value starting at `position` walked to its end, a megabyte at a time with a turn for the
 * event loop between (the first megabyte without a promise: most values are that small).
 */
function walkInSlices(
  buffer: Buffer,
  position: number,
  pause: EventLoopPauser,
): Walked | Promise<Walked> {
  const walk = newWalk(position);
  const end = walkValue(buffer, walk, position + WALK_SLICE_BYTES);
  if (end !== PAUSED) return { end, weight: walk.weight };
  return (async () => {
    let next = PAUSED;
    while (next === PAUSED) {
      await pause();
      next = walkValue(buffer, walk, walk.at + WALK_SLICE_BYTES);
    }
    return { end: next, weight: walk.weight };
  })();
}

/**
 * The offset of the value of `key` in the object starting at `position`, or -1. Compares the
 * key's raw bytes: fine for the plain ASCII keys of the APIs (`contents`, `request`, `messages`).
 */
async function findKey(
  buffer: Buffer,
  position: number,
  key: string,
  pause: EventLoopPauser,
): Promise<number> {
  let at = skipSpace(buffer, position);
  if (buffer[at] !== OPEN_BRACE) return -1;
  at++;
  const wanted = Buffer.from(JSON.stringify(key));
  for (;;) {
    at = skipSpace(buffer, at);
    if (buffer[at] === CLOSE_BRACE || at >= buffer.length) return -1;
    if (buffer[at] !== QUOTE) return -1;
    const keyEnd = skipString(buffer, at);
    if (keyEnd < 0) return -1;
    const matches =
      keyEnd - at === wanted.length && buffer.compare(wanted, 0, wanted.length, at, keyEnd) === 0;
    at = skipSpace(buffer, keyEnd);
    if (buffer[at] !== COLON) return -1;
    at = skipSpace(buffer, at + 1);
    if (matches) return at;
    at = (await walkInSlices(buffer, at, pause)).end;
    if (at < 0) return -1;
    at = skipSpace(buffer, at);
    if (buffer[at] === COMMA) at++;
  }
}

/** The offset of the value at `keyPath` (each key in the object found at the one before), or -1. */
async function valueAt(
  buffer: Buffer,
  keyPath: readonly string[],
  pause: EventLoopPauser,
): Promise<number> {
  let at = 0;
  for (const key of keyPath) {
    at = await findKey(buffer, at, key, pause);
    if (at < 0) return -1;
  }
  return at;
}

/** The offset of the `[` of the array at `keyPath` (e.g. `['request', 'contents']`), or -1. */
export async function findArray(
  buffer: Buffer,
  keyPath: readonly string[],
  pause: EventLoopPauser = eventLoopPauser(),
): Promise<number> {
  const at = await valueAt(buffer, keyPath, pause);
  return at >= 0 && buffer[at] === OPEN_BRACKET ? at : -1;
}

/** The string value at `keyPath`, or undefined (absent, or not a string). */
export async function stringAt(
  buffer: Buffer,
  keyPath: readonly string[],
  pause: EventLoopPauser = eventLoopPauser(),
): Promise<string | undefined> {
  const at = await valueAt(buffer, keyPath, pause);
  if (at < 0 || buffer[at] !== QUOTE) return undefined;
  const end = skipString(buffer, at);
  try {
    return end < 0 ? undefined : (JSON.parse(buffer.toString('utf8', at, end)) as string);
  } catch {
    return undefined;
  }
}

export interface ElementSpans {
  /** [start, end) of each element scanned. */
  elements: Array<[number, number]>;
  /** Per element, its weight: about how many values parsing it makes (what that costs). */
  weights: number[];
  /** The offset of the array's `]`, when the scan reached it. */
  close?: number;
}

/**
 * The elements of an array from `position`, which is just after its `[` or at the start of an
 * element (space allowed), up to `max` elements or the closing `]`. Undefined when the bytes are
 * not what a valid array would hold there.
 */
export async function scanElements(
  buffer: Buffer,
  position: number,
  pause: EventLoopPauser = eventLoopPauser(),
  max = Infinity,
): Promise<ElementSpans | undefined> {
  const elements: Array<[number, number]> = [];
  const weights: number[] = [];
  let at = skipSpace(buffer, position);
  if (buffer[at] === CLOSE_BRACKET) return { elements, weights, close: at };
  while (elements.length < max) {
    const start = skipSpace(buffer, at);
    // Awaited only when it is a promise: a body of many small elements is scanned without one each.
    let walked = walkInSlices(buffer, start, pause);
    if (walked instanceof Promise) walked = await walked;
    const { end, weight } = walked;
    if (end < 0 || end === start) return undefined;
    elements.push([start, end]);
    weights.push(weight);
    at = skipSpace(buffer, end);
    if (buffer[at] === CLOSE_BRACKET) return { elements, weights, close: at };
    if (buffer[at] !== COMMA) return undefined;
    at++;
    if (pause.due()) await pause();
  }
  return { elements, weights };
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
