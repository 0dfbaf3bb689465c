/**
 * Writing a body back from its reader's elements (incremental-body.ts): an element the pass left
 * alone is its own bytes, one written before is those bytes again, and only an element that
 * changed now is serialized; what is written for an element is kept (`WrittenElements`).
 *
 * Two ways to the same pieces (pieced-body.ts). Element by element, over the whole array; or,
 * when the caller says which elements the pass changed (`differs`: those whose content is not
 * the reader's) and the array is laid out compactly (`[a,b,c]`, as `JSON.stringify` writes it),
 * over the changed and the written ones only: between them the client's bytes are one run
 * however many elements they hold. A known conversation's request then costs what is new, not a
 * step per element of its history.
 */
import type { Content } from '@toolmask/core';
import type { EventLoopPauser } from '@toolmask/core/utils';
import type { BodyCodec } from './body-codec.js';
import { HEAVY } from './element-reading.js';
import { BodyPieces, type PiecedBody } from './pieced-body.js';
import { SegmentCell } from './prompt-segments.js';

/** What was written for one element, and from which Content. */
export interface Written {
  content: Content;
  bytes: Buffer;
  cell: SegmentCell;
}

/** What was written for each element, and at which indices (ascending). */
export class WrittenElements {
  private byIndex: Array<Written | undefined> = [];
  private indices: number[] = [];

  at(index: number): Written | undefined {
    return this.byIndex[index];
  }

  /** The indices written, ascending. */
  get writtenAt(): readonly number[] {
    return this.indices;
  }

  set(index: number, written: Written): void {
    if (this.byIndex[index] === undefined) {
      let at = this.indices.length;
      while (at > 0 && (this.indices[at - 1] as number) > index) at--;
      this.indices.splice(at, 0, index);
    }
    this.byIndex[index] = written;
  }

  /** Only what was written for the first `count` elements stays. */
  keep(count: number): void {
    this.byIndex.length = Math.min(this.byIndex.length, count);
    while (this.indices.length > 0 && (this.indices.at(-1) as number) >= count) this.indices.pop();
  }
}

/** A reader's elements as a write reads and updates them. */
export interface ReaderElements {
  codec: BodyCodec;
  elements: unknown[];
  contents: Content[];
  cells: ReadonlyArray<SegmentCell | undefined>;
  written: WrittenElements;
  /** A cell of the client's version of an element written now (measured after the send). */
  replaced(cell: SegmentCell): void;
}

/** Where the body's array and its elements are. */
export interface ArrayLayout {
  raw: Buffer;
  spans: ReadonlyArray<[number, number]>;
  open: number;
  close: number;
  /** Laid out as `JSON.stringify` writes it: no space around its elements and commas. */
  compact: boolean;
}

export interface ElementsWritten {
  body: Buffer | PiecedBody;
  cells: Array<SegmentCell | undefined>;
  /** Every content of `sent` is now the reader's for its element. */
  asSent: boolean;
}

/** Whether the array's elements at `spans` (from `from` on) sit as `[a,b,c]` would put them. */
export function compactFrom(
  raw: Buffer,
  spans: ReadonlyArray<[number, number]>,
  from: number,
  open: number,
): boolean {
  for (let index = from; index < spans.length; index++) {
    const start = (spans[index] as [number, number])[0];
    const previousEnd = index === 0 ? open : (spans[index - 1] as [number, number])[1];
    if (start !== previousEnd + 1 || (index > 0 && raw[previousEnd] !== 0x2c)) return false;
  }
  return true;
}

/**
 * `sent` written in place of the array's elements; `differs`, when given, lists (ascending) the
 * indices whose content is not the reader's, and nothing else.
 */
export async function writeElements(
  reader: ReaderElements,
  layout: ArrayLayout,
  sent: readonly Content[],
  differs: readonly number[] | undefined,
  pause: EventLoopPauser,
): Promise<ElementsWritten> {
  const { raw, spans, close } = layout;
  const lastEnd = spans.length > 0 ? (spans.at(-1) as [number, number])[1] : layout.open + 1;
  const pieces = new BodyPieces(raw);
  const write: ElementWrite = {
    reader,
    pieces,
    // The cells of the elements sent as their own bytes; those written are set over them.
    cells: reader.cells.slice(0, sent.length),
    changed: false,
    asSent: sent.length <= reader.contents.length,
  };
  if (differs && layout.compact && close === lastEnd && sent.length === spans.length) {
    await writeChanged(write, spans, sent, differs, pause);
    pieces.fromRaw(pieces.end, raw.length);
  } else {
    pieces.fromRaw(0, layout.open + 1);
    await writeEach(write, spans, sent, pause);
    pieces.fromRaw(close, raw.length);
  }
  const { cells, changed, asSent } = write;
  return { body: changed ? pieces.finish() : raw, cells, asSent };
}

interface ElementWrite {
  reader: ReaderElements;
  pieces: BodyPieces;
  cells: Array<SegmentCell | undefined>;
  changed: boolean;
  asSent: boolean;
}

/** Every element in turn: its own bytes, what was written for it, or written now. */
async function writeEach(
  write: ElementWrite,
  spans: ReadonlyArray<[number, number]>,
  sent: readonly Content[],
  pause: EventLoopPauser,
): Promise<void> {
  const { reader, pieces } = write;
  for (let index = 0; index < sent.length; index++) {
    // Most elements are their own bytes again, a few steps each (an interpreted loop over a
    // long history: no destructuring, no call for them): the clock is read every so many.
    if (index % 512 === 0 && pause.due()) await pause();
    const content = sent[index] as Content;
    const span = spans[index] as [number, number];
    const before = reader.written.at(index);
    if (before === undefined || before.content !== content) {
      // An element too heavy to parse is its own bytes, always: the pass cannot change its
      // placeholder (it holds no output), which may be another request's object.
      if (content === reader.contents[index] || reader.elements[index] === HEAVY) {
        if (content !== reader.contents[index]) write.asSent = false;
        pieces.rawElement(span[0], span[1], index === 0);
        continue;
      }
    }
    if (index > 0) pieces.comma();
    writeOne(write, index, content, span[1]);
    if (pause.due()) await pause();
  }
}

/**
 * The written and the changed elements only (a compact array: see the module comment); the
 * client's bytes between them, commas included, are runs of `raw`. The same pieces as
 * `writeEach`'s.
 */
async function writeChanged(
  write: ElementWrite,
  spans: ReadonlyArray<[number, number]>,
  sent: readonly Content[],
  differs: readonly number[],
  pause: EventLoopPauser,
): Promise<void> {
  const { reader, pieces } = write;
  const writtenAt = reader.written.writtenAt.slice();
  let nextWritten = 0;
  let nextDiffering = 0;
  for (;;) {
    const written = writtenAt[nextWritten] ?? Infinity;
    const differing = differs[nextDiffering] ?? Infinity;
    const index = Math.min(written, differing);
    if (index >= sent.length) break;
    if (written === index) nextWritten++;
    if (differing === index) nextDiffering++;
    const content = sent[index] as Content;
    const span = spans[index] as [number, number];
    if (content !== reader.contents[index] && reader.elements[index] === HEAVY) {
      write.asSent = false;
      continue;
    }
    pieces.fromRaw(pieces.end, span[0]);
    writeOne(write, index, content, span[1]);
    if (pause.due()) await pause();
  }
}

/** Element `index` as what was written for it, or written now from `content`. */
function writeOne(write: ElementWrite, index: number, content: Content, end: number): void {
  const { reader, pieces } = write;
  write.changed = true;
  const before = reader.written.at(index);
  if (before !== undefined && before.content === content) {
    if (content !== reader.contents[index]) write.asSent = false;
    pieces.written(before.bytes, end);
    write.cells[index] = before.cell;
    return;
  }
  const element = reader.codec.toElement(content, reader.elements[index]);
  const compact = JSON.stringify(element);
  const bytes = Buffer.from(compact, 'utf8');
  const cell = new SegmentCell({ compact });
  reader.written.set(index, { content, bytes, cell });
  write.cells[index] = cell;
  // Measured after the send: its cell is the last holder of the client's element.
  const replaced = reader.cells[index];
  if (replaced) reader.replaced(replaced);
  reader.elements[index] = element;
  reader.contents[index] = content;
  pieces.written(bytes, end);
}
