/**
 * The lines of an offloaded output, streamed from an open file in batches of raw bytes: never the
 * whole file in memory, and nothing decoded that is not shown. Reading one line of a 200 MB
 * output costs one chunk; skipping to line 3,000,000 only counts newlines (native `indexOf`).
 *
 * Lines are split at `\n` with a trailing `\r` dropped, as the snippet header counts them (a file
 * ending with `\n` has a last, empty line; an empty file has one empty line). A line is decoded
 * as UTF-8 when it is asked for (an invalid sequence becomes U+FFFD). A line that spans chunks
 * and is longer than `keepBytes` keeps only its head (cut on a character boundary) and how many
 * UTF-16 code units were left out, so memory stays bounded whatever the file holds.
 *
 * Every chunk is an `await`: the host's event loop runs between chunks.
 */
import type { FileHandle } from 'node:fs/promises';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** A UTF-8 continuation byte (`10xxxxxx`). */
const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/** UTF-16 code units of UTF-8 bytes: one per character, two for characters above U+FFFF. */
export function utf16Units(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let units = 0;
  for (let index = start; index < end; index++) {
    const byte = bytes[index] as number;
    if (!isContinuation(byte)) units += byte >= 0xf0 ? 2 : 1;
  }
  return units;
}

/** The largest `cut <= limit` that does not fall inside a UTF-8 sequence of `bytes`. */
function characterBoundary(bytes: Uint8Array, limit: number): number {
  let cut = Math.min(limit, bytes.length);
  while (cut > 0 && cut < bytes.length && isContinuation(bytes[cut] as number)) cut--;
  return cut;
}

export interface Line {
  /** The line (its kept head when it was cut), without `\n` and a trailing `\r`. */
  text: string;
  /** Its full length in UTF-16 code units. */
  length: number;
}

/** Complete lines of the file, as raw bytes: `data` holds them, each but the file's last ending in `\n`. */
export class LineBatch {
  constructor(
    /** Number (1-based) of the first line. */
    readonly first: number,
    readonly data: Buffer,
    /** Where each line starts in `data`. */
    private readonly starts: readonly number[],
    /** For a line that was cut: the code units left out (by index). */
    private readonly cutUnits: ReadonlyMap<number, number>,
    /** The batch ends the file. */
    readonly last: boolean,
  ) {}

  get count(): number {
    return this.starts.length;
  }

  /** The bytes of the lines from `index` on (what a pattern is matched against). */
  bytesFrom(index: number): Buffer {
    return this.data.subarray(this.starts[index] ?? this.data.length);
  }

  /** Line `index` of the batch, decoded. */
  line(index: number): Line {
    const start = this.starts[index] as number;
    let end =
      index + 1 < this.starts.length ? (this.starts[index + 1] as number) - 1 : this.data.length;
    if (end > start && this.data[end - 1] === NEWLINE) end--; // the file's last line has none
    const leftOut = this.cutUnits.get(index);
    // The `\r` of `\r\n`; a cut line's head does not reach its end.
    if (leftOut === undefined && end > start && this.data[end - 1] === CARRIAGE_RETURN) end--;
    const text = this.data.toString('utf8', start, end);
    return { text, length: text.length + (leftOut ?? 0) };
  }
}

export interface LineStreamOptions {
  /** Bytes read per chunk. @default 1 MiB */
  chunkBytes?: number;
  /** Bytes kept of a line that spans chunks (at least `chunkBytes` keeps every line whole in practice). */
  keepBytes: number;
  signal?: AbortSignal;
}

/** Where each line of `data` (lines ending in `\n`) starts. */
function lineStarts(data: Buffer): number[] {
  const starts = [0];
  for (
    let at = data.indexOf(NEWLINE);
    at !== -1 && at + 1 < data.length;
    at = data.indexOf(NEWLINE, at + 1)
  ) {
    starts.push(at + 1);
  }
  return starts;
}

/**
 * Yields the lines of the open file `handle`, from its start, in batches of about one chunk. A
 * batch's bytes live in a buffer the next batch reuses: take what you need before asking for it.
 */
export async function* lineBatches(
  handle: FileHandle,
  options: LineStreamOptions,
): AsyncGenerator<LineBatch> {
  const chunkBytes = options.chunkBytes ?? 1 << 20;
  const keepBytes = Math.max(1, options.keepBytes);
  // work[0, open) holds the kept head of the line being read; each chunk is read right after it.
  const work = Buffer.allocUnsafe(keepBytes + chunkBytes);
  let open = 0;
  let cut = false; // the open line's head is complete: what follows is only counted
  let leftOut = 0; // UTF-16 units of the open line that were not kept
  let lastByte = -1; // the open line's last byte so far
  let position = 0;
  let next = 1;

  /** Keeps at most `keepBytes` of the open line, whose bytes are work[0, end); returns the kept length. */
  const keepHead = (end: number): number => {
    if (end <= keepBytes) return end;
    const boundary = characterBoundary(work.subarray(0, end), keepBytes);
    leftOut += utf16Units(work, boundary, end);
    cut = true;
    return boundary;
  };
  const leftOutOfLine = () => (cut && lastByte === CARRIAGE_RETURN ? leftOut - 1 : leftOut);

  for (;;) {
    options.signal?.throwIfAborted();
    const { bytesRead } = await handle.read(work, open, chunkBytes, position);
    position += bytesRead;
    if (bytesRead === 0) {
      const last = leftOutOfLine();
      yield new LineBatch(next, work.subarray(0, open), [0], new Map(cut ? [[0, last]] : []), true);
      return;
    }
    let end = open + bytesRead;
    const newline = work.indexOf(NEWLINE, open);
    if (newline === -1 || newline >= end) {
      // No line ends in this chunk: the open line goes on.
      lastByte = work[end - 1] as number;
      if (cut) leftOut += utf16Units(work, open, end);
      else open = keepHead(end);
      continue;
    }
    // The open line ends at `newline`: keep its head, then close the gap before its `\n`.
    if (newline > open) lastByte = work[newline - 1] as number;
    let kept: number;
    if (cut) {
      leftOut += utf16Units(work, open, newline);
      kept = open;
    } else {
      kept = keepHead(newline);
    }
    if (kept < newline) {
      work.copyWithin(kept, newline, end);
      end -= newline - kept;
    }
    const firstLeftOut = leftOutOfLine();
    const lastNewline = work.subarray(0, end).lastIndexOf(NEWLINE);
    const data = work.subarray(0, lastNewline + 1);
    const starts = lineStarts(data);
    yield new LineBatch(next, data, starts, new Map(cut ? [[0, firstLeftOut]] : []), false);
    next += starts.length;
    // What follows the last `\n` opens the next line.
    work.copyWithin(0, lastNewline + 1, end);
    cut = false;
    leftOut = 0;
    const rest = end - lastNewline - 1;
    lastByte = rest > 0 ? (work[rest - 1] as number) : -1;
    open = keepHead(rest);
  }
}
