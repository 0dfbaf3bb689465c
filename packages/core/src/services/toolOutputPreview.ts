/**
 * The preview that stands in for a masked tool output: short, but with what the model most
 * often needs later — the status of a command (exit code, signal, error sections kept whole),
 * the first lines (what it was) and the last lines (how it ended), and how much was left out.
 */
import { formatCount } from '../utils/formatCount.js';
import { headOf, tailOf } from '../utils/codePoints.js';
import { countLines, firstLines, lastLines } from '../utils/textLines.js';

export const SHELL_TOOL_NAME = 'run_shell_command';

export interface PreviewLimits {
  headLines: number;
  tailLines: number;
  shellHeadLines: number;
  shellTailLines: number;
  /** Longer lines are cut in the middle. */
  maxLineChars: number;
  /** Whole sections kept verbatim (errors) are capped at this many characters. */
  maxSectionChars: number;
  /**
   * Characters of lines a preview may show: beyond the head and tail lines, more lines are
   * added from both ends, alternately, while they fit (see `budgetedLines`). 0: head and tail only.
   */
  lineBudgetChars: number;
}

/**
 * Preview sizes: small, because every masked output pays for its preview on every later request
 * (docs/benchmarks.md, section 3). Shell logs end with what matters (errors, summaries), so
 * their tail is longer than their head.
 */
export const PREVIEW_LIMITS: Readonly<PreviewLimits> = {
  headLines: 3,
  tailLines: 2,
  shellHeadLines: 2,
  shellTailLines: 4,
  /** Longer lines are cut in the middle. */
  maxLineChars: 80,
  /** Whole sections kept verbatim (errors) are capped at this many characters. */
  maxSectionChars: 2_000,
  lineBudgetChars: 700,
} as const;

/** How far from the end a single-line section, or the Error section, may start. */
const LINE_SEARCH_WINDOW = 1_024;
const ERROR_SEARCH_WINDOW = 64 * 1_024;

/** Sections the shell tool appends after `Output:`, in the order it writes them. */
const SHELL_TRAILING_SECTIONS = [
  'Error',
  'Exit Code',
  'Signal',
  'Background PIDs',
  'Process Group PGID',
] as const;

export interface ShellSections {
  output: string;
  /** Trailing sections in order, as `Name: value` lines (the Error value may span lines). */
  trailing: Array<{ name: string; value: string }>;
}

/**
 * Splits a shell tool result into its `Output:` body and trailing sections. The trailing
 * sections are found from the end, each at most once and in the shell tool's order, so a line
 * such as `Exit Code: 3` printed by the command itself inside Output is not mistaken for one.
 */
/** Last index of `marker` that starts within the final `window` characters of `text`, or -1. */
function lastIndexWithin(text: string, marker: string, window: number): number {
  let found = -1;
  for (
    let at = text.indexOf(marker, Math.max(0, text.length - window));
    at !== -1;
    at = text.indexOf(marker, at + 1)
  ) {
    found = at;
  }
  return found;
}

export function splitShellSections(text: string): ShellSections | undefined {
  if (!text.startsWith('Output:')) return undefined;
  let rest = text;
  const trailing: Array<{ name: string; value: string }> = [];
  for (let index = SHELL_TRAILING_SECTIONS.length - 1; index >= 0; index--) {
    const name = SHELL_TRAILING_SECTIONS[index] as string;
    const marker = `\n${name}: `;
    // Sections sit at the end: search only the tail, not a 20 MB log.
    const window = name === 'Error' ? ERROR_SEARCH_WINDOW : LINE_SEARCH_WINDOW;
    const at = lastIndexWithin(rest, marker, window);
    if (at < 0) continue;
    const value = rest.slice(at + marker.length);
    // Single-line sections must really be a single line; otherwise this was part of Output.
    if (name !== 'Error' && value.includes('\n')) continue;
    trailing.unshift({ name, value });
    rest = rest.slice(0, at);
  }
  const output = rest.slice('Output:'.length).replace(/^ /, '');
  return { output, trailing };
}

function cutLine(line: string, maxChars: number): string {
  if (line.length <= maxChars) return line;
  const keep = Math.floor((maxChars - 20) / 2);
  const head = headOf(line, keep);
  const tail = tailOf(line, keep);
  return `${head} [... ${line.length - head.length - tail.length} chars ...] ${tail}`;
}

function capSection(text: string, limits: PreviewLimits): string {
  const max = limits.maxSectionChars;
  if (text.length <= max) return text;
  const head = headOf(text, Math.floor(max / 2));
  const tail = tailOf(text, Math.floor(max / 2));
  return `${head}\n[... ${text.length - head.length - tail.length} chars omitted ...]\n${tail}`;
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
  const cost = (line: string) => Math.min(line.length, limits.maxLineChars) + 1;
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

/** The output's lines in a preview: head and tail, filled up to the character budget if any. */
function previewLines(
  text: string,
  headLines: number,
  tailLines: number,
  limits: PreviewLimits,
): string {
  return limits.lineBudgetChars > 0
    ? budgetedLines(text, headLines, tailLines, limits)
    : headTailLines(text, headLines, tailLines, limits);
}

/** Root-level status fields of a response (`error`, a non-zero exit code) kept whole. */
function rootStatusLines(response: unknown, limits: PreviewLimits): string[] {
  if (response === null || typeof response !== 'object' || Array.isArray(response)) return [];
  const record = response as Record<string, unknown>;
  const lines: string[] = [];
  for (const key of ['exitCode', 'exit_code', 'returncode']) {
    const value = record[key];
    if (typeof value === 'number' && value !== 0) lines.push(`${key}: ${value}`);
  }
  for (const key of ['error', 'stderr']) {
    const value = record[key];
    if (value === undefined || value === null || value === '') continue;
    let text: string;
    try {
      text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
    } catch {
      text = String(value);
    }
    lines.push(`${key}: ${capSection(text, limits)}`);
  }
  return lines;
}

function shellPreview(sections: ShellSections, limits: PreviewLimits): string {
  const parts: string[] = [];
  for (const section of sections.trailing) {
    if (section.name === 'Process Group PGID' || section.name === 'Background PIDs') continue;
    parts.push(`${section.name}: ${capSection(section.value, limits)}`);
  }
  parts.push(
    `Output:\n${previewLines(sections.output, limits.shellHeadLines, limits.shellTailLines, limits)}`,
  );
  // Bookkeeping sections last: rarely needed, still kept whole.
  for (const section of sections.trailing) {
    if (section.name === 'Process Group PGID' || section.name === 'Background PIDs') {
      parts.push(`${section.name}: ${section.value}`);
    }
  }
  return parts.join('\n');
}

/**
 * Builds the preview of one output.
 * @param toolName the function name of the response
 * @param response the original `functionResponse.response`
 * @param fullText the full output as saved on disk (the `output` string, or the pretty JSON)
 */
export function buildPreview(
  toolName: string,
  response: unknown,
  fullText: string,
  limits: PreviewLimits = PREVIEW_LIMITS,
): string {
  const status = rootStatusLines(response, limits);
  const output =
    response !== null && typeof response === 'object' && !Array.isArray(response)
      ? (response as Record<string, unknown>)['output']
      : undefined;
  const sections =
    toolName === SHELL_TOOL_NAME && typeof output === 'string'
      ? splitShellSections(output)
      : undefined;
  const body = sections
    ? shellPreview(sections, limits)
    : previewLines(fullText, limits.headLines, limits.tailLines, limits);
  return [...status, body].join('\n');
}
