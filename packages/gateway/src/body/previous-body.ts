/**
 * What an incremental reader knows of its previous body's bytes, and how a new body is checked
 * against them (incremental-body.ts): the previous body itself while the shared budget keeps it
 * (kept-bodies.ts: compared byte for byte), else digests (SHA-256: a changed element must never
 * pass for the one it replaced, and with the CPU's SHA instructions it runs at well over a
 * gigabyte a second). Both give the same answer; the comparison costs a twentieth of the digest.
 *
 * The digests are kept whichever way a body was checked: the array's, kept unfinished and
 * continued over each body's new elements only, each element's (with the separator before it)
 * and the outside's (the body without its array).
 */
import { createHash, type Hash } from 'node:crypto';
import type { EventLoopPauser } from '@toolmask/core/utils';
import { digestElements, hashInSlices, replaceFrom } from './element-reading.js';
import { KeptBodies, sameBytes } from './kept-bodies.js';

export const newHash = (): Hash => createHash('sha256');

/** The previous body, kept under the budget, and where its array was. */
export interface KeptBody {
  raw: Buffer;
  open: number;
  close: number;
}

/** The budget of every reader not given its own (one gateway per process, as a rule). */
const sharedKeptBodies = new KeptBodies<KeptBody>();

/** How many of the previous body's elements a body still has, and how that was found. */
export interface KeptElements {
  keep: number;
  /** The array's running digest up to the last element kept. */
  hash: Hash;
  /** By comparing the kept body's bytes, by the digest, or not at all. */
  checked: 'bytes' | 'digest' | 'none';
}

/** Where the previous body's array and its elements were. */
/** What a read found new in its body, for `remember`: the digests of its new elements to take. */
export interface NewDigests {
  keep: number;
  from: number;
  spans: ReadonlyArray<[number, number]>;
  hash: Hash;
  outside?: Buffer | undefined;
}

export interface PreviousLayout {
  open: number;
  spans: ReadonlyArray<[number, number]>;
}

export class PreviousBody {
  /** Per element, the digest of its bytes and of the separator before it. */
  private spanDigests: Buffer[] = [];
  /** The array's digest from its `[` to the end of its last element, finished and not. */
  private arrayDigest?: Buffer;
  private arrayHash?: Hash;
  private outsideDigest?: Buffer;
  /** Its key in the budget, where the body is while there is room (a reader's own object). */
  private readonly keptKey = {};
  /** Counts `reset`s: a `remember` begun before one is dropped. */
  private generation = 0;

  constructor(private readonly keptBodies: KeptBodies<KeptBody> = sharedKeptBodies) {}

  /**
   * How many of the previous body's elements `raw` still has, byte for byte, and the array's
   * digest so far (to be continued over what is new). A client appends: the whole previous array
   * compared with the kept body, or else one digest over it, settles it; only when that differs
   * are the elements checked one by one.
   */
  async keptElements(
    raw: Buffer,
    previous: PreviousLayout,
    pause: EventLoopPauser,
  ): Promise<KeptElements> {
    const { spans } = previous;
    const start = previous.open + 1;
    const end = (spans.at(-1) as [number, number])[1];
    const kept = this.keptBodies.get(this.keptKey);
    if (kept && this.arrayHash && end <= raw.length) {
      const same = await sameBytes(kept.raw.subarray(start, end), raw.subarray(start, end), pause);
      if (same) return { keep: spans.length, hash: this.arrayHash.copy(), checked: 'bytes' };
    } else if (end <= raw.length) {
      const hash = await hashInSlices(newHash(), raw.subarray(start, end), pause);
      const digest = hash.copy().digest();
      if (digest.equals(this.arrayDigest as Buffer)) {
        return { keep: spans.length, hash, checked: 'digest' };
      }
    }
    const hash = newHash();
    let keep = 0;
    let previousEnd = start;
    for (const [, spanEnd] of spans) {
      if (spanEnd > raw.length) break;
      const bytes = raw.subarray(previousEnd, spanEnd);
      const digest = (await hashInSlices(newHash(), bytes, pause)).digest();
      if (!digest.equals(this.spanDigests[keep] as Buffer)) break;
      await hashInSlices(hash, bytes, pause);
      previousEnd = spanEnd;
      keep++;
      if (pause.due()) await pause();
    }
    return { keep, hash, checked: 'digest' };
  }

  /**
   * Whether what is outside the array is the previous body's, and its digest when it took one to
   * tell (with nothing to compare with, none is taken now: `remember` takes it, after the send).
   */
  async outside(
    raw: Buffer,
    open: number,
    close: number,
    pause: EventLoopPauser,
  ): Promise<{ same: boolean; digest?: Buffer }> {
    const previous = this.outsideDigest;
    if (previous === undefined) return { same: false };
    const kept = this.keptBodies.get(this.keptKey);
    if (
      kept &&
      (await sameBytes(kept.raw.subarray(0, kept.open + 1), raw.subarray(0, open + 1), pause)) &&
      (await sameBytes(kept.raw.subarray(kept.close), raw.subarray(close), pause))
    ) {
      return { same: true, digest: previous };
    }
    const digest = await outsideDigestOf(raw, open, close, pause);
    return { same: digest.equals(previous), digest };
  }

  /**
   * `body` is now the previous one: its first `keep` elements' digests stay, those of its new
   * elements at `spans` (from `from` on) are taken, the array's running digest `hash` continued
   * over them, and the outside's taken unless given. Run after the body is sent (its results
   * serve only the next body's read, which waits for it: incremental-body.ts); a `reset` while
   * it runs wins (nothing is remembered).
   */
  async remember(body: KeptBody, digests: NewDigests, pause: EventLoopPauser): Promise<void> {
    const generation = this.generation;
    const { raw, open, close } = body;
    const { hash } = digests;
    const added = await digestElements(raw, digests.from, digests.spans, hash, pause);
    const outside = digests.outside ?? (await outsideDigestOf(raw, open, close, pause));
    if (generation !== this.generation) return;
    replaceFrom(this.spanDigests, digests.keep, added);
    this.arrayHash = hash.copy();
    this.arrayDigest = hash.digest();
    this.outsideDigest = outside;
    this.keptBodies.keep(this.keptKey, body);
  }

  /** Forgets everything (a `remember` under way included). */
  reset(): void {
    this.generation++;
    this.spanDigests = [];
    this.arrayDigest = undefined;
    this.arrayHash = undefined;
    this.outsideDigest = undefined;
    this.keptBodies.release(this.keptKey);
  }
}

/** The digest of the body without its array's elements (its bytes up to `[` and from `]`). */
async function outsideDigestOf(
  raw: Buffer,
  open: number,
  close: number,
  pause: EventLoopPauser,
): Promise<Buffer> {
  const hash = await hashInSlices(newHash(), raw.subarray(0, open + 1), pause);
  return (await hashInSlices(hash, raw.subarray(close), pause)).digest();
}
