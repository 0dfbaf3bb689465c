/** The bytes of JSON's syntax, and white space, for the byte scanners (json-layout.ts, json-check.ts). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const MINUS = 0x2d;
export const PLUS = 0x2b;
export const DOT = 0x2e;
export const DIGIT_0 = 0x30;
export const DIGIT_9 = 0x39;

export function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

export function skipSpace(buffer: Buffer, position: number): number {
  while (position < buffer.length && isSpace(buffer[position])) position++;
  return position;
}

/** Bytes walked between two checks for a turn of the event loop (a few milliseconds of scanning). */
export const WALK_SLICE_BYTES = 1 << 20;
