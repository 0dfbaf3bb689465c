/**
 * A body written back as pieces instead of one copy (incremental-body.ts): the client's bytes in
 * runs, as they came, and the elements the pass rewrote between them. Joined, the pieces are the
 * body; sent, each piece is one write to the upstream's socket, with the body's length declared
 * (no chunked framing: the same request on the wire as one buffer).
 *
 * Copying a ~1.2 MB body into a new buffer on every request cost more CPU than a few dozen socket
 * writes (the allocation, its first touch, its collection), but each write costs a few µs: runs
 * shorter than `SMALL_PIECE_BYTES` are copied together, and a body left in more than `MAX_PIECES`
 * pieces is joined (docs/benchmarks.md, 6d's fifth pass).
 */
const COMMA_BYTE = 0x2c;
const COMMA = Buffer.from(',');

/** Pieces shorter than this are copied into one with their neighbours. */
export const SMALL_PIECE_BYTES = 16 * 1024;
/** More pieces than this (after that) and the body is one buffer. */
export const MAX_PIECES = 32;

/** A body as pieces in order, and its length in bytes. */
export class PiecedBody {
  constructor(
    readonly pieces: readonly Buffer[],
    readonly length: number,
  ) {}

  /** The pieces joined (one copy). */
  joined(): Buffer {
    return Buffer.concat(this.pieces as Buffer[], this.length);
  }
}

/** A body to send: bytes, text, or pieces. */
export type SentBody = Buffer | string | PiecedBody;

/** `body` as one buffer or text (pieces joined). */
export function wholeBody(body: SentBody): Buffer | string {
  return body instanceof PiecedBody ? body.joined() : body;
}

/** Its length in bytes. */
export function sentLength(body: SentBody): number {
  return body instanceof PiecedBody ? body.length : Buffer.byteLength(body);
}

/**
 * Collects a body written from `raw`: ranges of `raw` that adjoin become one run (one piece), and
 * bytes written in place of an element go between them.
 */
export class BodyPieces {
  private readonly pieces: Buffer[] = [];
  private runStart = 0;
  private runEnd = 0;
  private length = 0;

  constructor(private readonly raw: Buffer) {}

  /** Where the pieces so far end in `raw`. */
  get end(): number {
    return this.runEnd;
  }

  /** `raw[start, end)` next. */
  fromRaw(start: number, end: number): void {
    if (start !== this.runEnd) {
      this.flush();
      this.runStart = start;
    }
    this.runEnd = end;
    this.length += end - start;
  }

  /**
   * The element at `raw[start, end)`, after a comma unless it is the `first`: `comma` then
   * `fromRaw`, with the usual case (the run goes on over the comma and the element) in one step.
   */
  rawElement(start: number, end: number, first: boolean): void {
    if (!first && start === this.runEnd + 1 && this.raw[this.runEnd] === COMMA_BYTE) {
      this.length += end - this.runEnd;
      this.runEnd = end;
      return;
    }
    if (!first) this.comma();
    this.fromRaw(start, end);
  }

  /** A comma between two elements: `raw`'s own when it comes next there. */
  comma(): void {
    if (this.raw[this.runEnd] === COMMA_BYTE) this.fromRaw(this.runEnd, this.runEnd + 1);
    else this.written(COMMA, this.runEnd);
  }

  /** `bytes` in place of what `raw` has up to `rawEnd` (an element rewritten). */
  written(bytes: Buffer, rawEnd: number): void {
    this.flush();
    this.pieces.push(bytes);
    this.length += bytes.length;
    this.runStart = this.runEnd = rawEnd;
  }

  /** The body: one buffer when that is all it is, or too many pieces to send apart. */
  finish(): Buffer | PiecedBody {
    this.flush();
    const grouped = groupSmall(this.pieces);
    if (grouped.length === 1) return grouped[0] as Buffer;
    const body = new PiecedBody(grouped, this.length);
    return grouped.length > MAX_PIECES ? body.joined() : body;
  }

  private flush(): void {
    if (this.runEnd > this.runStart) {
      this.pieces.push(this.raw.subarray(this.runStart, this.runEnd));
    }
    this.runStart = this.runEnd;
  }
}

/** Adjacent pieces shorter than `SMALL_PIECE_BYTES` copied into one. */
function groupSmall(pieces: readonly Buffer[]): Buffer[] {
  const grouped: Buffer[] = [];
  let small: Buffer[] = [];
  const flushSmall = () => {
    if (small.length > 0)
      grouped.push(small.length === 1 ? (small[0] as Buffer) : Buffer.concat(small));
    small = [];
  };
  for (const piece of pieces) {
    if (piece.length < SMALL_PIECE_BYTES) {
      small.push(piece);
      continue;
    }
    flushSmall();
    grouped.push(piece);
  }
  flushSmall();
  return grouped;
}
