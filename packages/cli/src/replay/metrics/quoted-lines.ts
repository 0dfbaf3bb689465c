/**
 * Which lines of a tool output the recorded agent used later: lines (trimmed, at least
 * `MIN_QUOTED_LINE_CHARS` characters) that a later model turn quotes verbatim, in its text or in
 * the arguments of a function call (a path in a command, a line in an edit's `old_string`).
 * Only turns of the same task count: chained tasks were recorded as separate sessions, so an
 * agent never saw another task's outputs, and a line found there is a coincidence, not a use.
 *
 * A line is compared without its line-number prefix (`LINE_NUMBER_PREFIX`), on both sides: an
 * output's line and every line of the quotable text. A numbered listing (`cat -n`, `nl -ba`,
 * swe-agent's numbered reads, `grep -n` of one file) then counts a line the agent quotes without
 * its number, which it always does. The 12-character floor applies to what is left.
 *
 * `QuoteIndex` holds the quotable text of a session's model turns in one string and answers "the
 * last model turn that contains this line". A bitmap of hashed 12-character windows of that text
 * rules out most lines without a search (a line is looked for only when its first, middle and
 * last windows all occur), so a session's outputs are checked in milliseconds.
 */
import type { FlatContent } from '../request-points.js';
import type { Content, Part } from '../types.js';

export const MIN_QUOTED_LINE_CHARS = 12;

/**
 * A line-number prefix, stripped before a line is compared: optional blanks, 1 to 7 digits, then
 * - a tab (`cat -n`, `nl -ba`, swe-agent's numbered reads: `    12\tcode`), or
 * - `:` or `|`, with optional blanks before it and at most one after it (`12:code` of `grep -n`
 *   on one file, `12: code` of an outline, `  12 | code`).
 * Only one prefix is stripped. A path prefix (`src/a.py:12:`) is not one: it starts with a path.
 */
export const LINE_NUMBER_PREFIX = /^[ \t]*\d{1,7}(?:\t|[ \t]*[:|] ?)/;
const LINE_NUMBER_PREFIXES = new RegExp(LINE_NUMBER_PREFIX.source, 'gm');

/** A line as it is compared: its line-number prefix stripped, then trimmed. */
export function lineKey(line: string): string {
  return line.replace(LINE_NUMBER_PREFIX, '').trim();
}

/** `text` with the line-number prefix of each of its lines stripped. */
export function withoutLineNumbers(text: string): string {
  return text.replace(LINE_NUMBER_PREFIXES, '');
}

const WINDOW = MIN_QUOTED_LINE_CHARS;
const BITMAP_BITS = 1 << 24;
const SEPARATOR = '\u0000';

/** The text a tool output had: its `output` string when that is the whole response, else JSON. */
export function responseText(part: Part): string {
  const response: unknown = part.functionResponse?.response;
  if (response && typeof response === 'object' && !Array.isArray(response)) {
    const record = response as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && typeof record['output'] === 'string') return record['output'];
  }
  return JSON.stringify(response ?? null, null, 2) ?? '';
}

/** The lines of an output that count, each once, in order of first appearance. */
export function candidateLines(text: string): string[] {
  const seen = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = lineKey(raw);
    if (line.length >= MIN_QUOTED_LINE_CHARS) seen.add(line);
  }
  return [...seen];
}

function collectStrings(value: unknown, into: string[], depth = 0): void {
  if (depth > 32) return;
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into, depth + 1);
  else if (value && typeof value === 'object') {
    for (const item of Object.values(value)) collectStrings(item, into, depth + 1);
  }
}

/**
 * What a model content can quote from: its text parts and every string in its call arguments,
 * each line's line-number prefix stripped.
 */
export function quotableText(content: Content): string {
  const pieces: string[] = [];
  for (const part of content.parts ?? []) {
    if (typeof part.text === 'string') pieces.push(part.text);
    if (part.functionCall) collectStrings(part.functionCall.args, pieces);
  }
  return withoutLineNumbers(pieces.join('\n'));
}

function windowHash(text: string, start: number): number {
  let hash = 0x811c9dc5;
  for (let index = start; index < start + WINDOW; index++) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  }
  return (hash >>> 0) & (BITMAP_BITS - 1);
}

export class QuoteIndex {
  private readonly text: string;
  /** Start offset in `text` of each indexed model content, ascending. */
  private readonly starts: number[] = [];
  /** Index in the session of each indexed model content. */
  private readonly contentIndices: number[] = [];
  private readonly bitmap = new Uint8Array(BITMAP_BITS / 8);

  /**
   * @param contents contents in order; only model turns are indexed
   * @param firstIndex the index in the session of `contents[0]`
   */
  constructor(contents: readonly Content[], firstIndex = 0) {
    const pieces: string[] = [];
    let offset = 0;
    contents.forEach((content, index) => {
      if (content.role !== 'model') return;
      const text = quotableText(content);
      this.starts.push(offset);
      this.contentIndices.push(firstIndex + index);
      pieces.push(text);
      offset += text.length + SEPARATOR.length;
    });
    this.text = pieces.join(SEPARATOR);
    for (let start = 0; start + WINDOW <= this.text.length; start++) {
      const bit = windowHash(this.text, start);
      this.bitmap[bit >>> 3] = (this.bitmap[bit >>> 3] as number) | (1 << (bit & 7));
    }
  }

  private mayContain(line: string): boolean {
    for (const start of [0, (line.length - WINDOW) >>> 1, line.length - WINDOW]) {
      const bit = windowHash(line, start);
      if (((this.bitmap[bit >>> 3] as number) & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  }

  /** Index in the session of the last model content that contains `line`, or -1. */
  lastQuote(line: string): number {
    if (this.starts.length === 0 || line.length < WINDOW || !this.mayContain(line)) return -1;
    const at = this.text.lastIndexOf(line);
    if (at < 0) return -1;
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if ((this.starts[middle] as number) <= at) low = middle;
      else high = middle - 1;
    }
    return this.contentIndices[low] as number;
  }
}

/** Quote indexes of one session, one per task, built when first asked. */
export class SessionQuotes {
  private readonly byTask = new Map<number, QuoteIndex>();

  constructor(private readonly flat: readonly FlatContent[]) {}

  /** Index in the session of the last model content of `task` that contains `line`, or -1. */
  lastQuote(line: string, task: number): number {
    let index = this.byTask.get(task);
    if (!index) {
      const first = this.flat.findIndex((entry) => entry.task === task);
      const contents = this.flat.filter((entry) => entry.task === task).map((e) => e.content);
      index = new QuoteIndex(contents, Math.max(0, first));
      this.byTask.set(task, index);
    }
    return index.lastQuote(line);
  }
}
