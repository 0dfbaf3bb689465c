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
 * property test checks it against `JSON.stringify`).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(buffer: Buffer, position: number): number {
  while (position < buffer.length && isSpace(buffer[position])) position++;
  return position;
}

/** The offset just past the string starting at `position` (an opening quote), or -1. */
function skipString(buffer: Buffer, position: number): number {
  let at = position + 1;
  for (;;) {
    const quote = buffer.indexOf(QUOTE, at);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (buffer[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

/** The offset just past the JSON value starting at `position` (after any space), or -1. */
export function skipValue(buffer: Buffer, position: number): number {
  let at = skipSpace(buffer, position);
  const first = buffer[at];
  if (first === QUOTE) return skipString(buffer, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number or a literal: up to the next delimiter.
    while (at < buffer.length) {
      const byte = buffer[at];
      if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isSpace(byte)) break;
      at++;
    }
    return at;
  }
  let depth = 0;
  while (at < buffer.length) {
    const byte = buffer[at];
    if (byte === QUOTE) {
      at = skipString(buffer, at);
      if (at < 0) return -1;
      continue;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
    else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return at + 1;
    }
    at++;
  }
  return -1;
}

/**
 * The offset of the value of `key` in the object starting at `position`, or -1. Compares the
 * key's raw bytes: fine for the plain ASCII keys of the APIs (`contents`, `request`, `messages`).
 */
function findKey(buffer: Buffer, position: number, key: string): number {
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
    at = skipValue(buffer, at);
    if (at < 0) return -1;
    at = skipSpace(buffer, at);
    if (buffer[at] === COMMA) at++;
  }
}

/** The offset of the `[` of the array at `keyPath` (e.g. `['request', 'contents']`), or -1. */
export function findArray(buffer: Buffer, keyPath: readonly string[]): number {
  let at = 0;
  for (const key of keyPath) {
    at = findKey(buffer, at, key);
    if (at < 0) return -1;
  }
  return buffer[at] === OPEN_BRACKET ? at : -1;
}

/** The string value at `keyPath`, or undefined (absent, or not a string). */
export function stringAt(buffer: Buffer, keyPath: readonly string[]): string | undefined {
  let at = 0;
  for (const key of keyPath) {
    at = findKey(buffer, at, key);
    if (at < 0) return undefined;
  }
  if (buffer[at] !== QUOTE) return undefined;
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
  /** The offset of the array's `]`, when the scan reached it. */
  close?: number;
}

/**
 * The elements of an array from `position`, which is just after its `[` or at the start of an
 * element (space allowed), up to `max` elements or the closing `]`. Undefined when the bytes are
 * not what a valid array would hold there.
 */
export function scanElements(
  buffer: Buffer,
  position: number,
  max = Infinity,
): ElementSpans | undefined {
  const elements: Array<[number, number]> = [];
  let at = skipSpace(buffer, position);
  if (buffer[at] === CLOSE_BRACKET) return { elements, close: at };
  while (elements.length < max) {
    const start = skipSpace(buffer, at);
    const end = skipValue(buffer, start);
    if (end < 0 || end === start) return undefined;
    elements.push([start, end]);
    at = skipSpace(buffer, end);
    if (buffer[at] === CLOSE_BRACKET) return { elements, close: at };
    if (buffer[at] !== COMMA) return undefined;
    at++;
  }
  return { elements };
}
