/**
 * A conversation's previous request, as the client sent it and as the gateway sent it. The next
 * request resends the same history plus what is new: its entries equal to the previous ones (a
 * deep compare, much cheaper than estimating) are replaced by what was sent for them, the same
 * objects, so core's ledger and estimate caches hit and the pass costs what is new; the new ones
 * get the recorded decisions.
 */
import type { Content } from '@toolmask/core';
import { sameJson } from '@toolmask/core/utils';
import type { DecisionLog } from './decision-log.js';

export interface KnownApplied {
  /** `incoming` with what is known applied. */
  applied: Content[];
  /** `incoming` with the previous request's objects for its unchanged entries. */
  interned: Content[];
}

export class SentHistory {
  private lastIncoming: Content[] = [];
  private lastSent: Content[] = [];

  /**
   * `incoming` with what is known applied: entries equal to the previous request's are what was
   * sent for them then; new ones get the recorded decisions. An entry may come as the very
   * Content sent for it last time (the incremental reader keeps an element it wrote as what it
   * wrote: body/incremental-body.ts); that too is an entry unchanged.
   */
  apply(incoming: readonly Content[], decisions: DecisionLog): KnownApplied {
    const limit = Math.min(this.lastIncoming.length, incoming.length);
    let common = 0;
    while (
      common < limit &&
      (incoming[common] === this.lastSent[common] ||
        sameJson(this.lastIncoming[common], incoming[common]))
    ) {
      common++;
    }
    const applied = this.lastSent.slice(0, common);
    const interned: Content[] = [];
    for (let index = 0; index < incoming.length; index++) {
      const content = incoming[index] as Content;
      if (index >= common) {
        applied.push(decisions.apply(content));
        interned.push(content);
      } else {
        // What was sent, when that is what came: the client's version is not kept.
        interned.push(content === applied[index] ? content : (this.lastIncoming[index] as Content));
      }
    }
    return { applied, interned };
  }

  /** The request just prepared: what came (interned) and what is sent. */
  remember(interned: Content[], sent: Content[]): void {
    this.lastIncoming = interned;
    this.lastSent = sent;
  }

  clear(): void {
    this.lastIncoming = [];
    this.lastSent = [];
  }
}

/** Entries of `sent` that differ from what the client sent (`incoming`, or its interned objects). */
export function changedFrom(
  sent: readonly Content[],
  incoming: readonly Content[],
  interned: readonly Content[],
): number[] {
  return sent.flatMap((content, index) =>
    content !== incoming[index] && content !== interned[index] ? [index] : [],
  );
}
