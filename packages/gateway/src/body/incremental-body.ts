/**
 * Reading a request body and writing its masked form back at the cost of what is new in it.
 *
 * A client resends its whole conversation with every request: all but the end is the very bytes it
 * sent last time. So, per conversation, the gateway keeps where the previous body's elements were,
 * digests of their bytes, what they decoded to, and the bytes it wrote for each; the body itself
 * only while a budget shared by all conversations has room (previous-body.ts, kept-bodies.ts):
 * kept by every conversation, the bodies would be about as many bytes again as their decoded
 * histories. The next body's bytes are compared with the kept body's, or else checked against
 * the digests (the same answer; the comparison costs a twentieth); the elements it still has
 * whole are not decoded again (their decoded objects are reused, which also lets the masking pass
 * recognise them), and only the rest is scanned and parsed, element by element.
 *
 * Writing back, an element the pass left alone is its own bytes, one written before is those
 * bytes again, and only an element that changed now is serialized. An element once written is
 * kept as what was written for it, not as what the client sent: its next reads hand out the
 * Content sent last time (the conversation recognises it as already decided), and the client's
 * version, a masked output's whole text, is no longer held in memory. Everything outside the
 * conversation array (tools, system instruction, options) is copied as it came, and decoded again
 * only when its digest changes. The body is sent as pieces (pieced-body.ts): the client's bytes
 * in runs, uncopied, with what was written between them.
 *
 * Anything unexpected (the array not where the codec says, a body that is not what a valid one
 * would be there, bytes that are not UTF-8) returns undefined, and the body is parsed whole
 * instead (decode-body.ts), or refused when it is not UTF-8. Every body read was UTF-8 whole, so
 * only what was not the previous body's is checked.
 *
 * No step holds the event loop for long, whatever the body: every walk over its bytes (the scan,
 * the digests) and every loop over its elements (parsing, converting, writing) gives the loop a
 * turn every few milliseconds (`pause`), and no single element costs more than a bounded parse:
 * an element heavier than `MAX_ELEMENT_VALUES` (element-reading.ts; millions of nested arrays,
 * say) is checked to be JSON, in stretches, but never parsed. The pass sees an empty entry in its place; it is written
 * back as its own bytes and counted as left unmasked. The same holds for what is outside the
 * conversation: too heavy to parse, the request is described by its route and model alone.
 */
import { isUtf8 } from 'node:buffer';
import type { Content } from '@toolmask/core';
import { eventLoopPauser, type EventLoopPauser } from '@toolmask/core/utils';
import type { BodyCodec, BodyDescription } from './body-codec.js';
import {
  HEAVY,
  afterElement,
  convertElements,
  describeOutside,
  parseElements,
  replaceFrom,
} from './element-reading.js';
import { findArray, scanElements } from './json-layout.js';
import { AfterSend } from './after-send.js';
import type { IncrementalRead, SentBefore } from './incremental-read.js';
import type { KeptBodies } from './kept-bodies.js';
import { compactFrom, writeElements, WrittenElements, type ArrayLayout } from './element-writes.js';
import { PiecedBody } from './pieced-body.js';
import { PreviousBody, newHash } from './previous-body.js';
import type { KeptBody, KeptElements, NewDigests } from './previous-body.js';
import type { SegmentCell } from './prompt-segments.js';
import { OutsideCell, ReadSegments, cellsOf } from './prompt-segments.js';

export class IncrementalBody {
  private open = -1;
  private spans: Array<[number, number]> = [];
  /** What is known of the previous body's bytes (previous-body.ts). */
  private readonly previous: PreviousBody;
  private elements: unknown[] = [];
  private contents: Content[] = [];
  /** The net figures' segments: the outside's, and one per element (none for a heavy one). */
  private outsideCell?: OutsideCell;
  private cells: Array<SegmentCell | undefined> = [];
  private description?: BodyDescription;
  /** The route's model `description` was made with. */
  private describedFor?: string;
  private bodyBytes = 0;
  private state: unknown;
  /** What was written for each element last time, and from which Content. */
  private written = new WrittenElements();
  /** How many first elements sit as `[a,b,...` would put them (element-writes.ts). */
  private compactCount = 0;
  /** The last read's work left for after the send (`settle`), and the cells its write replaced. */
  private readonly afterSend = new AfterSend();
  /** What was written for the first `keep` elements stays; the array's layout (element-writes.ts). */
  private keepWritten(raw: Buffer, open: number, keep: number): void {
    // An element decoded again is bytes the client changed: what was written for its old bytes
    // no longer applies (it is written from the new element if the pass still changes it).
    this.written.keep(keep);
    this.compactCount = Math.min(this.compactCount, keep);
    if (this.compactCount === keep && compactFrom(raw, this.spans, keep, open)) {
      this.compactCount = this.spans.length;
    }
  }

  /**
   * The array the last write wrote from, while each of its contents is this reader's for that
   * element (`contents[i] === sent[i]`): the next read hands it out as `sentBefore`.
   */
  private lastWritten?: readonly Content[];

  constructor(
    readonly codec: BodyCodec,
    keptBodies?: KeptBodies<KeptBody>,
  ) {
    this.state = codec.createState();
    this.previous = new PreviousBody(keptBodies);
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
    if (this.afterSend.pending) await this.afterSend.settle();
    const open = await findArray(raw, this.codec.arrayPath, pause);
    if (open < 0) return undefined;
    // Elements still whole since the previous body, and the array's digest up to their end.
    let kept: KeptElements = { keep: 0, hash: newHash(), checked: 'none' };
    if (this.spans.length > 0 && open === this.open) {
      kept = await this.previous.keptElements(raw, { open: this.open, spans: this.spans }, pause);
    } else this.reset();
    const { keep, hash, checked } = kept;
    const sentBefore = this.takeSentBefore(keep);
    const from = keep > 0 ? (this.spans[keep - 1] as [number, number])[1] : open + 1;
    // Only bytes not seen before are checked to be UTF-8: the kept elements are the previous
    // body's, checked then. Both cuts follow an ASCII byte (the array's `[`, an element's last
    // character), so no character straddles them.
    if (!isUtf8(raw.subarray(0, open + 1)) || !isUtf8(raw.subarray(from))) return undefined;
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
    const outside = await this.previous.outside(raw, open, close, pause);
    const described = await this.describe(raw, { open, close, routeModel }, outside.same, pause);
    if (!described) return undefined;
    const { description, outsideCell } = described;
    this.open = open;
    // In place: copying the kept part of a history of 300,000 entries on every request would be
    // most of the cost of one that adds two.
    replaceFrom(this.spans, keep, newSpans);
    // The digests the next read checks against, after the send (they decide no byte of this one).
    const digests = { keep, from, spans: newSpans, hash, outside: outside.digest };
    this.leaveForAfterSend({ raw, open, close }, digests);
    replaceFrom(this.elements, keep, newElements);
    replaceFrom(this.contents, keep, converted.contents);
    replaceFrom(this.cells, keep, cellsOf(newElements, HEAVY));
    this.keepWritten(raw, open, keep);
    this.outsideCell = outsideCell;
    this.description = description;
    this.describedFor = routeModel;
    this.bodyBytes = raw.length;
    this.state = state;
    const spans = this.spans;
    const segments = new ReadSegments(outsideCell, this.cells.slice());
    return {
      contents: this.contents.slice(),
      description,
      newUnmaskable: converted.unmaskable,
      // Set as it is, undefined or not (no spread: once a request, interpreted).
      sentBefore,
      decoded: newSpans.length,
      checked,
      send: async (sent, differs) =>
        segments.written(await this.write({ raw, spans, open, close }, sent, differs, pause)),
      write: async (sent, differs) => {
        const layout = { raw, spans, open, close };
        const body = segments.written(await this.write(layout, sent, differs, pause));
        return body instanceof PiecedBody ? body.joined() : body;
      },
      segments: () => segments.both(),
      outside: () => Buffer.concat([raw.subarray(0, open + 1), raw.subarray(close)]),
      settle: () => this.settle(),
    };
  }

  /**
   * What the request says outside its conversation, decoded again only when those bytes changed.
   * The route's model (in the URL) goes into the description too: a fallback to another model
   * resends the same body to another route.
   */
  private async describe(
    raw: Buffer,
    at: { open: number; close: number; routeModel: string },
    sameOutside: boolean,
    pause: EventLoopPauser,
  ): Promise<{ description: BodyDescription; outsideCell: OutsideCell } | undefined> {
    const { description, outsideCell } = this;
    if (description && outsideCell && at.routeModel === this.describedFor && sameOutside) {
      return { description, outsideCell };
    }
    const outside = Buffer.concat([raw.subarray(0, at.open + 1), raw.subarray(at.close)]);
    const described = await describeOutside(this.codec, outside, at.routeModel, pause);
    if (!described) return undefined;
    return {
      description: described,
      outsideCell: new OutsideCell(outside, at.open, this.codec.arrayPath),
    };
  }

  /** The last read's work left for after the send, done (at once when there is none). */
  settle(): Promise<void> {
    return this.afterSend.settle();
  }

  /** What only the next read needs (`settle`): the digests it checks (after-send.ts). */
  private leaveForAfterSend(body: KeptBody, digests: NewDigests): void {
    this.afterSend.leave((pause) => this.previous.remember(body, digests, pause));
  }

  /**
   * The array the last write wrote from, as `sentBefore` for the `keep` elements kept since:
   * still the very contents it wrote them from (taken once).
   */
  private takeSentBefore(keep: number): SentBefore | undefined {
    const written = this.lastWritten;
    this.lastWritten = undefined;
    if (!written || keep === 0) return undefined;
    return { sent: written, count: Math.min(keep, written.length) };
  }

  /** Forgets everything (memory pressure, a body of another shape). */
  reset(): void {
    this.afterSend.drop();
    this.lastWritten = undefined;
    this.open = -1;
    this.spans = [];
    this.previous.reset();
    this.elements = [];
    this.contents = [];
    this.written = new WrittenElements();
    this.compactCount = 0;
    this.outsideCell = undefined;
    this.cells = [];
    this.description = undefined;
    this.describedFor = undefined;
    this.bodyBytes = 0;
    this.state = this.codec.createState();
  }

  /**
   * `raw` with `sent` in place of its conversation (element-writes.ts; `differs`: the indices of
   * `sent` whose content is not this reader's, when the caller knows). An element written is
   * kept as what was sent for it from now on (the module comment).
   */
  private async write(
    layout: Omit<ArrayLayout, 'compact'>,
    sent: readonly Content[],
    differs: readonly number[] | undefined,
    pause: EventLoopPauser,
  ): Promise<{ body: Buffer | PiecedBody; cells: Array<SegmentCell | undefined> }> {
    this.lastWritten = undefined;
    const compact = this.compactCount === layout.spans.length;
    const reader = {
      codec: this.codec,
      elements: this.elements,
      contents: this.contents,
      cells: this.cells,
      written: this.written,
      replaced: (cell: SegmentCell) => this.afterSend.replaced(cell),
    };
    const written = await writeElements(reader, { ...layout, compact }, sent, differs, pause);
    if (written.asSent) this.lastWritten = sent;
    if (written.body !== layout.raw) this.bodyBytes = written.body.length;
    return written;
  }

  /** The codec's state as it was after the first `keep` elements (the rest changed). */
  private async replayState(keep: number, pause: EventLoopPauser): Promise<unknown> {
    const state = this.codec.createState();
    await convertElements(this.codec, this.elements.slice(0, keep), state, pause);
    return state;
  }
}
