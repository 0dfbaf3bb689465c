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
export function checkJson(
  buffer: Buffer,
  start: number,
  end: number,
  pause: EventLoopPauser,
): Promise<JsonCheck> {
  return new JsonWalk(buffer, start, end, pause).run();
}

/** One check's state: where it is, the containers it is in, and what may come next. */
class JsonWalk {
  private stack = new Uint8Array(64);
  private depth = 0;
  private weight = 0;
  private mode = EXPECT_VALUE;
  private checkpoint: number;

  constructor(
    private readonly buffer: Buffer,
    private at: number,
    private readonly end: number,
    private readonly pause: EventLoopPauser,
  ) {
    this.checkpoint = at + WALK_SLICE_BYTES;
  }

  /** Each step returns the answer once there is one, undefined to go on. */
  async run(): Promise<JsonCheck> {
    for (;;) {
      // Awaited only at a megabyte's end: an await per value would cost more than the check.
      if (this.at >= this.checkpoint) await this.breathe();
      this.skipSpace();
      let answer: JsonCheck | undefined;
      if (this.mode === AFTER_VALUE) answer = this.afterValue();
      else if (this.at >= this.end) answer = this.fail(this.end);
      else if (this.buffer[this.at] === QUOTE) answer = await this.string();
      else answer = this.value();
      if (answer) return answer;
    }
  }

  private fail(position: number): JsonCheck {
    return { ok: false, position, weight: this.weight };
  }

  private breathe(): Promise<void> {
    this.checkpoint = this.at + WALK_SLICE_BYTES;
    return this.pause();
  }

  private skipSpace(): void {
    while (this.at < this.end && isSpace(this.buffer[this.at])) this.at++;
  }

  /** A comma, or the end of the container the value was in (or of the text). */
  private afterValue(): JsonCheck | undefined {
    const { buffer, end } = this;
    if (this.depth === 0)
      return this.at === end ? { ok: true, weight: this.weight } : this.fail(this.at);
    if (this.at >= end) return this.fail(end);
    const byte = buffer[this.at];
    const inside = this.stack[this.depth - 1];
    if (byte === COMMA) {
      this.at++;
      this.mode = inside === IN_OBJECT ? EXPECT_KEY : EXPECT_VALUE;
    } else if (
      (byte === CLOSE_BRACKET && inside === IN_ARRAY) ||
      (byte === CLOSE_BRACE && inside === IN_OBJECT)
    ) {
      this.at++;
      this.depth--;
    } else {
      return this.fail(this.at);
    }
    return undefined;
  }

  /** A string, as a value or a key: no raw control character, only the escapes JSON has. */
  private async string(): Promise<JsonCheck | undefined> {
    const { buffer, end } = this;
    this.at++;
    for (;;) {
      if (this.at >= end) return this.fail(end);
      if (this.at >= this.checkpoint) await this.breathe();
      const inString = buffer[this.at] as number;
      if (inString === QUOTE) break;
      if (inString < 0x20) return this.fail(this.at);
      if (inString === BACKSLASH) {
        const failure = this.escape();
        if (failure) return failure;
        continue;
      }
      this.at++;
    }
    this.at++;
    if (this.mode !== EXPECT_KEY) {
      this.weight++;
      this.mode = AFTER_VALUE;
      return undefined;
    }
    this.skipSpace();
    if (this.at >= end) return this.fail(end);
    if (buffer[this.at] !== COLON) return this.fail(this.at);
    this.at++;
    this.mode = EXPECT_VALUE;
    return undefined;
  }

  /** The escape at a backslash, stepped over. */
  private escape(): JsonCheck | undefined {
    const { buffer, end, at } = this;
    const escaped = buffer[at + 1];
    if (escaped === 0x75) {
      for (let digit = 2; digit < 6; digit++) {
        if (at + digit >= end || !isHex(buffer[at + digit])) return this.fail(at + digit);
      }
      this.at += 6;
      return undefined;
    }
    if (at + 1 >= end || escaped === undefined || !SIMPLE_ESCAPES.has(escaped)) {
      return this.fail(at + 1);
    }
    this.at += 2;
    return undefined;
  }

  /** A value that is not a string: a container's start, a number, a literal. */
  private value(): JsonCheck | undefined {
    const byte = this.buffer[this.at] as number;
    if (this.mode === EXPECT_KEY) return this.fail(this.at);
    this.weight++;
    if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      this.open(byte);
      return undefined;
    }
    if (byte === MINUS || isDigit(byte)) {
      const after = numberEnd(this.buffer, this.at, this.end);
      if (after < 0) return this.fail(~after);
      this.at = after;
      this.mode = AFTER_VALUE;
      return undefined;
    }
    return this.literal(byte);
  }

  /** An array or object opened (an empty one closed at once). */
  private open(byte: number): void {
    if (this.depth === this.stack.length) {
      const grown = new Uint8Array(this.stack.length * 2);
      grown.set(this.stack);
      this.stack = grown;
    }
    this.stack[this.depth++] = byte === OPEN_BRACKET ? IN_ARRAY : IN_OBJECT;
    this.at++;
    this.skipSpace();
    const close = byte === OPEN_BRACKET ? CLOSE_BRACKET : CLOSE_BRACE;
    if (this.at < this.end && this.buffer[this.at] === close) {
      this.at++;
      this.depth--;
      this.mode = AFTER_VALUE;
    } else {
      this.mode = byte === OPEN_BRACKET ? EXPECT_VALUE : EXPECT_KEY;
    }
  }

  /** `true`, `false` or `null`. */
  private literal(byte: number): JsonCheck | undefined {
    const literal = LITERALS.find((word) => word[0] === byte);
    if (!literal) return this.fail(this.at);
    for (let index = 0; index < literal.length; index++) {
      if (this.at + index >= this.end) return this.fail(this.end);
      if (this.buffer[this.at + index] !== literal[index]) return this.fail(this.at + index);
    }
    this.at += literal.length;
    this.mode = AFTER_VALUE;
    return undefined;
  }
}
