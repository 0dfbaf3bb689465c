/**
 * The preview that stands in for a masked tool output: short, but with what the model most
 * often needs later — the status of a command (exit code, signal, error sections kept whole),
 * how much was left out, and the output's lines that matter for its kind (previews/): an outline
 * with line numbers of a source file read, a test run's status and failures, a log's errors and
 * warnings, a search's locations, a diff's headers and changes. An output of no such kind (a
 * listing, an edit's result), a giant one, and every output of the `head-and-tail` family get the
 * first lines (what it was) and the last lines (how it ended).
 */
import { formatCount } from '../utils/formatCount.js';
import { headOf, tailOf } from '../utils/codePoints.js';
import { cutPreviewLine } from './previewLineCut.js';
import { countLines, firstLines, lastLines } from '../utils/textLines.js';
import { splitShellSections, type ShellSections } from './shellOutput.js';
import {
  classifyOutput,
  previewOfKind,
  type OutputKind,
  type PreviewFamily,
  type ToolCall,
} from './previews/index.js';

export { splitShellSections, type ShellSections } from './shellOutput.js';

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
  /**
   * Characters of lines the preview of an output's kind may show (previews/), their numbers
   * included: fewer than `lineBudgetChars` because every kept line carries its number and a digit
   * is a token of its own, so that both cost about the same tokens. Used only when
   * `lineBudgetChars` is above 0.
   */
  kindBudgetChars: number;
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
  kindBudgetChars: 600,
} as const;

/** A long line cut in the middle, never through a path (previewLineCut.ts). */
function cutLine(line: string, maxChars: number): string {
  return cutPreviewLine(line, maxChars).text;
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
  // A line costs what it shows: cut at `maxLineChars`, plus what a path kept whole adds.
  const cost = (line: string) =>
    Math.min(line.length, limits.maxLineChars) +
    1 +
    cutPreviewLine(line, limits.maxLineChars).pathChars;
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

/** What a preview knows besides the output: the call that produced it, and which previews to build. */
export interface PreviewContext {
  /** The call, as the history holds it (previews/toolCall.ts). */
  call?: ToolCall;
  /** @default 'by-kind' */
  family?: PreviewFamily;
}

/** The output's text to preview, its kind, and the number of its first line in the saved output. */
interface PreviewBody {
  text: string;
  kind: OutputKind;
  call: ToolCall | undefined;
  firstLine: number;
}

/**
 * The output's lines in a preview: the preview of its kind when it has one (previews/), else head
 * and tail, filled up to the character budget if any. No budget: head and tail only, whatever the
 * kind.
 */
function previewLines(
  body: PreviewBody,
  headLines: number,
  tailLines: number,
  limits: PreviewLimits,
): string {
  if (limits.lineBudgetChars <= 0) return headTailLines(body.text, headLines, tailLines, limits);
  const kindLimits = { maxLineChars: limits.maxLineChars, lineBudgetChars: limits.kindBudgetChars };
  return (
    previewOfKind(body.kind, body.text, body.call, kindLimits, body.firstLine) ??
    budgetedLines(body.text, headLines, tailLines, limits)
  );
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

/** Sections that are bookkeeping: rarely needed, kept whole, shown last. */
const BOOKKEEPING = new Set(['Process Group PGID', 'Background PIDs', 'Directory']);

/** qwen-code writes `(none)` for a section that does not apply: nothing to keep. */
const isEmptySection = (value: string) => value === '(none)';

/** Lines of the saved text before a shell result's `Output:` section (a notice, qwen's sections). */
function linesBeforeOutput(sections: ShellSections): number {
  let lines = 0;
  if (sections.preamble) lines += countLines(sections.preamble);
  if (sections.wrapper) lines++;
  for (const section of sections.leading) lines += countLines(section.value);
  return lines;
}

function shellPreview(
  sections: ShellSections,
  limits: PreviewLimits,
  kind: OutputKind,
  call: ToolCall | undefined,
): string {
  const parts: string[] = [];
  if (sections.preamble) parts.push(capSection(sections.preamble, limits));
  if (sections.wrapper) parts.push(`<${sections.wrapper}>`);
  const body: string[] = [];
  const all = [...sections.leading, ...sections.trailing];
  for (const section of all) {
    if (BOOKKEEPING.has(section.name) || isEmptySection(section.value)) continue;
    body.push(`${section.name}: ${capSection(section.value, limits)}`);
  }
  const output: PreviewBody = {
    text: sections.output,
    kind,
    call,
    firstLine: linesBeforeOutput(sections) + 1,
  };
  body.push(
    `Output:\n${previewLines(output, limits.shellHeadLines, limits.shellTailLines, limits)}`,
  );
  for (const section of all) {
    if (BOOKKEEPING.has(section.name) && !isEmptySection(section.value)) {
      body.push(`${section.name}: ${section.value}`);
    }
  }
  parts.push(...body);
  // The host's wrapper closes the preview too: what the model reads of it stays marked untrusted.
  if (sections.wrapper) parts.push(`</${sections.wrapper}>`);
  return parts.join('\n');
}

/**
 * Builds the preview of one output.
 * @param toolName the function name of the response
 * @param response the original `functionResponse.response`
 * @param fullText the full output as saved on disk (the `output` string, or the pretty JSON)
 * @param context the call that produced it, and which previews to build
 */
export function buildPreview(
  toolName: string,
  response: unknown,
  fullText: string,
  limits: PreviewLimits = PREVIEW_LIMITS,
  context: PreviewContext = {},
): string {
  const call = context.call;
  const kind: OutputKind =
    (context.family ?? 'by-kind') === 'by-kind'
      ? classifyOutput(toolName, call?.args, fullText)
      : 'other';
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
    ? shellPreview(sections, limits, kind, call)
    : previewLines(
        { text: fullText, kind, call, firstLine: 1 },
        limits.headLines,
        limits.tailLines,
        limits,
      );
  return [...status, body].join('\n');
}
