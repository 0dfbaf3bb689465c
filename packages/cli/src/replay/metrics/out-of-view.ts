/**
 * Lines put out of view: the count of what the agent misses (issue 32), beside information kept
 * (information-kept.ts), on the same masking moments.
 *
 * A line of a masked output counts when it is
 * - a candidate line (line-number prefix stripped, trimmed, at least 12 characters:
 *   quoted-lines.ts);
 * - distinctive: found in at most `MAX_OUTPUTS_WITH_LINE` tool outputs of its task;
 * - the output's own, not the agent's: absent from the model turns of its task before the output
 *   was sent (a line the agent wrote itself, then read back, is not evidence it needed the output);
 * - quoted verbatim by a model turn of its task after the masking (text or call arguments).
 *
 * Such a line is visible when the snippet shows it (verbatim, or with JSON escapes undone). It is
 * out of view when it is not visible and no other part of the request at the moment of masking
 * shows it: no model or user content sent by then quotes it, and no other tool output sent by then
 * holds it as that output was sent at that moment (whole, or its snippet if the strategy had
 * masked it). So a newer read of the same file keeps its lines in view.
 *
 * `acrossTasks` counts a quote by a later task of a chained session too (and counts outputs and
 * the agent's text over the whole session). A task was recorded as its own session, so its agent
 * never saw an earlier task's outputs: such a quote is a coincidence, not a use. The bench prints
 * both, with examples of what only the wider count finds.
 */
import { findRequestPoints, flattenSession, type FlatContent } from '../request-points.js';
import type { MaskingMoment } from '../masking-moments.js';
import type { Part, ReplaySession } from '../types.js';
import {
  QuoteIndex,
  SessionQuotes,
  candidateLines,
  lineKey,
  quotableText,
  responseText,
} from './quoted-lines.js';

/** A line found in more outputs than this is not distinctive (a banner, a separator). */
export const MAX_OUTPUTS_WITH_LINE = 2;

export interface OutOfView {
  /** Outputs masked (not left whole) at their moment. */
  outputsMasked: number;
  /** Their distinctive lines quoted after the masking (each once per output). */
  linesQuoted: number;
  /** Of those, shown by the snippet. */
  linesVisible: number;
  /** Of those, shown by nothing in the request at the moment of masking. */
  linesOutOfView: number;
}

export const NOTHING_OUT_OF_VIEW: Readonly<OutOfView> = {
  outputsMasked: 0,
  linesQuoted: 0,
  linesVisible: 0,
  linesOutOfView: 0,
};

export interface OutOfViewOptions {
  /** Count quotes by later tasks of a chained session too (see the module comment). */
  acrossTasks?: boolean;
  /** Collects the lines found out of view (for examples). */
  onOutOfView?: (line: string, moment: MaskingMoment) => void;
}

export function addOutOfView(a: OutOfView, b: OutOfView): OutOfView {
  return {
    outputsMasked: a.outputsMasked + b.outputsMasked,
    linesQuoted: a.linesQuoted + b.linesQuoted,
    linesVisible: a.linesVisible + b.linesVisible,
    linesOutOfView: a.linesOutOfView + b.linesOutOfView,
  };
}

const unescapeJsonText = (text: string) =>
  text.replace(/\\(["\\/nrt])/g, (_, escaped: string) =>
    escaped === 'n' ? '\n' : escaped === 'r' ? '\r' : escaped === 't' ? '\t' : escaped,
  );

/** The key lines of a text (each line's key, as candidate lines are compared). */
const keyLines = (text: string) => new Set(text.split('\n').map(lineKey));

/** What one session's contents hold, computed once for every strategy replayed on it. */
class SessionLines {
  /** Per flat index: the key lines of each tool output part, by part index. */
  readonly outputLines = new Map<number, Map<number, Set<string>>>();
  /** Per flat index: the quotable text of a content that is not a tool output. */
  readonly quotable = new Map<number, string>();
  /** Per task: line → how many outputs hold it; key -1: over the whole session. */
  private readonly outputsWith = new Map<number, Map<string, number>>();
  private wholeSessionQuotes: QuoteIndex | undefined;

  constructor(readonly flat: readonly FlatContent[]) {
    flat.forEach(({ content, task }, index) => {
      const parts = content.parts ?? [];
      const outputs = new Map<number, Set<string>>();
      parts.forEach((part, partIndex) => {
        if (!part.functionResponse) return;
        const lines = keyLines(responseText(part));
        outputs.set(partIndex, lines);
        for (const scope of [task, -1]) {
          const counts = this.outputsWith.get(scope) ?? new Map<string, number>();
          for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
          this.outputsWith.set(scope, counts);
        }
      });
      if (outputs.size > 0) this.outputLines.set(index, outputs);
      const text = quotableText(content);
      if (text.length > 0) this.quotable.set(index, text);
    });
  }

  /** Outputs of `task` (-1: of the session) that hold `line`. */
  outputsHolding(line: string, task: number): number {
    return this.outputsWith.get(task)?.get(line) ?? 0;
  }

  /** The last model content of the whole session that quotes `line`, or -1. */
  lastQuoteInSession(line: string): number {
    this.wholeSessionQuotes ??= new QuoteIndex(this.flat.map((entry) => entry.content));
    return this.wholeSessionQuotes.lastQuote(line);
  }

  /** Whether a model turn of `task` (-1: of any task) before flat index `before` quotes `line`. */
  agentWroteBefore(line: string, task: number, before: number): boolean {
    for (let index = before - 1; index >= 0; index--) {
      const entry = this.flat[index] as FlatContent;
      if (task >= 0 && entry.task !== task) break;
      if (entry.content.role === 'model' && this.quotable.get(index)?.includes(line)) return true;
    }
    return false;
  }
}

const sessionLines = new WeakMap<ReplaySession, SessionLines>();

/** The key lines a snippet shows, read once per snippet (every hidden line asks again). */
const snippetKeyLines = new WeakMap<Part, Set<string>>();
function snippetLines(snippet: Part): Set<string> {
  let lines = snippetKeyLines.get(snippet);
  if (!lines) {
    lines = keyLines(unescapeJsonText(responseText(snippet)));
    snippetKeyLines.set(snippet, lines);
  }
  return lines;
}

/** How the strategy had each output at request `request`: its snippet once masked by then. */
function maskedBy(moments: readonly MaskingMoment[], request: number) {
  const snippets = new Map<string, Part>();
  for (const moment of moments) {
    if (moment.request > request || moment.masked === moment.original) continue;
    snippets.set(`${moment.contentIndex}:${moment.partIndex}`, moment.masked);
  }
  return snippets;
}

/** Whether anything but the masked output itself shows `line` in the request up to `sentAt`. */
function inViewElsewhere(
  lines: SessionLines,
  line: string,
  moment: MaskingMoment,
  sentAt: number,
  snippets: ReadonlyMap<string, Part>,
): boolean {
  for (let index = 0; index <= sentAt; index++) {
    if (lines.quotable.get(index)?.includes(line)) return true;
    for (const [partIndex, outputLines] of lines.outputLines.get(index) ?? []) {
      if (index === moment.contentIndex && partIndex === moment.partIndex) continue;
      const snippet = snippets.get(`${index}:${partIndex}`);
      if (!snippet) {
        if (outputLines.has(line)) return true;
      } else if (snippetLines(snippet).has(line)) {
        return true;
      }
    }
  }
  return false;
}

/** Lines out of view on one session (give every strategy the same `quotes`). */
export function outOfView(
  session: ReplaySession,
  moments: readonly MaskingMoment[],
  quotes?: SessionQuotes,
  options: OutOfViewOptions = {},
): OutOfView {
  let lines = sessionLines.get(session);
  if (!lines) {
    lines = new SessionLines(flattenSession(session));
    sessionLines.set(session, lines);
  }
  const { flat } = lines;
  const points = findRequestPoints(flat);
  const index = quotes ?? new SessionQuotes(flat);
  const counts = { ...NOTHING_OUT_OF_VIEW };
  for (const moment of moments) {
    if (moment.masked === moment.original) continue;
    counts.outputsMasked++;
    const sentAt = (points[moment.request] as { index: number }).index;
    const task = options.acrossTasks ? -1 : (flat[moment.contentIndex] as FlatContent).task;
    const lastQuote = (line: string) =>
      task < 0 ? lines.lastQuoteInSession(line) : index.lastQuote(line, task);
    const quoted = candidateLines(responseText(moment.original)).filter(
      (line) =>
        lines.outputsHolding(line, task) <= MAX_OUTPUTS_WITH_LINE &&
        lastQuote(line) > sentAt &&
        !lines.agentWroteBefore(line, task, moment.contentIndex),
    );
    if (quoted.length === 0) continue;
    const snippet = responseText(moment.masked);
    const readable = unescapeJsonText(snippet);
    const snippets = maskedBy(moments, moment.request);
    for (const line of quoted) {
      counts.linesQuoted++;
      if (snippet.includes(line) || readable.includes(line)) counts.linesVisible++;
      else if (!inViewElsewhere(lines, line, moment, sentAt, snippets)) {
        counts.linesOutOfView++;
        options.onOutOfView?.(line, moment);
      }
    }
  }
  return counts;
}
