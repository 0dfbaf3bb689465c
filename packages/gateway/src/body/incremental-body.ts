/**
 * Reading a request body and writing its masked form back at the cost of what is new in it.
 *
 * A client resends its whole conversation with every request: all but the end is the very bytes it
 * sent last time. So, per conversation, the gateway keeps where the previous body's elements were,
 * a digest of their bytes, what they decoded to, and the bytes it wrote for each; not the body
 * itself (a conversation would otherwise hold its last body between requests, about as many bytes
 * again as its decoded history, and the gateway's memory would grow by both). The next body's
 * bytes are checked against the digest, or against the previous body's own bytes while a budget
 * shared by all conversations lets it keep them (kept-bodies.ts: a comparison costs a twentieth of
 * the digest); the elements it still has whole are not decoded again
 * (their decoded objects are reused, which also lets the masking pass recognise them), and only
 * the rest is scanned and parsed, element by element.
 *
 * Writing back, an element the pass left alone is its own bytes, one written before is those
 * bytes again, and only an element that changed now is serialized. An element once written is
 * kept as what was written for it, not as what the client sent: its next reads hand out the
 * Content sent last time (the conversation recognises it as already decided), and the client's
 * version, a masked output's whole text, is no longer held in memory. Everything outside the
 * conversation array (tools, system instruction, options) is copied as it came, and decoded again
 * only when its digest changes.
 *
 * Anything unexpected (the array not where the codec says, a body that is not what a valid one
 * would be there) returns undefined, and the body is parsed whole instead (decode-body.ts).
 *
 * No step holds the event loop for long, whatever the body: every walk over its bytes (the scan,
 * the digests) and every loop over its elements (parsing, converting, writing) gives the loop a
 * turn every few milliseconds (`pause`), and no single element costs more than a bounded parse:
 * an element heavier than `MAX_ELEMENT_VALUES` (element-reading.ts; millions of nested arrays, say) is checked to be
 * JSON, in stretches, but never parsed. The pass sees an empty entry in its place; it is written
 * back as its own bytes and counted as left unmasked. The same holds for what is outside the
 * conversation: too heavy to parse, the request is described by its route and model alone.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Content } from '@toolmask/core';
import { eventLoopPauser, type EventLoopPauser } from '@toolmask/core/utils';
import type { BodyCodec, BodyDescription } from './body-codec.js';
import {
  HEAVY,
  afterElement,
  convertElements,
  describeOutside,
  digestElements,
  hashInSlices,
  parseElements,
  replaceFrom,
} from './element-reading.js';
import { findArray, scanElements } from './json-layout.js';
import { KeptBodies, sameBytes } from './kept-bodies.js';
import type { BodySegments } from './prompt-segments.js';
import { OutsideCell, ReadSegments, SegmentCell, cellsOf } from './prompt-segments.js';

export interface IncrementalRead {
  contents: Content[];
  description: BodyDescription;
  /**
   * Tool outputs the protocol left alone in elements decoded from this body (new since the
   * previous one), and elements too heavy to parse.
   */
  newUnmaskable: number;
  /** Elements decoded from this body (the rest were the previous body's). */
  decoded: number;
  /**
   * How the previous body's elements were found unchanged: by comparing its kept bytes, by the
   * digest, or not at all (nothing to compare with, or another shape).
   */
  checked: 'bytes' | 'digest' | 'none';
  /**
   * This body with `sent` in place of its conversation (see the module comment): the body itself
   * when every element is still its own bytes.
   */
  write(sent: readonly Content[]): Promise<Buffer>;
  /** Its prompt segments as it came and as written (prompt-segments.ts), once written. */
  segments(): BodySegments | undefined;
  /** The body without its conversation (the array empty), for what reads only the rest. */
  outside(): Buffer;
}

interface KeptElements {
  keep: number;
  /** The array's running digest up to the last element kept. */
  hash: Hash;
  checked: IncrementalRead['checked'];
}

interface Written {
  content: Content;
  bytes: Buffer;
  cell: SegmentCell;
}

const COMMA = Buffer.from(',');

/**
 * SHA-256: a changed element must never pass for the one it replaced, and with the CPU's SHA
 * instructions it runs at well over a gigabyte a second.
 */
const newHash = (): Hash => createHash('sha256');

/** The previous body, kept under the budget, and where its array was. */
interface KeptBody {
  raw: Buffer;
  open: number;
  close: number;
}

/** The budget of every reader not given its own (one gateway per process, as a rule). */
const sharedKeptBodies = new KeptBodies<KeptBody>();

export class IncrementalBody {
  private open = -1;
  private spans: Array<[number, number]> = [];
  /** Per element, the digest of its bytes and of the separator before it. */
  private spanDigests: Buffer[] = [];
  /** The digest of the array's bytes from its `[` to the end of its last element. */
  private arrayDigest?: Buffer;
  /** The same digest unfinished, to be continued over a next body's new elements. */
  private arrayHash?: Hash;
  /** Its key in the budget (kept-bodies.ts), where its previous body is while there is room. */
  private readonly keptKey = {};
  private elements: unknown[] = [];
  private contents: Content[] = [];
  private outsideDigest?: Buffer;
  /** The net figures' segments: the outside's, and one per element (none for a heavy one). */
  private outsideCell?: OutsideCell;
  private cells: Array<SegmentCell | undefined> = [];
  private description?: BodyDescription;
  /** The route's model `description` was made with. */
  private describedFor?: string;
  private bodyBytes = 0;
  private state: unknown;
  /** What was written for each element last time, and from which Content. */
  private written: Array<Written | undefined> = [];

  constructor(
    readonly codec: BodyCodec,
    private readonly keptBodies: KeptBodies<KeptBody> = sharedKeptBodies,
  ) {
    this.state = codec.createState();
  }

  /**
   * Bytes this reader keeps between requests, as counted for the memory bound: its decoded
   * elements, about the size of the body as last written (bench/gatewayBench.mjs, 4c).
   */
  get retainedBytes(): number {
    return this.bodyBytes;
  }

  async read(
    raw: Buffer,
    routeModel: string,
    pause: EventLoopPauser = eventLoopPauser(),
  ): Promise<IncrementalRead | undefined> {
    const open = await findArray(raw, this.codec.arrayPath, pause);
    if (open < 0) return undefined;
    // Elements still whole since the previous body, and the array's digest up to their end.
    let kept: KeptElements = { keep: 0, hash: newHash(), checked: 'none' };
    if (this.spans.length > 0 && open === this.open) kept = await this.keptElements(raw, pause);
    else this.reset();
    const { keep, hash, checked } = kept;
    const from = keep > 0 ? (this.spans[keep - 1] as [number, number])[1] : open + 1;
    const rest =
      keep > 0 ? await afterElement(raw, from, pause) : await scanElements(raw, from, pause);
    if (!rest || rest.close === undefined) return undefined;
    const close = rest.close;
    const newSpans = rest.elements;
    if (keep + newSpans.length < this.spans.length) {
      // Fewer elements than last time (a rewind, or another session with the same key): an
      // element kept as what was written for it may be newer here than it was there, so the
      // body is read afresh and the conversation decides what applies (sent-history.ts).
      this.reset();
      return this.read(raw, routeModel, pause);
    }
    const newElements = await parseElements(raw, rest, pause);
    if (!newElements) return undefined;
    const state = keep === this.elements.length ? this.state : await this.replayState(keep, pause);
    const converted = await convertElements(this.codec, newElements, state, pause);
    const outsideDigest = await this.outsideDigestOf(raw, open, close, pause);
    let description = this.description;
    let outsideCell = this.outsideCell;
    // The route's model (in the URL) goes into the description too: a fallback to another model
    // resends the same body to another route.
    if (
      !description ||
      routeModel !== this.describedFor ||
      !this.outsideDigest ||
      !outsideDigest.equals(this.outsideDigest)
    ) {
      const outside = Buffer.concat([raw.subarray(0, open + 1), raw.subarray(close)]);
      description = await describeOutside(this.codec, outside, routeModel, pause);
      if (!description) return undefined;
      outsideCell = new OutsideCell(outside, open, this.codec.arrayPath);
    }
    const newDigests = await digestElements(raw, from, newSpans, { hash, newHash }, pause);
    this.open = open;
    // In place: copying the kept part of a history of 300,000 entries on every request would be
    // most of the cost of one that adds two.
    replaceFrom(this.spans, keep, newSpans);
    replaceFrom(this.spanDigests, keep, newDigests);
    this.arrayHash = hash.copy();
    this.arrayDigest = hash.digest();
    this.keptBodies.keep(this.keptKey, { raw, open, close });
    replaceFrom(this.elements, keep, newElements);
    replaceFrom(this.contents, keep, converted.contents);
    replaceFrom(this.cells, keep, cellsOf(newElements, HEAVY));
    // An element decoded again is bytes the client changed: what was written for its old bytes
    // no longer applies (it is written from the new element if the pass still changes it).
    this.written.length = keep;
    this.outsideDigest = outsideDigest;
    this.outsideCell = outsideCell;
    this.description = description;
    this.describedFor = routeModel;
    this.bodyBytes = raw.length;
    this.state = state;
    const spans = this.spans;
    const segments = new ReadSegments(outsideCell as OutsideCell, this.cells.slice());
    return {
      contents: this.contents.slice(),
      description,
      newUnmaskable: converted.unmaskable,
      decoded: newSpans.length,
      checked,
      write: async (sent) =>
        segments.written(await this.write(raw, spans, open, close, sent, pause)),
      segments: () => segments.both(),
      outside: () => Buffer.concat([raw.subarray(0, open + 1), raw.subarray(close)]),
    };
  }

  /** Forgets everything (memory pressure, a body of another shape). */
  reset(): void {
    this.open = -1;
    this.spans = [];
    this.spanDigests = [];
    this.arrayDigest = undefined;
    this.arrayHash = undefined;
    this.keptBodies.release(this.keptKey);
    this.elements = [];
    this.contents = [];
    this.written = [];
    this.outsideDigest = undefined;
    this.outsideCell = undefined;
    this.cells = [];
    this.description = undefined;
    this.describedFor = undefined;
    this.bodyBytes = 0;
    this.state = this.codec.createState();
  }

  /**
   * The digest of what is outside the array; the previous one when those bytes are the kept
   * body's own.
   */
  private async outsideDigestOf(
    raw: Buffer,
    open: number,
    close: number,
    pause: EventLoopPauser,
  ): Promise<Buffer> {
    const kept = this.keptBodies.get(this.keptKey);
    if (
      kept &&
      this.outsideDigest &&
      (await sameBytes(kept.raw.subarray(0, kept.open + 1), raw.subarray(0, open + 1), pause)) &&
      (await sameBytes(kept.raw.subarray(kept.close), raw.subarray(close), pause))
    ) {
      return this.outsideDigest;
    }
    const hash = await hashInSlices(newHash(), raw.subarray(0, open + 1), pause);
    return (await hashInSlices(hash, raw.subarray(close), pause)).digest();
  }

  /**
   * How many of the previous body's elements `raw` still has, byte for byte, and the array's
   * digest so far (to be continued over what is new). A client appends: the whole previous array
   * compared with the kept body, or else one digest over it, settles it; only when that differs
   * are the elements checked one by one.
   */
  private async keptElements(raw: Buffer, pause: EventLoopPauser): Promise<KeptElements> {
    const start = this.open + 1;
    const end = (this.spans.at(-1) as [number, number])[1];
    const kept = this.keptBodies.get(this.keptKey);
    if (kept && this.arrayHash && end <= raw.length) {
      const same = await sameBytes(kept.raw.subarray(start, end), raw.subarray(start, end), pause);
      if (same) return { keep: this.spans.length, hash: this.arrayHash.copy(), checked: 'bytes' };
    } else if (end <= raw.length) {
      const hash = await hashInSlices(newHash(), raw.subarray(start, end), pause);
      if (
        hash
          .copy()
          .digest()
          .equals(this.arrayDigest as Buffer)
      ) {
        return { keep: this.spans.length, hash, checked: 'digest' };
      }
    }
    const hash = newHash();
    let keep = 0;
    let previousEnd = start;
    for (const [, spanEnd] of this.spans) {
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
   * `raw` with `sent` in place of its conversation (the elements at `spans`). An element written
   * is kept as what was sent for it from now on (the module comment).
   */
  private async write(
    raw: Buffer,
    spans: ReadonlyArray<[number, number]>,
    open: number,
    close: number,
    sent: readonly Content[],
    pause: EventLoopPauser,
  ): Promise<{ body: Buffer; cells: Array<SegmentCell | undefined> }> {
    const pieces: Buffer[] = [raw.subarray(0, open + 1)];
    const cells: Array<SegmentCell | undefined> = [];
    let changed = false;
    for (let index = 0; index < sent.length; index++) {
      // Most elements are their own bytes again (no work): the clock is read every so many.
      if (index % 512 === 0 && pause.due()) await pause();
      const content = sent[index] as Content;
      if (index > 0) pieces.push(COMMA);
      const [start, end] = spans[index] as [number, number];
      const before = this.written[index];
      if (before && before.content === content) {
        pieces.push(before.bytes);
        cells.push(before.cell);
        changed = true;
        continue;
      }
      // An element too heavy to parse is its own bytes, always: the pass cannot change its
      // placeholder (it holds no output), which may be another request's object.
      if (content === this.contents[index] || this.elements[index] === HEAVY) {
        pieces.push(raw.subarray(start, end));
        cells.push(this.cells[index]);
        continue;
      }
      const element = this.codec.toElement(content, this.elements[index]);
      const compact = JSON.stringify(element);
      const bytes = Buffer.from(compact, 'utf8');
      const cell = new SegmentCell({ compact });
      this.written[index] = { content, bytes, cell };
      cells.push(cell);
      // Measured now: its cell would otherwise be the last holder of the client's element.
      this.cells[index]?.measure();
      this.elements[index] = element;
      this.contents[index] = content;
      pieces.push(bytes);
      changed = true;
      if (pause.due()) await pause();
    }
    pieces.push(raw.subarray(close));
    if (!changed) return { body: raw, cells };
    const body = Buffer.concat(pieces);
    this.bodyBytes = body.length;
    return { body, cells };
  }

  /** The codec's state as it was after the first `keep` elements (the rest changed). */
  private async replayState(keep: number, pause: EventLoopPauser): Promise<unknown> {
    const state = this.codec.createState();
    await convertElements(this.codec, this.elements.slice(0, keep), state, pause);
    return state;
  }
}
