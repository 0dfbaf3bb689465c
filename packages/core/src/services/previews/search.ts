/**
 * The preview of a search (`grep -n`, `rg`, `git grep`): every match's location kept, the texts
 * that fit shown whole.
 *
 * A search's lines are `path:line:text` (or `line:text` for one file; `-` instead of `:` marks a
 * context line of `grep -A/-B/-C`). Each path is written once, above its lines, and every match
 * keeps its line number. Then texts, trimmed of their indentation, the shortest first, whole or not
 * at all (a text cut in half says little and still costs its characters), while the budget lasts;
 * a context line is shown only with its text. When the matches' locations alone do not fit, or the
 * output is not such a list (`grep -A 20` without `-n`, `nl -ba f | grep -C 10`, `find`), it is a
 * file's lines around what was looked for, previewed as a source read (sourceRead.ts: the call's
 * pattern names the region).
 */
import { formatCount } from '../../utils/formatCount.js';
import type { ToolCall } from './toolCall.js';
import type { SelectionLimits } from './lineSelection.js';
import { sourceReadPreview } from './sourceRead.js';

/** `path:12:text`, `path-12-text` (context), `12:text`, `12-text`. */
const ENTRY = /^(?:(.*?[^\s:-])[:-])?(\d{1,7})([:-])(.*)$/;
/** Share of the non-blank lines (grep's `--` separators aside) that must be entries. */
const ENTRY_SHARE = 0.8;

interface Entry {
  path: string | undefined;
  line: string;
  separator: string;
  text: string;
}

/** The lines as search entries, or undefined when they are not mostly entries. */
export function searchEntries(lines: readonly string[]): Entry[] | undefined {
  const entries: Entry[] = [];
  let others = 0;
  for (const line of lines) {
    if (line.trim() === '' || line === '--') continue;
    const match = /^\s/.test(line) ? null : ENTRY.exec(line);
    if (!match) {
      others++;
      continue;
    }
    entries.push({
      path: match[1],
      line: match[2] as string,
      separator: match[3] as string,
      text: (match[4] as string).trim(),
    });
  }
  if (entries.length === 0 || entries.length < ENTRY_SHARE * (entries.length + others)) {
    return undefined;
  }
  return entries;
}

/**
 * Which entries show their text: whole texts, the shortest first, while they fit in `available`
 * characters (a cut text says little and would still cost its characters).
 */
function shownTexts(entries: readonly Entry[], available: number, maxChars: number): boolean[] {
  const shown = new Array<boolean>(entries.length);
  const byLength = entries
    .map((_, index) => index)
    .filter((index) => (entries[index] as Entry).text.length <= maxChars)
    .sort((a, b) => (entries[a] as Entry).text.length - (entries[b] as Entry).text.length);
  let left = available;
  for (const index of byLength) {
    const entry = entries[index] as Entry;
    // A match's location is paid for already; a context line shown costs its number too.
    const cost = entry.text.length + 1 + (isMatch(entry) ? 0 : entry.line.length + 2);
    if (cost > left) break;
    shown[index] = true;
    left -= cost;
  }
  return shown;
}

const isMatch = (entry: Entry) => entry.separator === ':';

/** The preview of a search's lines; `firstLine` is the number of `lines[0]` in the saved output. */
export function searchPreview(
  lines: readonly string[],
  call: ToolCall | undefined,
  limits: SelectionLimits,
  firstLine = 1,
): string {
  const entries = searchEntries(lines);
  // Not a list of locations (`grep -A 20`, `nl -ba f | grep -C 10`, `find`): lines of a file
  // around what was looked for, previewed as a source read, the pattern naming the region.
  const generic = () => sourceReadPreview(lines, call, limits, firstLine);
  if (!entries) return generic();
  // What the matches' locations cost: each path once, each number with its separator, a new line.
  let fixed = 0;
  let previousPath: string | undefined;
  for (const entry of entries) {
    if (!isMatch(entry)) continue;
    if (entry.path !== undefined && entry.path !== previousPath) fixed += entry.path.length + 1;
    previousPath = entry.path;
    fixed += entry.line.length + 2;
  }
  if (fixed >= limits.lineBudgetChars) return generic();
  const shown = shownTexts(entries, limits.lineBudgetChars - fixed, limits.maxLineChars);
  const body: string[] = [];
  let matches = 0;
  let hidden = 0;
  previousPath = undefined;
  entries.forEach((entry, index) => {
    if (isMatch(entry)) matches++;
    if (shown[index] !== true) hidden++;
    if (shown[index] !== true && !isMatch(entry)) return;
    if (entry.path !== undefined && entry.path !== previousPath) body.push(entry.path);
    previousPath = entry.path;
    const location = `${entry.line}${entry.separator}`;
    body.push(shown[index] === true ? `${location} ${entry.text}` : location);
  });
  const header = `[${formatCount(entries.length)} lines found, ${formatCount(matches)} matching: every match's location kept${
    hidden > 0 ? `, ${formatCount(hidden)} texts left out` : ''
  } ...]`;
  return [header, ...body].join('\n');
}
