/**
 * Reading a request body and writing its masked form back at the cost of what is new in it.
 *
 * A client resends its whole conversation with every request: all but the end is the very bytes it
 * sent last time. So, per conversation, the gateway keeps where the previous body's elements were,
 * a digest of their bytes, what they decoded to, and the bytes it wrote for each; not the body
 * itself (a conversation would otherwise hold its last body between requests, about as many bytes
 * again as its decoded history, and the gateway's memory would grow by both). The next body's
 * bytes are checked against the digest; the elements it still has whole are not decoded again
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
 */
import { createHash, type Hash } from 'node:crypto';
import type { Content } from '@toolmask/core';
import type { BodyCodec, BodyDescription } from './body-codec.js';
import { findArray, scanElements } from './json-layout.js';
import { roundTripsExactly } from './json-safety.js';

export interface IncrementalRead {
  contents: Content[];
  description: BodyDescription;
  /** Tool outputs the protocol left alone in elements decoded from this body (new since the previous one). */
  newUnmaskable: number;
  /** Elements decoded from this body (the rest were the previous body's). */
  decoded: number;
  /**
   * This body with `sent` in place of its conversation (see the module comment): the body itself
   * when every element is still its own bytes.
   */
  write(sent: readonly Content[]): Buffer;
}

interface Written {
  content: Content;
  bytes: Buffer;
}

const COMMA = Buffer.from(',');

/**
 * SHA-256: a changed element must never pass for the one it replaced, and with the CPU's SHA
 * instructions it runs at well over a gigabyte a second.
 */
const newHash = (): Hash => createHash('sha256');

/** The conversation's head in `raw` (the bytes of its first elements), for its key. */
export function headBytes(codec: BodyCodec, raw: Buffer): Buffer | undefined {
  const open = findArray(raw, codec.arrayPath);
  if (open < 0) return undefined;
  const spans = scanElements(raw, open + 1, codec.headElements);
  const first = spans?.elements[0];
  const last = spans?.elements.at(-1);
  return first && last ? raw.subarray(first[0], last[1]) : undefined;
}

export class IncrementalBody {
  private open = -1;
  private spans: Array<[number, number]> = [];
  /** Per element, the digest of its bytes and of the separator before it. */
  private spanDigests: Buffer[] = [];
  /** The digest of the array's bytes from its `[` to the end of its last element. */
  private arrayDigest?: Buffer;
  private elements: unknown[] = [];
  private contents: Content[] = [];
  private outsideDigest?: Buffer;
  private description?: BodyDescription;
  /** The route's model `description` was made with. */
  private describedFor?: string;
  private bodyBytes = 0;
  private state: unknown;
  /** What was written for each element last time, and from which Content. */
  private written: Array<Written | undefined> = [];

  constructor(readonly codec: BodyCodec) {
    this.state = codec.createState();
  }

  /**
   * Bytes this reader keeps between requests, as counted for the memory bound: its decoded
   * elements, about the size of the body as last written (bench/gatewayBench.mjs, 4c).
   */
  get retainedBytes(): number {
    return this.bodyBytes;
  }

  read(raw: Buffer, routeModel: string): IncrementalRead | undefined {
    const open = findArray(raw, this.codec.arrayPath);
    if (open < 0) return undefined;
    // Elements still whole since the previous body, and the array's digest up to their end.
    let kept = { keep: 0, hash: newHash() };
    if (this.spans.length > 0 && open === this.open) kept = this.keptElements(raw);
    else this.reset();
    const { keep, hash } = kept;
    const from = keep > 0 ? (this.spans[keep - 1] as [number, number])[1] : open + 1;
    const rest = keep > 0 ? afterElement(raw, from) : scanElements(raw, from);
    if (!rest || rest.close === undefined) return undefined;
    const close = rest.close;
    const newSpans = rest.elements;
    let newElements: unknown[];
    try {
      newElements = newSpans.map(([start, end]) => JSON.parse(raw.toString('utf8', start, end)));
    } catch {
      return undefined;
    }
    if (!newElements.every((element) => roundTripsExactly(element))) return undefined;
    const state = keep === this.elements.length ? this.state : this.replayState(keep);
    const converted = this.codec.toContents(newElements, state);

    const outsideDigest = newHash()
      .update(raw.subarray(0, open + 1))
      .update(raw.subarray(close))
      .digest();
    let description = this.description;
    // The route's model (in the URL) goes into the description too: a fallback to another model
    // resends the same body to another route.
    if (
      !description ||
      routeModel !== this.describedFor ||
      !this.outsideDigest ||
      !outsideDigest.equals(this.outsideDigest)
    ) {
      try {
        const outside = Buffer.concat([raw.subarray(0, open + 1), raw.subarray(close)]);
        description = this.codec.describe(JSON.parse(outside.toString('utf8')), routeModel);
      } catch {
        return undefined;
      }
    }

    let previousEnd = from;
    const newDigests = newSpans.map(([, end]) => {
      const digest = newHash().update(raw.subarray(previousEnd, end)).digest();
      hash.update(raw.subarray(previousEnd, end));
      previousEnd = end;
      return digest;
    });
    this.open = open;
    this.spans = this.spans.slice(0, keep).concat(newSpans);
    this.spanDigests = this.spanDigests.slice(0, keep).concat(newDigests);
    this.arrayDigest = hash.digest();
    this.elements = this.elements.slice(0, keep).concat(newElements);
    this.contents = this.contents.slice(0, keep).concat(converted.contents);
    // An element decoded again is bytes the client changed: what was written for its old bytes
    // no longer applies (it is written from the new element if the pass still changes it).
    this.written.length = keep;
    this.outsideDigest = outsideDigest;
    this.description = description;
    this.describedFor = routeModel;
    this.bodyBytes = raw.length;
    this.state = state;
    const spans = this.spans;
    return {
      contents: this.contents.slice(),
      description,
      newUnmaskable: converted.unmaskable.reduce((sum, count) => sum + count, 0),
      decoded: newSpans.length,
      write: (sent) => this.write(raw, spans, open, close, sent),
    };
  }

  /** Forgets everything (memory pressure, a body of another shape). */
  reset(): void {
    this.open = -1;
    this.spans = [];
    this.spanDigests = [];
    this.arrayDigest = undefined;
    this.elements = [];
    this.contents = [];
    this.written = [];
    this.outsideDigest = undefined;
    this.description = undefined;
    this.describedFor = undefined;
    this.bodyBytes = 0;
    this.state = this.codec.createState();
  }

  /**
   * How many of the previous body's elements `raw` still has, byte for byte, and the array's
   * digest so far (to be continued over what is new). A client appends: one digest over the whole
   * previous array settles it; only when that differs are the elements checked one by one.
   */
  private keptElements(raw: Buffer): { keep: number; hash: Hash } {
    const start = this.open + 1;
    const end = (this.spans.at(-1) as [number, number])[1];
    if (end <= raw.length) {
      const hash = newHash().update(raw.subarray(start, end));
      if (
        hash
          .copy()
          .digest()
          .equals(this.arrayDigest as Buffer)
      ) {
        return { keep: this.spans.length, hash };
      }
    }
    const hash = newHash();
    let keep = 0;
    let previousEnd = start;
    for (const [, spanEnd] of this.spans) {
      if (spanEnd > raw.length) break;
      const bytes = raw.subarray(previousEnd, spanEnd);
      if (
        !newHash()
          .update(bytes)
          .digest()
          .equals(this.spanDigests[keep] as Buffer)
      )
        break;
      hash.update(bytes);
      previousEnd = spanEnd;
      keep++;
    }
    return { keep, hash };
  }

  /**
   * `raw` with `sent` in place of its conversation (the elements at `spans`). An element written
   * is kept as what was sent for it from now on (the module comment).
   */
  private write(
    raw: Buffer,
    spans: ReadonlyArray<[number, number]>,
    open: number,
    close: number,
    sent: readonly Content[],
  ): Buffer {
    const pieces: Buffer[] = [raw.subarray(0, open + 1)];
    let changed = false;
    sent.forEach((content, index) => {
      if (index > 0) pieces.push(COMMA);
      const [start, end] = spans[index] as [number, number];
      const before = this.written[index];
      if (before && before.content === content) {
        pieces.push(before.bytes);
        changed = true;
        return;
      }
      if (content === this.contents[index]) {
        pieces.push(raw.subarray(start, end));
        return;
      }
      const element = this.codec.toElement(content, this.elements[index]);
      const bytes = Buffer.from(JSON.stringify(element), 'utf8');
      this.written[index] = { content, bytes };
      this.elements[index] = element;
      this.contents[index] = content;
      pieces.push(bytes);
      changed = true;
    });
    pieces.push(raw.subarray(close));
    if (!changed) return raw;
    const body = Buffer.concat(pieces);
    this.bodyBytes = body.length;
    return body;
  }

  /** The codec's state as it was after the first `keep` elements (the rest changed). */
  private replayState(keep: number): unknown {
    const state = this.codec.createState();
    if (keep > 0) this.codec.toContents(this.elements.slice(0, keep), state);
    return state;
  }
}

/** The elements after one ending at `from`: a comma and more elements, or the closing bracket. */
function afterElement(raw: Buffer, from: number) {
  let at = from;
  while (
    at < raw.length &&
    (raw[at] === 0x20 || raw[at] === 0x0a || raw[at] === 0x0d || raw[at] === 0x09)
  )
    at++;
  if (raw[at] === 0x5d) return { elements: [] as Array<[number, number]>, close: at };
  if (raw[at] !== 0x2c) return undefined;
  return scanElements(raw, at + 1);
}
