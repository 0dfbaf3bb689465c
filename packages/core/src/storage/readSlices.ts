/**
 * What one `read_tool_output` call shows, built line by line as the file streams in: a range of
 * lines, or the matching lines with context (grep -n style). Both keep to the same budget (at
 * most `READ_LIMITS.maxBytes` of text per call, each line cut at `READ_LIMITS.maxLineChars`) and
 * end with one footer line that says what was shown and how to get the rest.
 *
 * The total line count (and match count) is known only when the whole file was read; a call that
 * stopped early on a large output says "the output goes on" instead.
 */
import { formatCount } from '../utils/formatCount.js';
import { headOf } from '../utils/codePoints.js';
import type { Line, LineBatch } from './lineStream.js';

export const READ_LIMITS = {
  /** Lines per call in range mode (also the default `limit`). */
  maxLines: 2_000,
  /** UTF-8 bytes of returned text per call. */
  maxBytes: 64 * 1024,
  /** Characters kept of a single line. */
  maxLineChars: 2_000,
  /** Lines of context around each match in pattern mode. */
  contextLines: 2,
  /** Matching lines per call in pattern mode (`limit` is capped here). */
  maxMatches: 500,
  /** Default `limit` in pattern mode. */
  defaultMatches: 100,
  /** Outputs up to this size are always read to the end: exact line and match counts. */
  fullScanBytes: 8 * 1024 * 1024,
  /** A search stops after this long and says where to go on. */
  searchTimeMs: 10_000,
} as const;

/** What is known of the whole output when a call ends. */
export interface OutputExtent {
  /** Set when the whole file was read. */
  totalLines?: number;
  /** Size of the file in bytes. */
  bytes: number;
}

/** A line as shown: cut at `maxLineChars` (never inside a character), saying how much was cut. */
function displayLine({ text, length }: Line): { text: string; cut: boolean } {
  if (length <= READ_LIMITS.maxLineChars) return { text, cut: false };
  const head = headOf(text, READ_LIMITS.maxLineChars);
  return {
    text: `${head} … [${formatCount(length - head.length)} more characters cut]`,
    cut: true,
  };
}

/** Collects lines while they fit in the byte budget (the first one always fits). */
class Budget {
  private used = 0;
  readonly lines: string[] = [];
  add(line: string): boolean {
    const bytes = Buffer.byteLength(line, 'utf8') + 1;
    if (this.lines.length > 0 && this.used + bytes > READ_LIMITS.maxBytes) return false;
    this.used += bytes;
    this.lines.push(line);
    return true;
  }
}

/** `lines 3-9 of 120`, or, before the end is known, `lines 3-9 (the output goes on: ...)`. */
function span(first: number, last: number, extent: OutputExtent): string {
  return extent.totalLines !== undefined
    ? `lines ${first}-${last} of ${extent.totalLines}`
    : `lines ${first}-${last} (the output goes on: ${formatCount(extent.bytes)} bytes in all)`;
}

const BYTE_LIMIT = `the ${formatCount(READ_LIMITS.maxBytes)}-byte limit per call`;

export interface Slice {
  /** The lines and the footer. */
  text: string;
  lastLine: number;
  truncated: boolean;
}

/** Range mode: lines `first` .. `first + limit - 1`. */
export class RangeSlice {
  private readonly budget = new Budget();
  private last: number;
  private anyCut = false;
  private hitBytes = false;
  /** Nothing more to show. */
  complete = false;

  constructor(
    readonly first: number,
    private readonly limit: number,
  ) {
    this.last = first - 1;
  }

  take(batch: LineBatch): void {
    if (batch.first + batch.count <= this.first) return; // before the range: only counted
    for (let index = 0; index < batch.count && !this.complete; index++) {
      const number = batch.first + index;
      if (number < this.first) continue;
      if (number >= this.first + this.limit) {
        this.complete = true;
        break;
      }
      const line = displayLine(batch.line(index));
      if (!this.budget.add(line.text)) {
        this.hitBytes = true;
        this.complete = true;
        break;
      }
      this.anyCut ||= line.cut;
      this.last = number;
    }
  }

  finish(extent: OutputExtent): Slice {
    const truncated = extent.totalLines === undefined || this.last < extent.totalLines;
    let footer = `[read_tool_output: ${span(this.first, this.last, extent)}`;
    if (truncated) {
      const why = ` (${formatCount(READ_LIMITS.maxBytes)}-byte limit per call)`;
      footer += `${this.hitBytes ? why : ''}; call again with offset=${this.last + 1} for more`;
    } else {
      footer += ', end of output';
    }
    if (this.anyCut) {
      footer += `; lines longer than ${formatCount(READ_LIMITS.maxLineChars)} characters were cut, use pattern to search them`;
    }
    return {
      text: [...this.budget.lines, `${footer}]`].join('\n'),
      lastLine: this.last,
      truncated,
    };
  }
}

interface SeenLine {
  number: number;
  isMatch: boolean;
  /** Where it is while its batch is current; decoded once needed, or when the batch is done. */
  batch: LineBatch | undefined;
  index: number;
  line?: Line;
}

function lineOf(seen: SeenLine): Line {
  seen.line ??= (seen.batch as LineBatch).line(seen.index);
  seen.batch = undefined;
  return seen.line;
}

/** Decoded only when shown: most lines of a search never are. */
const shownLine = (seen: SeenLine) =>
  `${seen.number}${seen.isMatch ? ':' : '-'}${displayLine(lineOf(seen)).text}`;

export type SearchStop = 'limit' | 'bytes' | 'time';

/**
 * Pattern mode: every match (from `first` on) with `contextLines` of context, `n:` for a matching
 * line, `n-` for context, `--` between groups that do not touch. A group (one match and its
 * context) is shown whole or not at all; the call stops after `wanted` matches are shown.
 */
export class MatchSlice {
  private readonly budget = new Budget();
  private readonly context = READ_LIMITS.contextLines;
  /** The last lines seen, for the context before a match. */
  private readonly recent: SeenLine[] = [];
  /** Matches not yet turned into a group, and matches not yet counted as shown. */
  private readonly queue: number[] = [];
  private readonly unshown: number[] = [];
  private group: { end: number; lines: string[] } | undefined;
  private printedUpTo: number;
  private shown = 0;
  private current: number;
  matches = 0;
  /** Why the call stopped showing matches (set once). */
  stop: SearchStop | undefined;

  constructor(
    readonly first: number,
    private readonly wanted: number,
    private readonly pattern: string,
  ) {
    this.printedUpTo = first - 1;
    this.current = first - 1;
  }

  /** Enough is shown: the rest of the file only counts. */
  get complete(): boolean {
    return this.stop !== undefined || (this.shown >= this.wanted && !this.group);
  }

  /** Feeds the lines of `batch` from `first` on; `matched` holds the matching indices. */
  take(batch: LineBatch, matched: ReadonlySet<number>): void {
    for (let index = Math.max(0, this.first - batch.first); index < batch.count; index++) {
      const number = batch.first + index;
      const isMatch = matched.has(index);
      const seen: SeenLine = { number, batch, index, isMatch };
      this.current = number;
      this.recent.push(seen);
      if (this.recent.length > 2 * this.context + 1) this.recent.shift();
      if (isMatch) {
        this.matches++;
        if (this.stop === undefined) {
          this.queue.push(number);
          this.unshown.push(number);
        }
      }
      if (this.group && number <= this.group.end) {
        this.group.lines.push(shownLine(seen));
        if (number === this.group.end) this.closeGroup();
      }
      this.openGroups();
    }
    // The batch's bytes are reused by the next one: decode the few lines kept for context.
    for (const seen of this.recent) lineOf(seen);
  }

  /** The file ended, or the search stopped (`time`): shows what the open group holds. */
  end(stop?: SearchStop): void {
    if (this.group) {
      this.group.end = this.current;
      this.closeGroup();
    }
    if (stop && this.stop === undefined) this.stop = stop;
  }

  private openGroups(): void {
    while (!this.group && this.stop === undefined && this.queue.length > 0) {
      if (this.shown >= this.wanted) {
        this.stop = 'limit';
        return;
      }
      const match = this.queue.shift() as number;
      const start = Math.max(this.first, match - this.context, this.printedUpTo + 1);
      const end = match + this.context;
      if (end <= this.printedUpTo) continue; // shown whole as context of the group before
      const lines: string[] = [];
      if (this.budget.lines.length > 0 && start > this.printedUpTo + 1) lines.push('--');
      for (const seen of this.recent) {
        if (seen.number >= start) lines.push(shownLine(seen));
      }
      this.group = { end, lines };
      if (this.current >= end) this.closeGroup();
    }
  }

  private closeGroup(): void {
    const group = this.group as { end: number; lines: string[] };
    this.group = undefined;
    const before = this.budget.lines.length;
    if (!group.lines.every((line) => this.budget.add(line))) {
      this.budget.lines.splice(before);
      this.stop = 'bytes';
      return;
    }
    this.printedUpTo = group.end;
    while (this.unshown.length > 0 && (this.unshown[0] as number) <= this.printedUpTo) {
      this.unshown.shift();
      this.shown++;
    }
  }

  finish(extent: OutputExtent): Slice & { matches?: number; matchesShown: number } {
    const total = extent.totalLines;
    const whole = total !== undefined && this.stop !== 'time';
    const why =
      this.stop === 'bytes'
        ? BYTE_LIMIT
        : this.stop === 'time'
          ? `the ${READ_LIMITS.searchTimeMs / 1000}-second time limit per call`
          : `limit=${this.wanted}`;
    const resume = this.stop === 'time' ? this.current + 1 : this.printedUpTo + 1;
    const more = `call again with the same pattern and offset=${resume} for more`;
    let footer: string;
    let truncated: boolean;
    if (whole) {
      truncated = this.shown < this.matches;
      footer =
        this.matches === 0
          ? `[read_tool_output: no line matches ${this.pattern} in ${span(this.first, total, extent)}]`
          : `[read_tool_output: ${this.shown} of ${this.matches} matching lines in ${span(this.first, total, extent)}${truncated ? `; stopped at ${why}: ${more}` : ''}]`;
    } else {
      truncated = true;
      const scanned = span(this.first, this.current, { bytes: extent.bytes });
      footer = `[read_tool_output: ${this.shown} matching line${this.shown === 1 ? '' : 's'} shown in ${scanned}; stopped at ${why}: ${more}]`;
    }
    return {
      text: [...this.budget.lines, footer].join('\n'),
      lastLine: whole ? (total as number) : this.current,
      truncated,
      ...(whole ? { matches: this.matches } : {}),
      matchesShown: this.shown,
    };
  }
}
