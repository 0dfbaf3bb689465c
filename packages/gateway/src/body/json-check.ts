/**
 * Whether bytes are one JSON text, checked in stretches without building anything: for what is too
 * heavy to hand to `JSON.parse` at once (decode-body.ts, incremental-body.ts). A property test
 * holds it to `JSON.parse`'s answer.
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
  COLON,
  MINUS,
  PLUS,
  DOT,
  DIGIT_0,
  DIGIT_9,
  isSpace,
  WALK_SLICE_BYTES,
} from './json-bytes.js';

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
