/**
 * A conversation's durable decisions: the decision log it applies (decision-log.ts) and the
 * store that keeps it across requests and restarts. Loaded once (a failed load is tried again by
 * the next request); the log holds the first `known` of the store's decisions, in the store's
 * order, so a reader that catches up asks for what comes after them.
 *
 * Two ways to save a pass's decisions, chosen by the sync (conversation-sync.ts):
 * - `save` (a store other replicas share): a decision is remembered (and so used) only once the
 *   store holds it; decisions are appended a batch at a time, each written before the next, and
 *   none is remembered unless all are. A failed save is reported and the request goes without the
 *   decisions (counted); only a conditional append that lost (`DecisionConflictError`) is its
 *   caller's to handle (shared-store-sync.ts).
 * - `useNow` (a store only this gateway writes): remembered and used at once, appended after the
 *   request is sent (`writeUsed`, from the pipeline; the next pass of the conversation, and its
 *   state after the answer, run it first if nobody did), in the order they were made. Nobody
 *   else reads the store while the gateway runs: its next request finds them in memory. A failed
 *   append is reported and tried again by the next `writeUsed`; the decisions stay in use, so the
 *   next requests carry the same bytes. What a crash before the append loses is what it loses of
 *   the queued output writes (state/outputs/queued-output-store.ts): the client's next request
 *   brings those outputs whole and the pass decides them again (docs/reliability.md).
 */
import type { ToolOutputMaskingService } from '@toolmask/core';
import { describeError } from '@toolmask/core/errors';
import { eventLoopPauser, type EventLoopPauser } from '@toolmask/core/utils';
import {
  DecisionConflictError,
  type ConversationMeta,
  type ConversationStore,
  type ConversationUpdate,
  type DecisionRecord,
} from '../state/stores.js';
import { DecisionLog } from './decision-log.js';

/**
 * Decisions appended to the store in one write: serializing 150,000 at once would hold the event
 * loop for a few hundred milliseconds.
 */
const DECISIONS_PER_APPEND = 2_000;

/** A pass's decisions saved, or not (`unsavedDecisions`: the masked ones the request goes without). */
export interface Saving {
  saved: boolean;
  unsavedDecisions: number;
}

export const SAVED: Saving = { saved: true, unsavedDecisions: 0 };

export interface DurableDecisionsOptions {
  id: string;
  store: ConversationStore;
  service: ToolOutputMaskingService;
  /** The last answer's state as the store had it when loaded. */
  adoptMeta(meta: ConversationMeta): void;
  debug(message: string): void;
}

export class DurableDecisions {
  readonly log: DecisionLog;
  private knownCount = 0;
  private loading?: Promise<void>;
  private loadedOnce = false;
  /** Decisions in use not yet appended (`useNow`), in order. */
  private unwritten: DecisionRecord[] = [];
  /** The append of `unwritten` under way, chained: one at a time. */
  private writing: Promise<void> = Promise.resolve();
  /** Appends chained and not finished yet. */
  private appending = 0;

  constructor(private readonly options: DurableDecisionsOptions) {
    this.log = new DecisionLog(options.service);
  }

  /** How many of the store's decisions the log holds: the first ones, in order. */
  get known(): number {
    return this.knownCount;
  }

  /** The store's state is in memory (a catch-up reads only what came after it). */
  get isLoaded(): boolean {
    return this.loadedOnce;
  }

  get hasMasked(): boolean {
    return this.log.hasMasked;
  }

  /** Loads the store's decisions and meta, once. */
  load(): Promise<void> {
    this.loading ??= (async () => {
      const stored = await this.options.store.load(this.options.id);
      for (const record of stored.decisions) this.remember(record);
      if (stored.meta) this.options.adoptMeta(stored.meta);
      this.loadedOnce = true;
    })().catch((error: unknown) => {
      // Not loaded: the next request tries again (a store that is back resumes masking).
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  /** A decision as the store holds it, in the store's order. */
  remember(record: DecisionRecord): void {
    this.log.remember(record);
    this.knownCount++;
  }

  /** What the store holds past the first `known` decisions, and its meta. */
  readSince(known: number): Promise<ConversationUpdate> {
    return this.options.store.since(this.options.id, known);
  }

  /**
   * The store holds fewer decisions than were known (a Redis restarted without persistence, keys
   * expired): what follows goes on from its count; the decisions known here stay applied.
   */
  knownFromStore(count: number): void {
    this.knownCount = count;
  }

  /**
   * Remembers `records` and uses them at once; `writeUsed` appends them (a store only this
   * gateway writes: see the module comment).
   */
  async useNow(records: readonly DecisionRecord[], pause: EventLoopPauser): Promise<Saving> {
    for (const record of records) {
      this.log.use(record);
      this.knownCount++;
      this.unwritten.push(record);
      if (pause.due()) await pause();
    }
    return SAVED;
  }

  /**
   * Appends the decisions in use not yet written, a batch at a time; a failure is reported and
   * what was not written is tried again by the next call. Never rejects.
   */
  writeUsed(): Promise<void> {
    // Nothing to append and nothing under way (a known conversation's request, its last
    // decisions appended after their send): the chain as it is, no turn of it.
    if (this.unwritten.length === 0 && this.appending === 0) return this.writing;
    this.appending++;
    this.writing = this.writing
      .then(() => this.appendUnwritten())
      .finally(() => {
        this.appending--;
      });
    return this.writing;
  }

  private async appendUnwritten(): Promise<void> {
    const records = this.unwritten;
    if (records.length === 0) return;
    this.unwritten = [];
    // Their keys: taken now, after the send (decision-log.ts `use`).
    await this.log.index(eventLoopPauser());
    let at = 0;
    try {
      for (; at < records.length; at += DECISIONS_PER_APPEND) {
        const batch =
          records.length <= DECISIONS_PER_APPEND
            ? records
            : records.slice(at, at + DECISIONS_PER_APPEND);
        await this.options.store.appendDecisions(this.options.id, batch);
      }
    } catch (error) {
      this.unwritten = [...records.slice(at), ...this.unwritten];
      this.options.debug(
        `[toolmask gateway] could not save ${records.length - at} decision(s) of conversation ${this.options.id} after its request was sent; they stay in use and are tried again with its next request: ${describeError(error)}`,
      );
    }
  }

  /**
   * Saves `records` before they are used. With `expectedCount`, each batch is appended only if
   * the store holds exactly the decisions before it (a `DecisionConflictError` then goes to the
   * caller). Any other failure: the request goes without them.
   */
  async save(
    records: readonly DecisionRecord[],
    pause: EventLoopPauser,
    expectedCount?: number,
  ): Promise<Saving> {
    if (records.length === 0) return SAVED;
    try {
      for (let at = 0; at < records.length; at += DECISIONS_PER_APPEND) {
        await this.options.store.appendDecisions(
          this.options.id,
          records.length <= DECISIONS_PER_APPEND
            ? records
            : records.slice(at, at + DECISIONS_PER_APPEND),
          expectedCount === undefined ? undefined : expectedCount + at,
        );
      }
      for (const record of records) {
        this.remember(record);
        if (pause.due()) await pause();
      }
      return SAVED;
    } catch (error) {
      if (error instanceof DecisionConflictError) throw error;
      // Never use a decision that a restart would not find again: send without it.
      this.options.debug(
        `[toolmask gateway] could not save ${records.length} decision(s) of conversation ${this.options.id}; the request goes without them: ${describeError(error)}`,
      );
      const unsaved = records.filter((record) => record.kind === 'masked').length;
      return { saved: false, unsavedDecisions: unsaved };
    }
  }
}
