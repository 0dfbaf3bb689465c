/**
 * The preview that stands in for a masked tool output: short, but with what the model most
 * often needs later — the status of a command (exit code, signal, error sections kept whole),
 * how much was left out, and the output's lines that matter for its kind (previews/): an outline
 * with line numbers of a source file read, a test run's status and failures, a log's errors and
 * warnings, a search's locations, a diff's headers and changes. An output of no such kind (a
 * listing, an edit's result), a giant one, and every output of the `head-and-tail` family get the
 * first lines (what it was) and the last lines (how it ended).
 *
 * The limits are in previewLimits.ts, the fallback in previews/headAndTail.ts, the previews by
 * kind in previews/; this file picks one and keeps a command's status around it.
 */
import { headOf, tailOf } from '../utils/codePoints.js';
import { countLines } from '../utils/textLines.js';
import { splitClientShellHeader } from './clientShellHeader.js';
import { splitShellSections, type ShellSections } from './shellOutput.js';
import { PREVIEW_LIMITS, type PreviewLimits } from './previewLimits.js';
import { budgetedLines, headTailLines } from './previews/headAndTail.js';
import {
  classifyOutput,
  previewOfKind,
  type OutputKind,
  type PreviewFamily,
  type ToolCall,
} from './previews/index.js';

export const SHELL_TOOL_NAME = 'run_shell_command';

function capSection(text: string, limits: PreviewLimits): string {
  const max = limits.maxSectionChars;
  if (text.length <= max) return text;
  const head = headOf(text, Math.floor(max / 2));
  const tail = tailOf(text, Math.floor(max / 2));
  return `${head}\n[... ${text.length - head.length - tail.length} chars omitted ...]\n${tail}`;
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
  headerSaved: boolean,
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
    // Saved without qwen's Command and Directory lines (clientShellHeader.ts), the file starts
    // at Output.
    firstLine: (headerSaved ? linesBeforeOutput(sections) : 0) + 1,
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
  // The client's header before a command's output, when the saved text is without it.
  const header =
    typeof output === 'string' && fullText !== output
      ? splitClientShellHeader(toolName, output)
      : undefined;
  const headerSaved = header?.commandOutput !== fullText;
  const sections =
    toolName === SHELL_TOOL_NAME && typeof output === 'string'
      ? splitShellSections(output)
      : undefined;
  if (!sections && !headerSaved && header) {
    // Codex's header, kept whole; the output previewed as what the command printed.
    const lines = previewLines(
      { text: fullText, kind, call, firstLine: 1 },
      limits.shellHeadLines,
      limits.shellTailLines,
      limits,
    );
    return [...status, header.header, lines].join('\n');
  }
  const body = sections
    ? shellPreview(sections, limits, kind, call, headerSaved)
    : previewLines(
        { text: fullText, kind, call, firstLine: 1 },
        limits.headLines,
        limits.tailLines,
        limits,
      );
  return [...status, body].join('\n');
}
