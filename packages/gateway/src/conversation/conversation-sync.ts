/**
 * How a conversation agrees with the other writers of its store, injected by whoever wires the
 * gateway: `LOCAL_SYNC` for a store only this gateway writes (the file store), which has nobody to
 * agree with, and `SHARED_STORE_SYNC` (shared-store-sync.ts) for a store several replicas write
 * (a team gateway's Redis): the look-ahead, the catch-up before each pass, the conditional append,
 * the recovery from a store that lost data, and the passes run again after losing a race.
 *
 * A sync holds no state of its own: what it works on is the conversation's (`SyncedConversation`).
 */
import type { MaskingResult } from '@toolmask/core';
import type { EventLoopPauser } from '@toolmask/core/utils';
import type { ConversationMeta, ConversationUpdate, DecisionRecord } from '../state/stores.js';
import type { DurableDecisions, Saving } from './durable-decisions.js';

/** A catch-up read under way: what a shared store holds past the first `known` decisions. */
export interface StoreLookAhead {
  known: number;
  update: Promise<ConversationUpdate>;
}

/** What a sync works on: one conversation's durable decisions and what depends on them. */
export interface SyncedConversation {
  readonly id: string;
  readonly decisions: DurableDecisions;
  /** The last answer's state as this gateway knows it. */
  currentMeta(): ConversationMeta | undefined;
  /** The last answer's state as the store has it (newer than this gateway's). */
  adoptMeta(meta: ConversationMeta): void;
  /** Decisions from elsewhere came: the history kept between requests is stale. */
  forgetHistory(): void;
  debug(message: string): void;
}

/** One pass's decisions, to be saved before the request uses them. */
export interface PassDecisions {
  records: readonly DecisionRecord[];
  result: MaskingResult;
  pause: EventLoopPauser;
}

/**
 * Saves a pass's decisions; `'again'` when another writer appended first and the pass is to run
 * again over its decisions (the attempt then returns undefined, changing nothing).
 */
export type SaveDecisions = (pass: PassDecisions) => Promise<Saving | 'again'>;

/** One try of a request's pass: its result, or undefined when its save said `'again'`. */
export type PassAttempt<T> = (save: SaveDecisions) => Promise<T | undefined>;

export interface ConversationSync {
  /**
   * Starts reading what the store holds past what the conversation knows, so that its round trip
   * overlaps the body's decoding; undefined when there is nothing to read, or the conversation is
   * not loaded yet (its pass then reads the store itself).
   */
  lookAhead(conversation: SyncedConversation): StoreLookAhead | undefined;
  /** Takes in what other writers did since the conversation last looked (rejects when it cannot). */
  catchUp(conversation: SyncedConversation): Promise<void>;
  /**
   * Runs a request's pass (loaded conversation) until its decisions are agreed on; `storeBehind`:
   * the store could not be read first, and the request went with the decisions known here.
   */
  agree<T>(
    conversation: SyncedConversation,
    attempt: PassAttempt<T>,
    lookAhead?: StoreLookAhead,
  ): Promise<{ prepared: T; storeBehind: boolean }>;
  /**
   * The answer's end waits for the conversation's state after it: the client's next request may
   * reach another writer, which must find that state in the store.
   */
  readonly stateBeforeAnswerEnds: boolean;
}

/**
 * A store only this gateway writes: nothing to read first, every save unconditional, and made
 * after the request is sent (durable-decisions.ts `useNow`): nobody else reads the store.
 */
export const LOCAL_SYNC: ConversationSync = {
  lookAhead: () => undefined,
  catchUp: async () => undefined,
  async agree<T>(conversation: SyncedConversation, attempt: PassAttempt<T>) {
    const prepared = await attempt(({ records, pause }) =>
      conversation.decisions.useNow(records, pause),
    );
    // Nobody else appends: a save never says 'again', so the one attempt always finishes.
    return { prepared: prepared as T, storeBehind: false };
  },
  stateBeforeAnswerEnds: false,
};
