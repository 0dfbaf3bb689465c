/**
 * The previous body of each conversation, kept while a byte budget shared by every reader allows,
 * so that the next body's unchanged part is checked by comparing bytes (memcmp: 30–50 µs for
 * 1.2 MB) instead of by a digest over them (SHA-256: about 0.7 ms). It is only a shortcut: a
 * reader whose body is not kept (never, or dropped for another's) checks the digest it keeps
 * anyway (incremental-body.ts), with the same outcome.
 *
 * Bounded: past `maxBytes` in all, the least recently kept bodies are dropped first; a body larger
 * than the budget is not kept. A body is counted by the memory it holds (the whole buffer its bytes
 * live in), not by the slice compared. A body kept must not change afterwards: the gateway's are
 * buffers of their own, read once (body/read-body.ts) and never written into.
 */
import type { EventLoopPauser } from '@toolmask/core/utils';

/** The budget of the gateway's readers, unless one is given (a few dozen 1.2 MB conversations). */
export const DEFAULT_KEPT_BODY_BYTES = 64 * 1024 * 1024;

/** Bytes compared in one stretch, between two checks for a turn of the loop. */
const COMPARE_SLICE_BYTES = 4 << 20;

/** A body kept, and whatever its reader needs with it. */
export interface KeptBody {
  raw: Buffer;
}

/**
 * The kept bodies, by their readers' keys. A key is a small object of the reader's own, not the
 * reader: a reader dropped with its conversation leaves only its body here, until the budget
 * needs the room.
 */
export class KeptBodies<Body extends KeptBody = KeptBody> {
  /** Insertion order is recency order. */
  private readonly held = new Map<object, { body: Body; bytes: number }>();
  private total = 0;

  constructor(readonly maxBytes: number = DEFAULT_KEPT_BODY_BYTES) {}

  /** Bytes kept now, by every reader. */
  get keptBytes(): number {
    return this.total;
  }

  /** The body kept for `key`, if it still is. */
  get(key: object): Body | undefined {
    return this.held.get(key)?.body;
  }

  /**
   * Keeps `body` for `key` in place of its earlier one, when it fits: room is made by dropping
   * the least recently kept others. Whether it was kept.
   */
  keep(key: object, body: Body): boolean {
    this.release(key);
    const bytes = heldBytes(body.raw);
    if (bytes > this.maxBytes) return false;
    for (const [other, { bytes: otherBytes }] of this.held) {
      if (this.total + bytes <= this.maxBytes) break;
      this.held.delete(other);
      this.total -= otherBytes;
    }
    this.held.set(key, { body, bytes });
    this.total += bytes;
    return true;
  }

  /** Nothing kept for `key` any more. */
  release(key: object): void {
    const kept = this.held.get(key);
    if (!kept) return;
    this.held.delete(key);
    this.total -= kept.bytes;
  }
}

/** The memory a buffer's bytes hold (a slice keeps its whole backing store alive). */
export const heldBytes = (bytes: Buffer): number => bytes.buffer.byteLength;

/** Whether `a` and `b` are the same bytes, compared a few megabytes at a time. */
export async function sameBytes(a: Buffer, b: Buffer, pause: EventLoopPauser): Promise<boolean> {
  if (a.length !== b.length) return false;
  for (let at = 0; at < a.length; at += COMPARE_SLICE_BYTES) {
    const end = Math.min(a.length, at + COMPARE_SLICE_BYTES);
    if (!a.subarray(at, end).equals(b.subarray(at, end))) return false;
    if (end < a.length && pause.due()) await pause();
  }
  return true;
}
