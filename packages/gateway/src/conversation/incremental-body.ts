/**
 * Reading a request body and writing its masked form back at the cost of what is new in it.
 *
 * A client resends its whole conversation with every request: all but the end is the very bytes it
 * sent last time. So, per conversation, the gateway keeps the previous body, where its elements
 * were, what they decoded to, and the bytes it wrote for each. The next body is compared with the
 * previous one byte for byte (memcmp); the elements it still has whole are not decoded again (their
 * decoded objects are reused, which also lets the masking pass recognise them), and only the rest
 * is scanned and parsed, element by element. Writing back, an element the pass left alone is its
 * own bytes, one written last time is those bytes again, and only an element that changed now is
 * serialized. Everything outside the conversation array (tools, system instruction, options) is
 * copied as it came.
 *
 * Anything unexpected (the array not where the front says, a body that is not what a valid one
 * would be there) returns undefined, and the caller parses the body whole instead.
 */
import type { Content } from '@toolmask/core';
import type { ArrayCodec, BodyDescription } from '../fronts/front.js';
import { commonPrefixLength, findArray, scanElements } from '../http/json-layout.js';
import { roundTripsExactly } from '../http/json-safety.js';

export interface DecodedBody {
  contents: Content[];
  description: BodyDescription;
  /** Tool outputs the front left alone in elements decoded from this body (new since the previous one). */
  newUnmaskable: number;
  /** Elements decoded from this body (the rest were the previous body's). */
  decoded: number;
}

interface Written {
  content: Content;
  bytes: Buffer;
}

const COMMA = Buffer.from(',');

export class IncrementalBody {
  private raw?: Buffer;
  private open = -1;
  private close = -1;
  private spans: Array<[number, number]> = [];
  private elements: unknown[] = [];
  private contents: Content[] = [];
  private outside?: Buffer;
  private description?: BodyDescription;
  private state: unknown;
  /** What was written for each element last time, and from which Content. */
  private written: Array<Written | undefined> = [];

  constructor(private readonly codec: ArrayCodec) {
    this.state = codec.createState();
  }

  /** Bytes of the body kept between requests (for the memory bound). */
  get retainedBytes(): number {
    return this.raw ? this.raw.length * 3 : 0;
  }

  /** The conversation's head in `raw` (the bytes of its first elements), for its key. */
  static head(codec: ArrayCodec, raw: Buffer): Buffer | undefined {
    const open = findArray(raw, codec.arrayPath);
    if (open < 0) return undefined;
    const spans = scanElements(raw, open + 1, codec.headElements);
    const first = spans?.elements[0];
    const last = spans?.elements.at(-1);
    return first && last ? raw.subarray(first[0], last[1]) : undefined;
  }

  read(raw: Buffer, routeModel: string): DecodedBody | undefined {
    const open = findArray(raw, this.codec.arrayPath);
    if (open < 0) return undefined;
    // Elements still whole since the previous body: their bytes end inside the common prefix.
    let keep = 0;
    if (this.raw && open === this.open) {
      const common = commonPrefixLength(raw, this.raw);
      while (keep < this.spans.length && (this.spans[keep] as [number, number])[1] <= common)
        keep++;
    } else {
      this.reset();
    }
    const from = keep > 0 ? (this.spans[keep - 1] as [number, number])[1] : open + 1;
    const rest = keep > 0 ? afterElement(raw, from) : scanElements(raw, from);
    if (!rest || rest.close === undefined) return undefined;
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

    const outside = Buffer.concat([raw.subarray(0, open + 1), raw.subarray(rest.close)]);
    let description = this.description;
    if (!description || !this.outside || !outside.equals(this.outside)) {
      try {
        description = this.codec.describe(JSON.parse(outside.toString('utf8')), routeModel);
      } catch {
        return undefined;
      }
    }

    this.raw = raw;
    this.open = open;
    this.close = rest.close;
    this.spans = this.spans.slice(0, keep).concat(newSpans);
    this.elements = this.elements.slice(0, keep).concat(newElements);
    this.contents = this.contents.slice(0, keep).concat(converted.contents);
    // An element decoded again is bytes the client changed: what was written for its old bytes
    // no longer applies (it is written from the new element if the pass still changes it).
    this.written.length = keep;
    this.outside = outside;
    this.description = description;
    this.state = state;
    return {
      contents: this.contents.slice(),
      description,
      newUnmaskable: converted.unmaskable.reduce((sum, count) => sum + count, 0),
      decoded: newSpans.length,
    };
  }

  /** The body to send with `sent` in place of the last body read's conversation. */
  write(sent: readonly Content[]): Buffer {
    const raw = this.raw as Buffer;
    const pieces: Buffer[] = [raw.subarray(0, this.open + 1)];
    sent.forEach((content, index) => {
      if (index > 0) pieces.push(COMMA);
      const [start, end] = this.spans[index] as [number, number];
      if (content === this.contents[index]) {
        pieces.push(raw.subarray(start, end));
        this.written[index] = undefined;
        return;
      }
      const before = this.written[index];
      if (before && before.content === content) {
        pieces.push(before.bytes);
        return;
      }
      const bytes = Buffer.from(
        JSON.stringify(this.codec.toElement(content, this.elements[index])),
        'utf8',
      );
      this.written[index] = { content, bytes };
      pieces.push(bytes);
    });
    pieces.push(raw.subarray(this.close));
    return Buffer.concat(pieces);
  }

  /** Forgets everything (memory pressure, a body of another shape). */
  reset(): void {
    this.raw = undefined;
    this.open = -1;
    this.close = -1;
    this.spans = [];
    this.elements = [];
    this.contents = [];
    this.written = [];
    this.outside = undefined;
    this.description = undefined;
    this.state = this.codec.createState();
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
