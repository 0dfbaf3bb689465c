/**
 * The preview of a diff (`git diff`, `git show`, a patch): file and hunk headers with their
 * changed lines, cut evenly.
 * - The file headers (`diff --git`, or `+++` without it) and hunk headers (`@@ -a,b +c,d @@`),
 *   spread evenly over the diff, within `HEADER_SHARE` of the budget;
 * - then the changed lines (`+` / `-`), one from each hunk in turn (each hunk's first change,
 *   then each hunk's second, ...), so every hunk shows its start and none takes the budget;
 * - then context lines, the shortest first, if room is left (lineSelection.ts).
 */
import type { ToolCall } from './toolCall.js';
import { isInformative, selectLines, spreadOrder, type SelectionLimits } from './lineSelection.js';

/** Share of the budget the file and hunk headers may take. */
const HEADER_SHARE = 0.4;

const FILE_HEADER = /^diff --git |^\+\+\+ /;
const HUNK_HEADER = /^@@ .* @@/;
const CHANGE = /^[+-](?![+-]{2} )/;

/** The preview of a diff's lines; `firstLine` is the number of `lines[0]` in the saved output. */
export function diffPreview(
  lines: readonly string[],
  _call: ToolCall | undefined,
  limits: SelectionLimits,
  firstLine = 1,
): string {
  const headers: number[] = [];
  const hunks: number[][] = [];
  let sawGitHeader = false;
  lines.forEach((line, index) => {
    if (line.startsWith('diff --git ')) sawGitHeader = true;
    if (FILE_HEADER.test(line) && (line.startsWith('diff --git ') || !sawGitHeader)) {
      headers.push(index);
    } else if (HUNK_HEADER.test(line)) {
      headers.push(index);
      hunks.push([]);
    } else if (CHANGE.test(line) && hunks.length > 0) {
      hunks[hunks.length - 1]?.push(index);
    }
  });
  const first: number[] = [];
  let headerChars = 0;
  for (const index of spreadOrder(headers)) {
    const chars = Math.min((lines[index] as string).length, limits.maxLineChars) + 8;
    if (headerChars + chars > HEADER_SHARE * limits.lineBudgetChars) continue;
    headerChars += chars;
    first.push(index);
  }
  const longest = hunks.reduce((max, hunk) => Math.max(max, hunk.length), 0);
  for (let rank = 0; rank < longest; rank++) {
    for (const hunk of hunks) if (rank < hunk.length) first.push(hunk[rank] as number);
  }
  return selectLines(
    lines,
    {
      first,
      worth: (index) =>
        (lines[index] as string).startsWith(' ') && isInformative(lines[index] as string, false)
          ? 1
          : 0,
    },
    limits,
    firstLine,
  );
}
