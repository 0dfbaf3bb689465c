/**
 * A long line of a preview, cut in the middle, never through a path.
 *
 * A path cut in half is worth nothing to the model: it can neither read the file nor quote it.
 * qwen, for one, ends a shortened output with the path of its full copy, and a plain cut in the
 * middle left `saved [... 110 chars ...] ll_command_….output`. So a cut that would fall inside a
 * path (or a URL) moves to its edge, and the path is kept whole, as long as it is no longer than
 * `MAX_PATH_CHARS`. What the cut then leaves out must be worth its marker, or the line is kept
 * whole.
 *
 * A short line is never cut: a compiler's diagnostic a little over the limit lost its code and
 * its name (`src/pkg1/module_001.ts:4:7 - w [... 33 chars ...] d but its value is never read.`),
 * which is all it says, to save a dozen characters. So a cut must leave out at least as many
 * characters as it shows (with the default 80, lines up to about 120 characters stay whole); the
 * characters a whole line adds past the limit are paid for like a kept path's.
 */
import { boundaryAtOrAfter, boundaryAtOrBefore } from '../utils/codePoints.js';

/** A path longer than this is cut like any other text (it would cost more than it saves). */
export const MAX_PATH_CHARS = 240;

/**
 * Code units that end a path token: white space (what `\s` matches: ASCII blanks and line ends,
 * U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF), quotes,
 * brackets, `,` and `;`. A table and a few comparisons, not a regular expression: a long line's
 * cut tests up to 480 code units one by one (issue 30, a profile of cold passes).
 */
const ASCII_DELIMITERS = new Uint8Array(128);
for (const char of ' \t\n\v\f\r"\'`()[]{}<>,;') ASCII_DELIMITERS[char.charCodeAt(0)] = 1;

/** Whether the code unit `code` ends a path token (see `ASCII_DELIMITERS`). */
export function isPathDelimiter(code: number): boolean {
  if (code < 128) return ASCII_DELIMITERS[code] === 1;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** A cut that leaves out fewer characters than this keeps the line whole (the marker's size). */
const MIN_LEFT_OUT = 24;

/** Whether `line[start, end)` is a path: a `/` or `\\` in it, and a code unit that is none of `/\\.`. */
function isPathToken(line: string, start: number, end: number): boolean {
  let separator = false;
  let other = false;
  for (let index = start; index < end && !(separator && other); index++) {
    const code = line.charCodeAt(index);
    if (code === 47 || code === 92) separator = true;
    else if (code !== 46) other = true;
  }
  return separator && other;
}

/**
 * The token (a run of characters without delimiters) that `index` falls strictly inside, as
 * `[start, end)`, when it is a path of at most `MAX_PATH_CHARS`; undefined otherwise. Looks at most
 * `MAX_PATH_CHARS` characters each way, so a giant line costs no more than a short one.
 */
function pathAround(line: string, index: number): [number, number] | undefined {
  if (index <= 0 || index >= line.length) return undefined;
  if (isPathDelimiter(line.charCodeAt(index - 1)) || isPathDelimiter(line.charCodeAt(index))) {
    return undefined;
  }
  let start = index;
  while (start > 0 && !isPathDelimiter(line.charCodeAt(start - 1))) {
    if (index - start >= MAX_PATH_CHARS) return undefined;
    start--;
  }
  let end = index;
  while (end < line.length && !isPathDelimiter(line.charCodeAt(end))) {
    if (end - start >= MAX_PATH_CHARS) return undefined;
    end++;
  }
  return isPathToken(line, start, end) ? [start, end] : undefined;
}

export interface CutLine {
  /** The line as the preview shows it. */
  text: string;
  /** Characters shown beyond a plain cut, to keep paths whole (what the budget must pay for). */
  pathChars: number;
}

/** Where a long line is cut: its head `[0, headEnd)` and tail `[tailStart, end)`, or kept whole. */
interface Cut {
  whole: boolean;
  headEnd: number;
  tailStart: number;
  pathChars: number;
}

/** The cut of `line` (see `cutPreviewLine`), nothing written. */
function cutOf(line: string, maxChars: number): Cut {
  if (line.length <= maxChars) return { whole: true, headEnd: 0, tailStart: 0, pathChars: 0 };
  const keep = Math.floor((maxChars - 20) / 2);
  const plainHeadEnd = boundaryAtOrBefore(line, Math.max(0, keep));
  const plainTailStart = boundaryAtOrAfter(line, line.length - Math.max(0, keep));
  const headEnd = pathAround(line, plainHeadEnd)?.[1] ?? plainHeadEnd;
  const tailStart = pathAround(line, plainTailStart)?.[0] ?? plainTailStart;
  const pathChars = headEnd - plainHeadEnd + (plainTailStart - tailStart);
  // A short line: a plain cut would leave out less than it shows.
  const plainLeftOut = plainTailStart - plainHeadEnd;
  const short = plainLeftOut < line.length - plainLeftOut;
  if (short || (pathChars > 0 && tailStart - headEnd < MIN_LEFT_OUT)) {
    return { whole: true, headEnd: 0, tailStart: 0, pathChars: line.length - maxChars };
  }
  return { whole: false, headEnd, tailStart, pathChars };
}

/**
 * `line` when it has at most `maxChars` characters; else its head and tail around a marker that
 * says how many characters were left out, each end about `(maxChars - 20) / 2` characters, or more
 * to keep a path whole.
 */
export function cutPreviewLine(line: string, maxChars: number): CutLine {
  const cut = cutOf(line, maxChars);
  if (cut.whole) return { text: line, pathChars: cut.pathChars };
  const { headEnd, tailStart, pathChars } = cut;
  return {
    text: `${line.slice(0, headEnd)} [... ${tailStart - headEnd} chars ...] ${line.slice(tailStart)}`,
    pathChars,
  };
}

/**
 * `cutPreviewLine(line, maxChars).text.length`, without writing the cut line: a selection weighs
 * every line and shows few.
 */
export function cutPreviewLength(line: string, maxChars: number): number {
  if (line.length <= maxChars) return line.length;
  const cut = cutOf(line, maxChars);
  if (cut.whole) return line.length;
  const leftOut = cut.tailStart - cut.headEnd;
  // ` [... ` and ` chars ...] ` around the count.
  return cut.headEnd + 6 + String(leftOut).length + 12 + (line.length - cut.tailStart);
}

/** `cutPreviewLine(line, maxChars).pathChars`, without writing the cut line. */
export function cutPathChars(line: string, maxChars: number): number {
  return line.length <= maxChars ? 0 : cutOf(line, maxChars).pathChars;
}
