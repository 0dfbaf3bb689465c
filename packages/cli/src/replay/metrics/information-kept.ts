/**
 * Information kept by a strategy's snippets: for each output at the moment it was masked, its
 * lines that the recorded agent quotes in a later turn (quoted-lines.ts), and how many of those
 * are still visible in the snippet that replaced it. A line the agent used after the masking and
 * cannot see any more is one it would have to read back (or would miss).
 *
 * A moment whose `masked` part is the recorded one (early-masking.ts: an output the strategy left
 * whole) counts apart: all its lines stay visible, at the output's full size. The share over
 * masked outputs only rewards a strategy that masks just the outputs it can show nearly whole;
 * the share over all outputs, with the bytes of what is sent for them, does not.
 *
 * A line is visible when the snippet contains it verbatim, or once JSON string escapes are undone
 * (a preview cut from an output's pretty JSON shows `\"` for `"`; the model reads through that).
 */
import { findRequestPoints, flattenSession } from '../request-points.js';
import type { MaskingMoment } from '../masking-moments.js';
import type { ReplaySession } from '../types.js';
import { SessionQuotes, candidateLines, responseText } from './quoted-lines.js';

export interface InformationKept {
  outputsMasked: number;
  /** Masked outputs with at least one line quoted after the masking. */
  outputsQuotedLater: number;
  /** Lines of masked outputs quoted after the masking (each line counted once per output). */
  linesQuotedLater: number;
  /** Of those, lines the snippet still shows. */
  linesVisible: number;
  /** UTF-8 bytes of the snippets (the masked outputs' text as sent). */
  snippetBytes: number;
  /** Outputs left whole at their moment, their lines quoted later, and their UTF-8 bytes. */
  outputsWhole: number;
  linesQuotedLaterWhole: number;
  wholeBytes: number;
}

export const NOTHING_KEPT: Readonly<InformationKept> = {
  outputsMasked: 0,
  outputsQuotedLater: 0,
  linesQuotedLater: 0,
  linesVisible: 0,
  snippetBytes: 0,
  outputsWhole: 0,
  linesQuotedLaterWhole: 0,
  wholeBytes: 0,
};

export function addInformationKept(a: InformationKept, b: InformationKept): InformationKept {
  const sum = { ...a };
  for (const key of Object.keys(sum) as (keyof InformationKept)[]) sum[key] += b[key];
  return sum;
}

/** Share of the lines of masked outputs quoted later that stayed visible; undefined when none. */
export function keptShare(kept: InformationKept): number | undefined {
  return kept.linesQuotedLater === 0 ? undefined : kept.linesVisible / kept.linesQuotedLater;
}

/** The same over every output of the moments, those left whole included. */
export function keptShareOfAll(kept: InformationKept): number | undefined {
  const quoted = kept.linesQuotedLater + kept.linesQuotedLaterWhole;
  return quoted === 0 ? undefined : (kept.linesVisible + kept.linesQuotedLaterWhole) / quoted;
}

function unescapeJsonText(text: string): string {
  return text.replace(/\\(["\\/nrt])/g, (_, escaped: string) =>
    escaped === 'n' ? '\n' : escaped === 'r' ? '\r' : escaped === 't' ? '\t' : escaped,
  );
}

/**
 * Information kept on one session. Give the same `quotes` for every strategy replayed on the
 * session to index its model turns once.
 */
export function informationKept(
  session: ReplaySession,
  moments: readonly MaskingMoment[],
  quotes?: SessionQuotes,
): InformationKept {
  const flat = flattenSession(session);
  const points = findRequestPoints(flat);
  const index = quotes ?? new SessionQuotes(flat);
  /** Lines of the moment's output that a model turn of its task quotes after the masking. */
  const quotedLater = (moment: MaskingMoment): string[] => {
    const sentAt = (points[moment.request] as { index: number }).index;
    const task = (flat[moment.contentIndex] as { task: number }).task;
    return candidateLines(responseText(moment.original)).filter(
      (line) => index.lastQuote(line, task) > sentAt,
    );
  };
  const kept = { ...NOTHING_KEPT };
  for (const moment of moments) {
    const quoted = quotedLater(moment);
    if (moment.masked === moment.original) {
      kept.outputsWhole++;
      kept.wholeBytes += Buffer.byteLength(responseText(moment.original), 'utf8');
      kept.linesQuotedLaterWhole += quoted.length;
      continue;
    }
    const snippet = responseText(moment.masked);
    const readable = unescapeJsonText(snippet);
    kept.outputsMasked++;
    kept.snippetBytes += Buffer.byteLength(snippet, 'utf8');
    kept.linesQuotedLater += quoted.length;
    if (quoted.length > 0) kept.outputsQuotedLater++;
    for (const line of quoted) {
      if (snippet.includes(line) || readable.includes(line)) kept.linesVisible++;
    }
  }
  return kept;
}
