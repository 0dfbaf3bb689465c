/**
 * The matches of one `search_tool_outputs` call, ranked and bounded: lines with more of the query's
 * words first, then lines of newer outputs, then by line number. At most `limit` are kept at any
 * time (a sort and cut whenever twice that many are held), so memory stays small however many
 * lines match; every match is still counted.
 *
 * The answer lists the kept matches grouped by output, each with its line of context on either
 * side, `n:` for the match and `n-` for context as `read_tool_output` shows them, within
 * `SEARCH_LIMITS.maxBytes`.
 */
import { headOf } from '../utils/codePoints.js';
import { formatCount } from '../utils/formatCount.js';
import { SEARCH_LIMITS } from './searchQuery.js';

export interface SearchHit {
  /** `session-<id>/<name>`, as `read_tool_output` takes it. */
  file: string;
  /** 1-based line number of the match. */
  line: number;
  text: string;
  /** The lines just before and after (numbered), when in the same stretch of the file. */
  before: { line: number; text: string }[];
  after: { line: number; text: string }[];
  /** How many of the query's words the line holds. */
  score: number;
  /** The output's place in the newest-first order (lower is newer). */
  order: number;
}

/** A line as shown: cut at `SEARCH_LIMITS.lineChars`, saying how much was cut. */
export function shownText(text: string, length = text.length): string {
  if (length <= SEARCH_LIMITS.lineChars) return text;
  const head = headOf(text, SEARCH_LIMITS.lineChars);
  return `${head} … [${formatCount(length - head.length)} more characters]`;
}

function compareHits(a: SearchHit, b: SearchHit): number {
  return b.score - a.score || a.order - b.order || a.line - b.line;
}

export class RankedHits {
  private hits: SearchHit[] = [];
  /**
   * The score of the worst hit kept once `limit` are kept (set at each trim). Hits arrive in
   * order (newer outputs first, then by line), so a later hit that does not beat it on score can
   * never be kept.
   */
  private floor: number | undefined;
  /** Every match seen, kept or not. */
  count = 0;
  readonly files = new Set<string>();

  constructor(private readonly limit: number) {}

  /** Whether a hit of this score could still be kept (cheap check before building one). */
  wants(score: number): boolean {
    return this.floor === undefined || score > this.floor;
  }

  add(hit: SearchHit): void {
    this.hits.push(hit);
    if (this.hits.length >= 2 * this.limit) this.trim();
  }

  noteMatch(file: string): void {
    this.count++;
    this.files.add(file);
  }

  private trim(): void {
    this.hits.sort(compareHits);
    this.hits.length = Math.min(this.hits.length, this.limit);
    if (this.hits.length === this.limit) this.floor = this.hits[this.limit - 1]?.score;
  }

  /** The kept hits, best first. */
  best(): SearchHit[] {
    this.trim();
    return this.hits;
  }
}

/** A hit's lines as shown (its context, itself), without lines already printed. */
function hitLines(hit: SearchHit, printed: ReadonlySet<number>, hitLineSet: ReadonlySet<number>) {
  return [...hit.before, { line: hit.line, text: hit.text }, ...hit.after]
    .filter((entry) => !printed.has(entry.line))
    .map((entry) => ({
      line: entry.line,
      // A line that is a match itself is marked so even when shown as another's context.
      text: `${entry.line}${hitLineSet.has(entry.line) ? ':' : '-'}${entry.text}`,
    }));
}

/**
 * The answer's body: the hits grouped by output, outputs in the order of their best hit and the
 * best hits first inside each (then by line), `--` before a stretch that does not follow the line
 * printed just before; until the byte budget is spent (the first hit is always shown). Returns
 * the lines and how many hits they show.
 */
export function formatHits(hits: readonly SearchHit[]): { lines: string[]; shown: number } {
  const groups = new Map<string, SearchHit[]>();
  for (const hit of hits) groups.set(hit.file, [...(groups.get(hit.file) ?? []), hit]);
  const lines: string[] = [];
  let bytes = 0;
  let shown = 0;
  const fits = (added: string[]) => {
    const size = added.reduce((sum, line) => sum + Buffer.byteLength(line, 'utf8') + 1, 0);
    if (shown > 0 && bytes + size > SEARCH_LIMITS.maxBytes) return false;
    bytes += size;
    return true;
  };
  for (const [file, group] of groups) {
    group.sort((a, b) => b.score - a.score || a.line - b.line);
    const hitLineSet = new Set(group.map((hit) => hit.line));
    const printed = new Set<number>();
    let previous = 0;
    for (const hit of group) {
      const entries = hitLines(hit, printed, hitLineSet);
      if (entries.length === 0) {
        shown++; // printed already, as another match's context
        continue;
      }
      const added = entries.map((entry) => `  ${entry.text}`);
      if (printed.size === 0) added.unshift(lines.length > 0 ? `\n${file}` : file);
      else if ((entries[0] as { line: number }).line !== previous + 1) added.unshift('  --');
      if (!fits(added)) return { lines, shown };
      lines.push(...added);
      for (const entry of entries) printed.add(entry.line);
      previous = (entries[entries.length - 1] as { line: number }).line;
      shown++;
    }
  }
  return { lines, shown };
}
