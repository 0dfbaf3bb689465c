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
 * after each megabyte. `checkJson` is the strict one, for what is too heavy to hand to
 * `JSON.parse` at once: it says whether bytes are JSON, in stretches, without building anything.
 */

import { eventLoopPauser, type EventLoopPauser } from '@toolmask/core/utils';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(buffer: Buffer, position: number): number {
  while (position < buffer.length && isSpace(buffer[position])) position++;
  return position;
}

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

/** Bytes walked between two checks for a turn of the event loop (a few milliseconds of scanning). */
export const WALK_SLICE_BYTES = 1 << 20;

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

/** `weight`: the values the text holds (up to the failure). */
export type JsonCheck =
  | { ok: true; weight: number }
  /** `position`: the first byte that cannot be where it is (`end` when the text ends early). */
  | { ok: false; position: number; weight: number };

const IN_ARRAY = 1;
const IN_OBJECT = 2;
const EXPECT_VALUE = 0;
const EXPECT_KEY = 1;
const AFTER_VALUE = 2;

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= DIGIT_0 && byte <= DIGIT_9;
}

function isHex(byte: number | undefined): boolean {
  return (
    byte !== undefined &&
    ((byte >= DIGIT_0 && byte <= DIGIT_9) ||
      (byte >= 0x41 && byte <= 0x46) ||
      (byte >= 0x61 && byte <= 0x66))
  );
}

/** The bytes an escape may name after its backslash (besides `u` and four hex digits). */
const SIMPLE_ESCAPES = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const LITERALS = [Buffer.from('true'), Buffer.from('false'), Buffer.from('null')];

/**
 * The offset just past the number starting at `at`, or the complement (`~`) of the first byte
 * that cannot be in it.
 */
function numberEnd(buffer: Buffer, at: number, end: number): number {
  if (buffer[at] === MINUS) at++;
  if (at >= end) return ~at;
  if (buffer[at] === DIGIT_0) at++;
  else if (isDigit(buffer[at])) while (at < end && isDigit(buffer[at])) at++;
  else return ~at;
  if (at < end && buffer[at] === DOT) {
    at++;
    if (at >= end || !isDigit(buffer[at])) return ~at;
    while (at < end && isDigit(buffer[at])) at++;
  }
  if (at < end && (buffer[at] === 0x65 || buffer[at] === 0x45)) {
    at++;
    if (at < end && (buffer[at] === PLUS || buffer[at] === MINUS)) at++;
    if (at >= end || !isDigit(buffer[at])) return ~at;
    while (at < end && isDigit(buffer[at])) at++;
  }
  return at;
}

/**
 * Whether `buffer[start, end)` is one JSON text (RFC 8259; the caller knows the bytes are UTF-8),
 * checked byte by byte with an explicit stack (any depth), a megabyte at a time with a turn for the
 * event loop between, and nothing built: for a body too heavy to hand to `JSON.parse` at once.
 */
export async function checkJson(
  buffer: Buffer,
  start: number,
  end: number,
  pause: EventLoopPauser,
): Promise<JsonCheck> {
  let stack = new Uint8Array(64);
  let depth = 0;
  let at = start;
  let weight = 0;
  let mode = EXPECT_VALUE;
  let checkpoint = at + WALK_SLICE_BYTES;
  const fail = (position: number): JsonCheck => ({ ok: false, position, weight });
  const breathe = () => {
    checkpoint = at + WALK_SLICE_BYTES;
    return pause();
  };
  for (;;) {
    // Awaited only at a megabyte's end: an await per value would cost more than the check.
    if (at >= checkpoint) await breathe();
    while (at < end && isSpace(buffer[at])) at++;
    if (mode === AFTER_VALUE) {
      if (depth === 0) return at === end ? { ok: true, weight } : fail(at);
      if (at >= end) return fail(end);
      const byte = buffer[at];
      const inside = stack[depth - 1];
      if (byte === COMMA) {
        at++;
        mode = inside === IN_OBJECT ? EXPECT_KEY : EXPECT_VALUE;
      } else if (
        (byte === CLOSE_BRACKET && inside === IN_ARRAY) ||
        (byte === CLOSE_BRACE && inside === IN_OBJECT)
      ) {
        at++;
        depth--;
      } else {
        return fail(at);
      }
      continue;
    }
    if (at >= end) return fail(end);
    const byte = buffer[at] as number;
    if (byte === QUOTE) {
      // A string, as a value or a key: no raw control character, only the escapes JSON has.
      at++;
      for (;;) {
        if (at >= end) return fail(end);
        if (at >= checkpoint) await breathe();
        const inString = buffer[at] as number;
        if (inString === QUOTE) break;
        if (inString < 0x20) return fail(at);
        if (inString === BACKSLASH) {
          const escaped = buffer[at + 1];
          if (escaped === 0x75) {
            for (let digit = 2; digit < 6; digit++) {
              if (at + digit >= end || !isHex(buffer[at + digit])) return fail(at + digit);
            }
            at += 6;
            continue;
          }
          if (at + 1 >= end || escaped === undefined || !SIMPLE_ESCAPES.has(escaped))
            return fail(at + 1);
          at += 2;
          continue;
        }
        at++;
      }
      at++;
      if (mode === EXPECT_KEY) {
        while (at < end && isSpace(buffer[at])) at++;
        if (at >= end) return fail(end);
        if (buffer[at] !== COLON) return fail(at);
        at++;
        mode = EXPECT_VALUE;
      } else {
        weight++;
        mode = AFTER_VALUE;
      }
      continue;
    }
    if (mode === EXPECT_KEY) return fail(at);
    weight++;
    if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (depth === stack.length) {
        const grown = new Uint8Array(stack.length * 2);
        grown.set(stack);
        stack = grown;
      }
      stack[depth++] = byte === OPEN_BRACKET ? IN_ARRAY : IN_OBJECT;
      at++;
      while (at < end && isSpace(buffer[at])) at++;
      if (at < end && buffer[at] === (byte === OPEN_BRACKET ? CLOSE_BRACKET : CLOSE_BRACE)) {
        at++;
        depth--;
        mode = AFTER_VALUE;
      } else {
        mode = byte === OPEN_BRACKET ? EXPECT_VALUE : EXPECT_KEY;
      }
      continue;
    }
    if (byte === MINUS || isDigit(byte)) {
      const after = numberEnd(buffer, at, end);
      if (after < 0) return fail(~after);
      at = after;
      mode = AFTER_VALUE;
      continue;
    }
    const literal = LITERALS.find((word) => word[0] === byte);
    if (!literal) return fail(at);
    for (let index = 0; index < literal.length; index++) {
      if (at + index >= end) return fail(end);
      if (buffer[at + index] !== literal[index]) return fail(at + index);
    }
    at += literal.length;
    mode = AFTER_VALUE;
  }
}
