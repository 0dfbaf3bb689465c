/**
 * Tool outputs the session has since replaced, pure: for each output of a history, whether a
 * LATER call supersedes it, by which call and why. Hiding such an output costs the model nothing:
 * what it showed is in the context again, or no longer true.
 *
 * - `rerun`: the same tool ran again with the same arguments (canonical JSON, a shell command's
 *   text and directory; a call's `description` does not count).
 * - `read-again`: the output showed lines of files only (`cat f`, `sed -n '10,80p' f`,
 *   `read_file`), and a later call's output shows at least those lines again: a whole-file read
 *   covers any read of that file, a range read a range within it, a search or a tail only a
 *   whole read.
 * - `edited`: the output showed lines of files only, and each of them was written or edited later.
 *
 * What a call reads and writes comes from its name and arguments as each host writes them
 * (../toolCalls/callFacts.ts). A later call counts only once its output is in the history (the
 * replacement must be visible), and only if that output shows it worked: a read again that failed, or was cut
 * short by the host ("too long", "truncated"), covers nothing; an edit that failed edits nothing.
 * The first call that supersedes an output is the one named; it never changes afterwards.
 *
 * Cost: a pass costs what is new. Each call's facts are computed once per call object, each
 * output's status once per response object, each entry's summary once per entry (WeakMaps). The
 * tracker keeps its state between passes and goes on from the first entry it has not seen; an
 * entry replaced by one with the same calls and outputs (a pass masked it) changes nothing, so
 * only a history that really changed before its end is read again from the start.
 *
 * The parts of the job: supersession.ts (the reasons and the note), entryFacts.ts (what an entry
 * holds, read once per object), outputStatus.ts (how an output went), supersessionMatcher.ts (who
 * supersedes whom); this file keeps them in line with a history that grows between passes.
 */
import type { EventLoopPauser } from '../../utils/eventLoop.js';
import type { Content } from '../maskingTypes.js';
import { identityOf } from '../entryIdentity.js';
import { EntryReader, sameEntry, type EntryFacts } from './entryFacts.js';
import { SupersessionMatcher } from './supersessionMatcher.js';
import {
  SUPERSEDED_REASONS,
  type SupersededOptions,
  type SupersededReason,
  type SupersededView,
  type Supersession,
} from './supersession.js';

/** Stands for an entry the tracker let go of (`release`): equal to no entry's identity. */
const RELEASED = Symbol('released');

/** Entries looked at between two looks at the clock. */
const ENTRIES_PER_LOOK = 16;

/**
 * The superseded outputs of a history, kept between passes (see the module comment). One tracker
 * follows one history; a different history starts it over.
 */
export class SupersededOutputs implements SupersededView {
  private readonly reasons: ReadonlySet<SupersededReason>;
  private readonly reader: EntryReader;
  private identities: unknown[] = [];
  private facts: EntryFacts[] = [];
  private matcher: SupersessionMatcher;
  private followed = 0;

  constructor(options: SupersededOptions = {}) {
    this.reasons = new Set(options.reasons ?? SUPERSEDED_REASONS);
    this.matcher = new SupersessionMatcher(this.reasons);
    // Reads matter to `read-again` and `edited`, writes to `edited` only (not a default reason).
    const edited = this.reasons.has('edited');
    this.reader = new EntryReader({
      reads: edited || this.reasons.has('read-again'),
      writes: edited,
    });
  }

  get entries(): readonly number[] {
    return this.matcher.entries;
  }

  partsOf(contentIndex: number): ReadonlyMap<number, Supersession> | undefined {
    return this.matcher.partsOf(contentIndex);
  }

  /** How many calls had their facts computed: each call once (for tests). */
  get parsedCalls(): number {
    return this.reader.parsedCalls;
  }

  /** Entries followed over all updates: only what is new, unless it started over (for tests). */
  get followedEntries(): number {
    return this.followed;
  }

  /** Brings the tracker in line with `history`. */
  update(history: readonly Content[]): void {
    const steps = this.updating(history);
    while (!steps.next().done) {
      // Runs to the end at once.
    }
  }

  /** `update`, giving the event loop a turn whenever `pause` says the stretch has run its time. */
  async updateInSlices(history: readonly Content[], pause: EventLoopPauser): Promise<void> {
    const steps = this.updating(history);
    while (!steps.next().done) {
      if (pause.due()) await pause();
    }
  }

  /**
   * Lets go of the entries at `indices` (a pass replaced them): the tracker keeps what it found in
   * them, not the entries themselves, so a replaced output's text is not held here. The next
   * update compares the entries it finds there by their calls and outputs.
   */
  release(indices: readonly number[]): void {
    for (const index of indices) {
      if (index < this.identities.length) this.identities[index] = RELEASED;
    }
  }

  /** Forgets everything (a host that lets go of its history, or a failed update). */
  reset(): void {
    this.identities = [];
    this.facts = [];
    this.matcher = new SupersessionMatcher(this.reasons);
  }

  private *updating(history: readonly Content[]): Generator<void, void> {
    // The entries seen before, unchanged or replaced by the same calls and outputs.
    let same = 0;
    const limit = Math.min(this.identities.length, history.length);
    while (same < limit) {
      if (same % 1024 === 1023) yield;
      const content = history[same];
      const identity = identityOf(content);
      if (identity !== this.identities[same]) {
        if (!sameEntry(this.reader.entryFacts(content, identity), this.facts[same] as EntryFacts))
          break;
        this.identities[same] = identity;
      }
      same++;
    }
    if (same < this.identities.length) {
      // Something before the end changed (or the history shrank): read it again from the start.
      this.reset();
      same = 0;
    }
    for (let index = same; index < history.length; index++) {
      if (index % ENTRIES_PER_LOOK === ENTRIES_PER_LOOK - 1) yield;
      const content = history[index];
      const identity = identityOf(content);
      const facts = this.reader.entryFacts(content, identity);
      this.identities.push(identity);
      this.facts.push(facts);
      this.followed++;
      this.matcher.follow(index, facts);
    }
  }
}

/** The superseded outputs of `history`, once (no memory between calls): tests, one-off uses. */
export function findSupersededOutputs(
  history: readonly Content[],
  options: SupersededOptions = {},
): SupersededView {
  const tracker = new SupersededOutputs(options);
  tracker.update(history);
  return tracker;
}
