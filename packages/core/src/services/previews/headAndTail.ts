/**
 * The fallback preview, for an output of no known kind, a giant one, and every output of the
 * `head-and-tail` family: the first lines (what it was) and the last lines (how it ended), with
 * one marker saying how many lines were left out. Within a character budget, more lines are added
 * from both ends in turn (`budgetedLines`); without one, head and tail only (`headTailLines`).
 * Only the lines kept are read, from both ends: a giant output (over `GIANT_TEXT_UNITS`) is
 * counted, never split whole. Long lines are cut in the middle, never through a path.
 */
import { formatCount } from '../../utils/formatCount.js';
import { countLines, firstLines, lastLines } from '../../utils/textLines.js';
import { cutPathChars, cutPreviewLine } from '../previewLineCut.js';
import { PREVIEW_LIMITS, type PreviewLimits } from '../previewLimits.js';

/** A long line cut in the middle, never through a path (previewLineCut.ts). */
function cutLine(line: string, maxChars: number): string {
  return cutPreviewLine(line, maxChars).text;
}

/**
 * A text longer than this (4 M code units) is previewed from its first and last lines found by
 * position, never split whole: splitting 200 MB into lines takes about a second.
 */
export const GIANT_TEXT_UNITS = 1 << 22;

/** `headTailLines` of a giant text: the same preview, with the text counted, not split. */
function giantHeadTailLines(
  text: string,
  headLines: number,
  tailLines: number,
  limits: PreviewLimits,
): string {
  const total = countLines(text);
  const cut = (line: string) => cutLine(line, limits.maxLineChars);
  if (total <= headLines + tailLines + 1) return firstLines(text, total).map(cut).join('\n');
  return [
    ...firstLines(text, headLines).map(cut),
    `[... ${formatCount(total - headLines - tailLines)} of ${formatCount(total)} lines omitted ...]`,
    ...lastLines(text, tailLines).map(cut),
  ].join('\n');
}

/** Head and tail lines of `text`, with a marker saying how many lines were left out. */
export function headTailLines(
  text: string,
  headLines: number,
  tailLines: number,
  limits: PreviewLimits = PREVIEW_LIMITS,
): string {
  if (text.length > GIANT_TEXT_UNITS) return giantHeadTailLines(text, headLines, tailLines, limits);
  const lines = text.split('\n');
  const maxChars = limits.maxLineChars;
  if (lines.length <= headLines + tailLines + 1) {
    return lines.map((line) => cutLine(line, maxChars)).join('\n');
  }
  const omitted = lines.length - headLines - tailLines;
  return [
    ...lines.slice(0, headLines).map((line) => cutLine(line, maxChars)),
    `[... ${formatCount(omitted)} of ${formatCount(lines.length)} lines omitted ...]`,
    ...lines.slice(lines.length - tailLines).map((line) => cutLine(line, maxChars)),
  ].join('\n');
}

/**
 * The lines a preview keeps, as characters rather than a count of lines: a line is paid for by
 * its length (cut at `maxLineChars`), so a budget holds many short lines (most code) and few
 * long ones. The first `headLines` and last `tailLines` are always kept; then lines are added
 * from the head and the tail in turn while the total stays within `lineBudgetChars`, until a
 * side's next line no longer fits or nothing is left out. What was left out is one marker with
 * its line count, as in `headTailLines` (a single line is shown instead). Only the lines it keeps are read, from both ends, so a
 * giant output is never split whole.
 *
 * Measured on the shared traces (docs/benchmarks.md, section 3): the lines an agent quotes later
 * are mostly code lines it read, anywhere in the output; ranking lines by look (errors, paths,
 * test names) or dropping repeated ones changed the share kept by less than a point, so the
 * budget decides how much is kept and the ends decide which.
 */
export function budgetedLines(
  text: string,
  headLines: number,
  tailLines: number,
  limits: PreviewLimits = PREVIEW_LIMITS,
): string {
  let total = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) total++;
  const head: string[] = [];
  const tail: string[] = [];
  let headStart = 0; // offset of the next head line
  let tailEnd = text.length; // end (exclusive) of the next tail line
  let used = 0;
  const left = () => total - head.length - tail.length;
  // A line costs what it shows: cut at `maxLineChars`, plus what a path kept whole adds.
  const cost = (line: string) =>
    Math.min(line.length, limits.maxLineChars) + 1 + cutPathChars(line, limits.maxLineChars);
  const peekHead = () => {
    const end = text.indexOf('\n', headStart);
    return text.slice(headStart, end === -1 ? text.length : end);
  };
  const peekTail = () => text.slice(text.lastIndexOf('\n', tailEnd - 1) + 1, tailEnd);
  const takeHead = () => {
    const line = peekHead();
    head.push(line);
    headStart += line.length + 1;
    used += cost(line);
  };
  const takeTail = () => {
    const line = peekTail();
    tail.push(line);
    tailEnd -= line.length + 1;
    used += cost(line);
  };
  while (head.length < headLines && left() > 0) takeHead();
  while (tail.length < tailLines && left() > 0) takeTail();
  let headFits = true;
  let tailFits = true;
  while (left() > 0 && (headFits || tailFits)) {
    const fromHead = headFits && (!tailFits || head.length <= tail.length);
    const line = fromHead ? peekHead() : peekTail();
    if (used + cost(line) > limits.lineBudgetChars) {
      if (fromHead) headFits = false;
      else tailFits = false;
      continue;
    }
    if (fromHead) takeHead();
    else takeTail();
  }
  // One line left out costs as much as the marker that would say so.
  if (left() === 1) takeHead();
  const omitted = left();
  return [
    ...head.map((line) => cutLine(line, limits.maxLineChars)),
    ...(omitted > 0
      ? [`[... ${formatCount(omitted)} of ${formatCount(total)} lines omitted ...]`]
      : []),
    ...tail.reverse().map((line) => cutLine(line, limits.maxLineChars)),
  ].join('\n');
}
