/**
 * The selection every kind-aware preview shares: which lines of an output to show within a
 * character budget, each with its line number, in the output's order.
 *
 * A kind names the lines it keeps first (`first`: a failing test's name, an error, a signature,
 * taken in that order while they fit) and gives every other line a worth (`worth`: 0 for a line
 * never worth showing). The rest of the budget goes to the lines of highest worth per character
 * shown, so a budget holds many short lines and few long ones, wherever they are in the output.
 * Each line shown costs what it shows: its number, its text cut at `maxLineChars` (in the middle,
 * never through a path: previewLineCut.ts) and a new line.
 *
 * Why so (docs/benchmarks.md, section 3.7): the lines agents quote again lie all over an output
 * they read, and a line is as likely to be needed whatever its length, so the more lines a budget
 * shows, the more of them it keeps; head and tail show a run of lines from each end and miss the
 * middle. The numbers make each line findable: they are the output's own when it has them
 * (`cat -n`, `nl -ba`, `grep -n` of one file, numbered reads), else the line of the saved output,
 * which is what the read-back tool's `offset` takes.
 */
import { formatCount } from '../../utils/formatCount.js';
import { cutPreviewLine } from '../previewLineCut.js';

export interface SelectionLimits {
  /** Longer lines are cut in the middle (their number not counted). */
  maxLineChars: number;
  /** Characters of lines the preview shows, numbers and new lines included. */
  lineBudgetChars: number;
}

export interface LineSelection {
  /** Lines kept first, in this order, each while it fits. */
  first?: readonly number[];
  /** What a line is worth (0: never shown); the rest of the budget goes by worth per character. */
  worth: (index: number) => number;
  /**
   * Whether the lines carry their own numbers (`hasOwnNumbering(lines)`), when the caller has
   * found out already: a kind that reads the numbers itself need not have them counted twice.
   */
  numbered?: boolean;
}

/**
 * A line's own number: blanks, 1 to 7 digits, then a tab (`cat -n`, `nl -ba`), `:` or `|` (an
 * outline, `grep -n` of one file), or one blank before the text (an abbreviated file view).
 */
export const OWN_NUMBER = /^[ \t]*(\d{1,7})(?:\t|[ \t]*[:|] ?| (?=\S))/;
/** Share of the non-blank lines that must carry a number for the output's numbering to be used. */
const OWN_NUMBERING_SHARE = 0.8;
/** A line with fewer non-blank characters says little (`}`, `else:`, `return x`, `pass`). */
export const MIN_INFORMATIVE_CHARS = 12;

/** A line's text without its own number (if the output is numbered) and outer blanks. */
export function lineText(line: string, numbered: boolean): string {
  return (numbered ? line.replace(OWN_NUMBER, '') : line).trim();
}

/** Whether most non-blank lines of `lines` carry their own number (`OWN_NUMBER`). */
export function hasOwnNumbering(lines: readonly string[]): boolean {
  let nonBlank = 0;
  let numbered = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    nonBlank++;
    if (OWN_NUMBER.test(line)) numbered++;
  }
  return nonBlank > 0 && numbered >= OWN_NUMBERING_SHARE * nonBlank;
}

/** Whether a line says enough to be worth showing (see `MIN_INFORMATIVE_CHARS`). */
export function isInformative(line: string, numbered: boolean): boolean {
  return lineText(line, numbered).length >= MIN_INFORMATIVE_CHARS;
}

/**
 * The preview of `lines`: the lines `selection` keeps within `limits`, each with its number
 * (`firstLine` is the number of `lines[0]` in the saved output), after one line saying how many
 * were left out. All of them, cut but unnumbered, when they all fit.
 */
export function selectLines(
  lines: readonly string[],
  selection: LineSelection,
  limits: SelectionLimits,
  firstLine = 1,
): string {
  const numbered = selection.numbered ?? hasOwnNumbering(lines);
  const cut = (text: string) => cutPreviewLine(text, limits.maxLineChars).text;
  // A line no longer than the limit is shown as it is: only the long ones are cut.
  const plain = new Array<string>(lines.length);
  let plainChars = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const text = line.length <= limits.maxLineChars ? line : cut(line);
    plain[index] = text;
    plainChars += text.length + 1;
  }
  if (plainChars <= limits.lineBudgetChars) return plain.join('\n');
  const shown = (index: number): string => {
    const line = lines[index] as string;
    const own = numbered ? OWN_NUMBER.exec(line) : null;
    if (own) return own[0].trimStart() + cut(line.slice(own[0].length));
    return `${firstLine + index}: ${plain[index] as string}`;
  };
  const costs = new Int32Array(lines.length);
  // What `shown` would write, counted without writing it: an unnumbered output's line is its
  // number, `: ` and its cut text (every candidate line is costed; few are shown).
  const cost = (index: number) => {
    if (costs[index] === 0) {
      costs[index] =
        (numbered
          ? shown(index).length
          : String(firstLine + index).length + 2 + (plain[index] as string).length) + 1;
    }
    return costs[index] as number;
  };
  const kept = new Uint8Array(lines.length);
  let used = 0;
  let keptCount = 0;
  const keep = (index: number) => {
    if (index < 0 || index >= lines.length || kept[index] === 1) return;
    if (used + cost(index) > limits.lineBudgetChars) return;
    kept[index] = 1;
    keptCount++;
    used += cost(index);
  };
  for (const index of selection.first ?? []) keep(index);
  const worths = new Float64Array(lines.length);
  const candidates: number[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (kept[index] === 1) continue;
    const worth = selection.worth(index);
    if (worth > 0) {
      worths[index] = worth / cost(index);
      candidates.push(index);
    }
  }
  candidates.sort((a, b) => (worths[b] as number) - (worths[a] as number) || a - b);
  for (const index of candidates) keep(index);
  const body: string[] = [];
  for (let index = 0; index < lines.length; index++) if (kept[index] === 1) body.push(shown(index));
  const omitted = lines.length - keptCount;
  if (omitted === 0) return body.join('\n');
  return [
    `[... ${formatCount(omitted)} of ${formatCount(lines.length)} lines omitted; kept lines numbered ...]`,
    ...body,
  ].join('\n');
}

/**
 * `indices` in an order whose every prefix is spread evenly over them: the first, the middle,
 * the quarters, the eighths, ... (so whatever fits of a list covers all of it).
 */
export function spreadOrder<T>(items: readonly T[]): T[] {
  const order: T[] = [];
  const taken = new Uint8Array(items.length);
  for (let step = 1; order.length < items.length; step *= 2) {
    for (let part = 0; part < step && order.length < items.length; part++) {
      const index = Math.floor((part * items.length) / step);
      if (taken[index] === 0) {
        taken[index] = 1;
        order.push(items[index] as T);
      }
    }
  }
  return order;
}
