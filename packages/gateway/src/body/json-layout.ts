/**
 * Where things are in a JSON request body, as byte offsets, without parsing it: the array holding
 * the conversation (`contents`, `request.contents`, `messages`) and its elements. The gateway uses
 * it to read only what is new in a request (a client resends its whole history, so all but the end
 * is the bytes it sent last time) and to write back only what it changed; decoding, parsing and
 * serializing a whole 1 MB body on every request would cost several milliseconds.
 *
 * The scanner is a minimal JSON tokenizer over bytes (json-walk.ts): strings are skipped natively,
 * so the bulk of a body (tool outputs are long strings) is never walked byte by byte. It only
 * finds boundaries: it assumes valid JSON (the caller falls back to a full parse when anything is
 * unexpected, and a property test checks it against `JSON.stringify`). It also weighs what it
 * walks, so the caller knows what parsing an element would cost before it parses it.
 *
 * A body may be tens of megabytes of brackets, which take a scanner in JavaScript a few hundred
 * milliseconds: every walk over a body is resumable, and gives the event loop a turn (`pause`)
 * after each megabyte. The strict check, for what is too heavy to hand to `JSON.parse` at once, is
 * json-check.ts.
 */

import { eventLoopPauser, type EventLoopPauser } from '@toolmask/core/utils';
import {
  QUOTE,
  OPEN_BRACE,
  CLOSE_BRACE,
  OPEN_BRACKET,
  CLOSE_BRACKET,
  COMMA,
  COLON,
  skipSpace,
  WALK_SLICE_BYTES,
} from './json-bytes.js';
import { skipString, skipValue, walkInSlices, weighJson } from './json-walk.js';

// What the walk gives callers of this module too (one import for a body's layout).
export { WALK_SLICE_BYTES, skipValue, weighJson };

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

/** [start, end) of the value at `keyPath` (any JSON value), or undefined when absent. */
export async function valueSpanAt(
  buffer: Buffer,
  keyPath: readonly string[],
  pause: EventLoopPauser = eventLoopPauser(),
): Promise<[number, number] | undefined> {
  const at = await valueAt(buffer, keyPath, pause);
  if (at < 0) return undefined;
  const { end } = await walkInSlices(buffer, at, pause);
  return end > at ? [at, end] : undefined;
}

/** Bytes of elements walked between two looks at the clock (a fraction of a millisecond). */
const SCAN_CHECK_BYTES = 64 * 1024;

export interface ElementSpans {
  /** [start, end) of each element scanned. */
  elements: Array<[number, number]>;
  /** Per element, its weight: about how many values parsing it makes (what that costs). */
  weights: number[];
  /** Per element, whether it may hold a number not written back exactly (json-walk.ts). */
  inexact: boolean[];
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
  const inexact: boolean[] = [];
  let at = skipSpace(buffer, position);
  if (buffer[at] === CLOSE_BRACKET) return { elements, weights, inexact, close: at };
  let checkedAt = at;
  while (elements.length < max) {
    const start = skipSpace(buffer, at);
    // Awaited only when it is a promise: a body of many small elements is scanned without one each.
    let walked = walkInSlices(buffer, start, pause);
    if (walked instanceof Promise) walked = await walked;
    const { end, weight } = walked;
    if (end < 0 || end === start) return undefined;
    elements.push([start, end]);
    weights.push(weight);
    inexact.push(walked.inexact);
    at = skipSpace(buffer, end);
    if (buffer[at] === CLOSE_BRACKET) return { elements, weights, inexact, close: at };
    if (buffer[at] !== COMMA) return undefined;
    at++;
    // The clock is read every so many bytes walked (a look costs about what a small element does).
    if (at - checkedAt >= SCAN_CHECK_BYTES) {
      checkedAt = at;
      if (pause.due()) await pause();
    }
  }
  return { elements, weights, inexact };
}
