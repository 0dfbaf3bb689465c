/**
 * A body's prompt as the net figures measure it (usage/net-billing.ts, usage/prompt-shape.ts):
 * the body without its conversation array as one segment, then each element of the array, each
 * as the characters of its compact JSON and a digest of that JSON (without its cache markers).
 *
 * The incremental reader (incremental-body.ts) gives each element it reads a cell that measures
 * it when first asked, from the value it already parsed, and keeps the figure with the element's
 * bytes: an element resent as the same bytes is measured once for the whole conversation, and no
 * body is parsed again for its figures. A cell holds only what the reader holds anyway (the parsed
 * element), except for an element the pass rewrites: that one is measured when it is written, so
 * that the client's version (a masked output's whole text) is let go with the request, as the
 * reader promises. The outside's cell holds the outside's bytes until measured or replaced. A figure is measured from the same compact JSON a whole
 * parse of the body would give (`JSON.stringify` of the parsed element), so it is the same figure.
 */
import { digestOf } from '@toolmask/core/utils';

/** One segment's figures. */
export interface Segment {
  chars: number;
  digest: string;
}

/** A body's segments, the body-without-array first (usage/net-billing.ts's `PromptShape`). */
export interface PromptSegments {
  digests: string[];
  chars: number[];
}

/**
 * A compact JSON without its `cache_control` markers (a flat object value), for the digest: a
 * provider's prefix cache matches the prompt, not where the client put its breakpoints, and
 * clients move them every request (Claude Code's on the newest block, opencode's on the last two
 * messages), so a marker gone from an element leaves it the same element. Inside a JSON string a
 * quote is escaped, so `,"` and `{"` before the key are the key's, never a string's.
 */
export function withoutCacheMarkers(compact: string): string {
  if (!compact.includes('"cache_control":{')) return compact;
  return compact
    .replace(/,"cache_control":\{[^{}]*\}/g, '')
    .replace(/\{"cache_control":\{[^{}]*\},?/g, '{');
}

/** The figures of a segment from its compact JSON (its digest without cache markers). */
export function segmentOf(compact: string): Segment {
  return {
    chars: compact.length,
    digest: digestOf('sha1', withoutCacheMarkers(compact), 'base64').slice(0, 12),
  };
}

/** What a cell measures: a parsed value, or a compact JSON text already written. */
type CellSource = { value: unknown } | { compact: string };

/** One segment measured when first asked, then kept (its source let go). */
export class SegmentCell {
  private source: CellSource | undefined;
  private measured: Segment | undefined;

  constructor(source: CellSource) {
    this.source = source;
  }

  /** Measures it now (its source let go). */
  measure(): void {
    void this.segment;
  }

  get segment(): Segment {
    if (!this.measured) {
      const source = this.source as CellSource;
      this.measured = segmentOf(
        'compact' in source ? source.compact : (JSON.stringify(source.value) ?? 'null'),
      );
      this.source = undefined;
    }
    return this.measured;
  }
}

/** New elements' cells: none for one too heavy to parse (`heavy`), which is not measured this way. */
export function cellsOf(
  elements: readonly unknown[],
  heavy: unknown,
): Array<SegmentCell | undefined> {
  return elements.map((element) =>
    element === heavy ? undefined : new SegmentCell({ value: element }),
  );
}

/**
 * The cell of a body's outside (its bytes with the conversation array empty, the array's `[` at
 * `open`), parsed when first asked. Undefined when a whole parse of the body would not find the
 * reader's array there: a key given twice, of which `JSON.parse` keeps the last value and the
 * reader reads the first. The array's place is marked (`[0]`) to tell.
 */
export class OutsideCell {
  private bytes: Buffer | undefined;
  private measured: Segment | undefined | null;

  constructor(
    bytes: Buffer,
    private readonly open: number,
    private readonly arrayPath: readonly string[],
  ) {
    this.bytes = bytes;
  }

  get segment(): Segment | undefined {
    if (this.measured === undefined) {
      this.measured = null;
      const bytes = this.bytes as Buffer;
      this.bytes = undefined;
      const marked = Buffer.concat([
        bytes.subarray(0, this.open + 1),
        MARK,
        bytes.subarray(this.open + 1),
      ]);
      try {
        const outside: unknown = JSON.parse(marked.toString('utf8'));
        const holder = markedHolder(outside, this.arrayPath);
        if (holder) {
          holder[this.arrayPath.at(-1) as string] = [];
          this.measured = segmentOf(JSON.stringify(outside));
        }
      } catch {
        // not measured: the body is measured whole instead
      }
    }
    return this.measured ?? undefined;
  }
}

const MARK = Buffer.from('0');

/** The object holding the array at `path` when that array is the marked one (`[0]`). */
function markedHolder(body: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let holder: Record<string, unknown> | undefined;
  let value = body;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    holder = value as Record<string, unknown>;
    value = holder[key];
  }
  return Array.isArray(value) && value.length === 1 && value[0] === 0 ? holder : undefined;
}

/**
 * A body's segments from its cells; undefined when one cannot be measured this way (an element
 * too heavy to parse at once has no cell).
 */
export function segmentsOfCells(
  outside: OutsideCell,
  cells: ReadonlyArray<SegmentCell | undefined>,
): PromptSegments | undefined {
  const first = outside.segment;
  if (!first) return undefined;
  const digests = [first.digest];
  const chars = [first.chars];
  for (const cell of cells) {
    if (!cell) return undefined;
    const { digest, chars: length } = cell.segment;
    digests.push(digest);
    chars.push(length);
  }
  return { digests, chars };
}

/** A request's prompt segments: its body as it came, and as sent. */
export interface BodySegments {
  unmasked: PromptSegments;
  sent: PromptSegments;
}

/**
 * One read's segments: the body's cells as read, and the cells of the body written from it (set
 * by `written`), measured when asked.
 */
export class ReadSegments {
  private sentCells?: ReadonlyArray<SegmentCell | undefined>;

  constructor(
    private readonly outside: OutsideCell,
    private readonly cells: ReadonlyArray<SegmentCell | undefined>,
  ) {}

  /** The body written, its cells kept. */
  written<Body>(write: { body: Body; cells: ReadonlyArray<SegmentCell | undefined> }): Body {
    this.sentCells = write.cells;
    return write.body;
  }

  /** Both bodies' segments; undefined before `written`, or when a cell is missing. */
  both(): BodySegments | undefined {
    if (!this.sentCells) return undefined;
    const unmasked = segmentsOfCells(this.outside, this.cells);
    const sent = unmasked && segmentsOfCells(this.outside, this.sentCells);
    return unmasked && sent ? { unmasked, sent } : undefined;
  }
}
