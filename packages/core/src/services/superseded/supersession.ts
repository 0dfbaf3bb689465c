/**
 * What it means for an output to be superseded, shared by the tracker (supersededOutputs.ts),
 * the planner and the snippet: the three reasons (`rerun`, `read-again`, `edited`) and those the
 * pass uses by default, what superseded an output (the reason and the later call), the view of a
 * history's superseded outputs by position, and the one line a snippet gives such an output.
 * The line names the later call by an id made safe to quote (letters, digits, `_.:-`, at most
 * 64), so nothing a model chose can break the snippet around it.
 */

export type SupersededReason = 'rerun' | 'read-again' | 'edited';

export const SUPERSEDED_REASONS: readonly SupersededReason[] = ['rerun', 'read-again', 'edited'];

/**
 * The reasons the pass uses unless told otherwise. Not `edited`: an edit changes some lines of a
 * file, and agents go on quoting the others from the read before it (on the shared traces it hid
 * ~570 more lines quoted later at idle gaps, for 1.4–2.1 points of billed input:
 * docs/benchmarks.md, 3.9); `rerun` and `read-again` hide lines that a newer output shows.
 */
export const DEFAULT_SUPERSEDED_REASONS: readonly SupersededReason[] = ['rerun', 'read-again'];

/** What superseded an output: the reason, and the later call (its entry, its output's, its id). */
export interface Supersession {
  reason: SupersededReason;
  callContentIndex: number;
  outputContentIndex: number;
  callId?: string;
}

/** The superseded outputs of a history, by position. */
export interface SupersededView {
  /** Indices of the entries that hold superseded outputs, ascending. */
  readonly entries: readonly number[];
  /** The superseded outputs of one entry, by part index. */
  partsOf(contentIndex: number): ReadonlyMap<number, Supersession> | undefined;
}

export interface SupersededOptions {
  /** The reasons that count. @default all three */
  reasons?: readonly SupersededReason[];
}

/** The line a snippet gives a superseded output: why it was hidden, and where the rest is. */
export function supersededNote(supersession: Pick<Supersession, 'reason' | 'callId'>): string {
  const id = supersession.callId?.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64);
  const call = id ? ` (call ${id})` : '';
  switch (supersession.reason) {
    case 'read-again':
      return `Superseded: this file was read again later${call}.`;
    case 'edited':
      return `Superseded: this file was edited later${call}.`;
    case 'rerun':
      return `Superseded: the same command ran again later${call}.`;
  }
}
