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
import { cutPreviewLength, cutPreviewLine } from '../previewLineCut.js';
import { keptLines } from './keptLines.js';

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
  /**
   * The length of each line's own number (`OWN_NUMBER`'s match; undefined: none), when the caller
   * has found them: the numbers of a numbered output are then not looked for again per line.
   */
  ownNumbers?: readonly (number | undefined)[];
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

/**
 * `hasOwnNumbering(lines)` and every line's `lineText` by it, in one pass: each line trimmed
 * once and its own number looked for once.
 */
export function linesAndNumbering(lines: readonly string[]): {
  numbered: boolean;
  texts: string[];
  /** Each line's `OWN_NUMBER` match length (undefined: none). */
  ownNumbers: (number | undefined)[];
} {
  const texts = new Array<string>(lines.length);
  const ownLengths = new Array<number | undefined>(lines.length);
  let nonBlank = 0;
  let numberedLines = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const text = line.trim();
    texts[index] = text;
    if (text === '') continue;
    nonBlank++;
    const own = OWN_NUMBER.exec(line);
    if (own) {
      numberedLines++;
      ownLengths[index] = own[0].length;
    }
  }
  const numbered = nonBlank > 0 && numberedLines >= OWN_NUMBERING_SHARE * nonBlank;
  if (numbered) {
    // A blank line has no number (`OWN_NUMBER` needs a digit): its text stays empty.
    for (let index = 0; index < lines.length; index++) {
      const length = ownLengths[index];
      if (length !== undefined) texts[index] = (lines[index] as string).slice(length).trim();
    }
  }
  return { numbered, texts, ownNumbers: ownLengths };
}

/**
 * The blanks (space, tab) a line begins with: what `trimStart` takes off its own number, which
 * `OWN_NUMBER` begins with blanks and then a digit.
 */
function leadingBlanks(line: string): number {
  let index = 0;
  while (line.charCodeAt(index) === 32 || line.charCodeAt(index) === 9) index++;
  return index;
}

/** Whether a line says enough to be worth showing (see `MIN_INFORMATIVE_CHARS`). */
export function isInformative(line: string, numbered: boolean): boolean {
  return lineText(line, numbered).length >= MIN_INFORMATIVE_CHARS;
}

/**
 * What each line costs shown with the number `firstLine + index`: the number's digits, `: `, the
 * line's cut length (`plainLengths`) and a new line, without writing the numbers (the width
 * changes at most a few times over the lines). Holes where the numbers are not safe integers:
 * those are counted when asked for.
 */
function numberedCosts(plainLengths: readonly number[], firstLine: number): number[] {
  const count = plainLengths.length;
  const costs = new Array<number>(count);
  if (!Number.isSafeInteger(firstLine) || firstLine < 1) return costs;
  if (!Number.isSafeInteger(firstLine + count - 1)) return costs;
  let width = 1;
  let bound = 10;
  for (; firstLine >= bound; bound *= 10) width++;
  for (let index = 0; index < count; index++) {
    if (firstLine + index >= bound) {
      width++;
      bound *= 10;
    }
    costs[index] = width + 3 + (plainLengths[index] as number);
  }
  return costs;
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
  const count = lines.length;
  const numbered = selection.numbered ?? hasOwnNumbering(lines);
  const maxChars = limits.maxLineChars;
  // A line no longer than the limit is shown as it is: only the long ones are cut, and only
  // those shown are written (the others are weighed by their cut length).
  const cut = (text: string) =>
    text.length <= maxChars ? text : cutPreviewLine(text, maxChars).text;
  // Plain arrays, not typed ones: a typed array per call costs microseconds on a cold pass.
  const plainLengths = new Array<number>(count);
  let plainChars = 0;
  for (let index = 0; index < count; index++) {
    const line = lines[index] as string;
    const length = line.length <= maxChars ? line.length : cutPreviewLength(line, maxChars);
    plainLengths[index] = length;
    plainChars += length + 1;
  }
  if (plainChars <= limits.lineBudgetChars) return lines.map(cut).join('\n');
  // The length of a line's own number, if it shows one.
  const ownNumberOf = (index: number): number | undefined => {
    if (!numbered) return undefined;
    if (selection.ownNumbers) return selection.ownNumbers[index];
    return OWN_NUMBER.exec(lines[index] as string)?.[0].length;
  };
  // What a line shown costs, counted without writing it: its number, `: `, its cut text and a
  // new line (every line's, in one loop: the selection asks for most of them), or its own
  // number without the padding and the rest cut (asked for when needed: few are shown).
  const costs = numbered ? new Array<number>(count) : numberedCosts(plainLengths, firstLine);
  const cost = (index: number): number => {
    const line = lines[index] as string;
    const own = ownNumberOf(index);
    const value =
      own !== undefined
        ? own - leadingBlanks(line) + cutPreviewLength(line.slice(own), maxChars) + 1
        : String(firstLine + index).length + 3 + (plainLengths[index] as number);
    costs[index] = value;
    return value;
  };
  const kept = keptLines(count, selection, costs, cost, limits.lineBudgetChars);
  const body: string[] = [];
  let keptCount = 0;
  for (let index = 0; index < count; index++) {
    if (kept[index] !== true) continue;
    keptCount++;
    const line = lines[index] as string;
    const own = ownNumberOf(index);
    body.push(
      own !== undefined
        ? line.slice(leadingBlanks(line), own) + cut(line.slice(own))
        : `${firstLine + index}: ${cut(line)}`,
    );
  }
  const omitted = count - keptCount;
  if (omitted === 0) return body.join('\n');
  return [
    `[... ${formatCount(omitted)} of ${formatCount(count)} lines omitted; kept lines numbered ...]`,
    ...body,
  ].join('\n');
}

/**
 * `indices` in an order whose every prefix is spread evenly over them: the first, the middle,
 * the quarters, the eighths, ... (so whatever fits of a list covers all of it).
 */
export function spreadOrder<T>(items: readonly T[]): T[] {
  const order: T[] = [];
  const taken = new Array<boolean>(items.length);
  for (let step = 1; order.length < items.length; step *= 2) {
    for (let part = 0; part < step && order.length < items.length; part++) {
      const index = Math.floor((part * items.length) / step);
      if (taken[index] !== true) {
        taken[index] = true;
        order.push(items[index] as T);
      }
    }
  }
  return order;
}
