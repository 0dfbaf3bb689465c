/**
 * Per-entry summaries of a history's countable tool outputs, kept across passes so that a pass
 * costs what is new rather than the whole history.
 *
 * A summary is computed once per entry, known by the entry's `parts` array: kept in the ledger's
 * arrays while the entry is there, and in a WeakMap (nothing outlives the history it describes)
 * once it has left them, until it comes back. The `parts` array, not the `Content`, because gemini-cli
 * hands out a shallow copy of every `Content` on each `getHistory()` while sharing the `parts`
 * arrays; only entries it merges (consecutive same-role turns) get a new array and are summarized
 * again. Between passes the ledger keeps the previous pass's entries and their prefix sums; a new
 * pass compares entries by that identity (cheap pointer checks), keeps the unchanged prefix and
 * summarizes only the rest. Anything that changes how outputs are counted (exempt tools, the
 * oversized limit) is part of the ledger's key and resets it.
 *
 * A pass over a history of many thousand new entries (or one entry of many thousand parallel tool
 * results) measures them in stretches: `updateInSlices` gives the event loop a turn whenever its
 * pauser says the current stretch has run its time, looking after every 64 parts, 50,000
 * estimated tokens or 256 K characters of plain text, between entries and inside a large one
 * (ledgerEntry.ts).
 */
import type { Content } from './maskingTypes.js';
import { identityOf } from './entryIdentity.js';
import type { EventLoopPauser } from '../utils/eventLoop.js';
import {
  EMPTY_SUMMARY,
  largeEntryRecord,
  newStretch,
  restartStretch,
  smallEntryRecord,
  stretchDone,
  type EntryRecord,
  type EntrySummary,
  type MeasurePart,
} from './ledgerEntry.js';

export type { CountedOutput, EntrySummary, MeasurePart } from './ledgerEntry.js';

/** Read-only view the planner works on. */
export interface HistoryView {
  readonly length: number;
  summary(index: number): EntrySummary;
  /** Sum of `summary(i).tokens` for i < index. */
  tokensBefore(index: number): number;
  /** Sum of `summary(i).kept` for i < index: what snippets of those outputs would still cost. */
  keptTokensBefore(index: number): number;
  /** Indices of entries with oversized outputs, ascending. */
  readonly oversizedEntries: readonly number[];
  /**
   * Estimated prompt tokens of entries < index: every part, tool outputs (countable, oversized,
   * masked or exempt) and the rest (text, calls). What a cache break re-sends is read from it.
   */
  promptTokensBefore(index: number): number;
  /** Entries < index the model wrote: the requests the session has made before them. */
  modelTurnsBefore(index: number): number;
}

/** Runs steps to their end at once. */
function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs steps to their end, giving the event loop a turn whenever `pause` says it is due. */
async function finishInSlices(steps: Generator<void, void>, pause: EventLoopPauser): Promise<void> {
  while (!steps.next().done) {
    if (pause.due()) await pause();
  }
}

/** A one-shot view (no memory between calls): for tests and one-off uses. */
export function viewHistory(
  history: readonly Content[],
  measure: MeasurePart,
  maxOutputTokens: number,
): HistoryView {
  const ledger = new HistoryLedger();
  ledger.update(history, measure, maxOutputTokens, '');
  return ledger;
}

export class HistoryLedger implements HistoryView {
  /**
   * Records of entries that left the ledger (its unchanged prefix ended before them), by identity
   * (see `identityOf`), until they come back. An entry is here or in `entries`, not in both: a
   * cold pass sets nothing here, and forgetting entries is cutting the arrays.
   */
  private byIdentity = new WeakMap<object, EntryRecord>();
  private entries: unknown[] = [];
  private records: EntryRecord[] = [];
  /** prefix[i] = tokens of entries < i; keptPrefix[i] = their kept tokens. */
  private prefix: number[] = [0];
  private keptPrefix: number[] = [0];
  /** promptPrefix[i] = prompt tokens of entries < i; modelPrefix[i] = model entries < i. */
  private promptPrefix: number[] = [0];
  private modelPrefix: number[] = [0];
  private oversized: number[] = [];
  private key: string | undefined;

  get length(): number {
    return this.entries.length;
  }

  get oversizedEntries(): readonly number[] {
    return this.oversized;
  }

  summary(index: number): EntrySummary {
    return this.records[index]?.summary ?? EMPTY_SUMMARY;
  }

  tokensBefore(index: number): number {
    return this.prefix[index] ?? 0;
  }

  keptTokensBefore(index: number): number {
    return this.keptPrefix[index] ?? 0;
  }

  promptTokensBefore(index: number): number {
    return this.promptPrefix[index] ?? 0;
  }

  modelTurnsBefore(index: number): number {
    return this.modelPrefix[index] ?? 0;
  }

  /**
   * Brings the ledger in line with `history`. `key` names everything that changes how an entry
   * is summarized besides the entry itself; a different key starts over.
   */
  update(
    history: readonly Content[],
    measure: MeasurePart,
    maxOutputTokens: number,
    key: string,
  ): void {
    finish(this.updating(history, measure, maxOutputTokens, key));
  }

  /** `update`, giving the event loop a turn whenever `pause` says the stretch has run its time. */
  async updateInSlices(
    history: readonly Content[],
    measure: MeasurePart,
    maxOutputTokens: number,
    key: string,
    pause: EventLoopPauser,
  ): Promise<void> {
    await finishInSlices(this.updating(history, measure, maxOutputTokens, key), pause);
  }

  /** The steps of `update` (see `summarizing`). */
  private *updating(
    history: readonly Content[],
    measure: MeasurePart,
    maxOutputTokens: number,
    key: string,
  ): Generator<void, void> {
    const fullKey = `${key}\u0000${maxOutputTokens}`;
    if (fullKey !== this.key) {
      this.key = fullKey;
      this.entries = [];
      this.records = [];
      this.prefix = [0];
      this.keptPrefix = [0];
      this.promptPrefix = [0];
      this.modelPrefix = [0];
      this.oversized = [];
      // Summaries depend on the key: stale ones must not be found again.
      this.byIdentity = new WeakMap();
    }
    // Keep the longest unchanged prefix (identity), recompute the rest.
    let same = 0;
    const limit = Math.min(this.entries.length, history.length);
    while (same < limit && this.entries[same] === identityOf(history[same])) same++;

    // The entries after the prefix may come back (a host that merged two turns, a replaced
    // entry): their records are kept by identity until then.
    this.truncate(same, true);
    const stretch = newStretch();
    for (let index = same; index < history.length; index++) {
      if (stretchDone(stretch)) {
        yield;
        restartStretch(stretch);
      }
      const content = history[index] as Content;
      const identity = identityOf(content);
      const cacheable = identity !== null && typeof identity === 'object';
      let record = cacheable ? this.byIdentity.get(identity) : undefined;
      if (record) {
        // Back in the ledger: it is kept there now (an identity is in one place or the other).
        this.byIdentity.delete(identity as object);
        stretch.parts++; // an entry known already: little work, but some
      } else {
        // An entry of a few parts is measured at once, a large one in steps.
        record =
          smallEntryRecord(content, measure, maxOutputTokens, stretch) ??
          (yield* largeEntryRecord(content, measure, maxOutputTokens, stretch));
      }
      const { summary } = record;
      this.entries.push(identity);
      this.records.push(record);
      this.prefix.push((this.prefix[index] as number) + summary.tokens);
      this.keptPrefix.push((this.keptPrefix[index] as number) + summary.kept);
      this.promptPrefix.push((this.promptPrefix[index] as number) + record.promptTokens);
      this.modelPrefix.push((this.modelPrefix[index] as number) + (record.fromModel ? 1 : 0));
      if (summary.oversized.length > 0) this.oversized.push(index);
    }
  }

  /**
   * Forgets the summaries of the entries from `index` on, so the next `update` measures them
   * again (after something changed how one of their parts counts). From 0: every summary.
   */
  forgetFrom(index: number): void {
    if (index <= 0) this.byIdentity = new WeakMap();
    if (index < this.entries.length) this.truncate(index, false);
  }

  /**
   * Keeps the first `length` entries (and their sums and oversized indices); the records of the
   * others by identity when `keep`, so that `update` finds them again.
   */
  private truncate(length: number, keep: boolean): void {
    if (keep) {
      for (let at = length; at < this.entries.length; at++) {
        const identity = this.entries[at];
        if (identity !== null && typeof identity === 'object') {
          this.byIdentity.set(identity, this.records[at] as EntryRecord);
        }
      }
    }
    this.entries.length = length;
    this.records.length = length;
    this.prefix.length = length + 1;
    this.keptPrefix.length = length + 1;
    this.promptPrefix.length = length + 1;
    this.modelPrefix.length = length + 1;
    while (
      this.oversized.length > 0 &&
      (this.oversized[this.oversized.length - 1] as number) >= length
    ) {
      this.oversized.pop();
    }
  }
}
