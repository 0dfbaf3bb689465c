/**
 * A conversation's previous request, as the client sent it and as the gateway sent it. The next
 * request resends the same history plus what is new: its entries equal to the previous ones (a
 * deep compare, much cheaper than estimating) are replaced by what was sent for them, the same
 * objects, so core's ledger and estimate caches hit and the pass costs what is new; the new ones
 * get the recorded decisions.
 */
import type { Content } from '@toolmask/core';
import type { SentBefore } from '../body/incremental-read.js';
import { sameJson, type EventLoopPauser } from '@toolmask/core/utils';
import { outputsAfterEach, type DecisionLog, type MaskedTally } from './decision-log.js';

/** Steps of a microsecond or less (an identity check) between two looks at the clock. */
const CHEAP_STEPS = 512;

export interface KnownApplied {
  /** `incoming` with what is known applied. */
  applied: Content[];
  /** `incoming` with the previous request's objects for its unchanged entries. */
  interned: Content[];
  /** How many first entries of `applied` are what was sent last time (the same objects). */
  common: number;
}

/** What a request's tally can start from: its sent entries that are the last request's. */
export interface TallyStart {
  /** `KnownApplied.common` of the request. */
  common: number;
  /** The entries that differ from what came (`changedFrom`): the rest of the first `common` are as sent last time. */
  changed: readonly number[];
}

export class SentHistory {
  private lastIncoming: Content[] = [];
  private lastSent: Content[] = [];
  /** The masked outputs `lastSent` carries (decision-log.ts `tally`), when counted. */
  private lastTally?: MaskedTally;

  /**
   * `incoming` with what is known applied: entries equal to the previous request's are what was
   * sent for them then; new ones get the recorded decisions. An entry may come as the very
   * Content sent for it last time (the incremental reader keeps an element it wrote as what it
   * wrote: body/incremental-body.ts); that too is an entry unchanged. A history of many thousand
   * entries is compared and looked up in stretches (`pause`). The entries the reader vouches for
   * (`sentBefore`: the very objects of what was sent last time) are not compared at all: on a
   * known conversation's request that is all but the new ones.
   */
  async apply(
    incoming: readonly Content[],
    decisions: DecisionLog,
    pause: EventLoopPauser,
    sentBefore?: SentBefore,
  ): Promise<KnownApplied> {
    // A history shorter than the previous one (a rewind, or another session with the same key)
    // reuses nothing: an output masked in the previous request may be newer here, and only the
    // decisions know how old it was when masked (decision-log.ts).
    const limit =
      incoming.length < this.lastIncoming.length
        ? 0
        : Math.min(this.lastIncoming.length, incoming.length);
    const vouched =
      sentBefore !== undefined && sentBefore.sent === this.lastSent
        ? Math.min(sentBefore.count, limit)
        : 0;
    let common = vouched;
    while (common < limit) {
      // The clock is read after a deep compare, and every so many identical entries (a look
      // at it costs more than one of those).
      if (incoming[common] !== this.lastSent[common]) {
        if (!sameJson(this.lastIncoming[common], incoming[common])) break;
        if (pause.due()) await pause();
      } else if (common % CHEAP_STEPS === 0 && pause.due()) await pause();
      common++;
    }
    const applied = this.lastSent.slice(0, common);
    // What came is what was sent, for the entries vouched for.
    const interned: Content[] = incoming.slice(0, vouched);
    const outputsAfter = await outputsAfterEach(incoming.slice(common), pause);
    for (let index = vouched; index < incoming.length; index++) {
      const content = incoming[index] as Content;
      if (index >= common) {
        if (pause.due()) await pause();
        const preparing = decisions.prepare(content, pause);
        if (preparing) await preparing;
        applied.push(decisions.apply(content, outputsAfter[index - common] ?? 0));
        interned.push(content);
      } else {
        if (index % CHEAP_STEPS === 0 && pause.due()) await pause();
        // What was sent, when that is what came: the client's version is not kept.
        interned.push(content === applied[index] ? content : (this.lastIncoming[index] as Content));
      }
    }
    return { applied, interned, common };
  }

  /**
   * The masked outputs `sent` carries, and the tokens they keep out: the last request's tally,
   * less its entries that `sent` does not have as they were, plus `sent`'s own from there, so a
   * known conversation's request counts what is new (and what its pass changed), not its whole
   * history. Before `remember` of `sent`.
   */
  async tally(
    sent: readonly Content[],
    start: TallyStart,
    decisions: DecisionLog,
    pause: EventLoopPauser,
  ): Promise<MaskedTally> {
    const last = this.lastTally;
    if (last === undefined) return decisions.tally(sent, pause);
    const common = Math.min(start.common, this.lastSent.length, sent.length);
    let { maskedOutputs, tokensKeptOut } = last;
    const add = (counted: MaskedTally, sign: number) => {
      maskedOutputs += sign * counted.maskedOutputs;
      tokensKeptOut += sign * counted.tokensKeptOut;
    };
    // The entries before `common` that are not what was sent last time (a pass changed them).
    for (const index of start.changed) {
      if (index >= common) break;
      add(decisions.tallyOf(this.lastSent[index] as Content), -1);
      add(decisions.tallyOf(sent[index] as Content), 1);
    }
    add(await decisions.tally(this.lastSent.slice(common), pause), -1);
    add(await decisions.tally(sent.slice(common), pause), 1);
    return { maskedOutputs, tokensKeptOut };
  }

  /** The request just prepared: what came (interned), what is sent, and what that carries. */
  remember(interned: Content[], sent: Content[], tally?: MaskedTally): void {
    this.lastIncoming = interned;
    this.lastSent = sent;
    this.lastTally = tally;
  }

  clear(): void {
    this.lastIncoming = [];
    this.lastSent = [];
    this.lastTally = undefined;
  }
}

/**
 * Entries of `sent` that differ from what the client sent (`incoming`, or its interned objects);
 * those that are not the very objects of `incoming` are added to `differs`, when given.
 */
export async function changedFrom(
  sent: readonly Content[],
  incoming: readonly Content[],
  interned: readonly Content[],
  pause: EventLoopPauser,
  differs?: number[],
): Promise<number[]> {
  const changed: number[] = [];
  for (let index = 0; index < sent.length; index++) {
    if (index % CHEAP_STEPS === 0 && pause.due()) await pause();
    const content = sent[index];
    if (content === incoming[index]) continue;
    differs?.push(index);
    if (content !== interned[index]) changed.push(index);
  }
  return changed;
}
