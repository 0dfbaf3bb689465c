/**
 * Replica agreement on a shared store (a team gateway's replicas serving one conversation).
 *
 * Before each pass, the conversation catches up with the store in one round trip (`since`): the
 * decisions others appended and the last answer's state. New decisions from elsewhere make the
 * history kept between requests stale (an entry sent whole then may be masked now), so it is let
 * go and the pass measures the request anew, as after a restart. That read starts while the body
 * is decoded (`lookAhead`), so its round trip costs nothing when it is the one the pass needs.
 *
 * Its own decisions are appended only if nobody appended since it caught up (`expectedCount`);
 * when another replica won that race (a client's retry landing elsewhere), it catches up again
 * and runs its pass again over the winner's decisions: both send the same bytes. After a few lost
 * races the request goes without new decisions. A store that holds fewer decisions than were
 * known lost some (a Redis restarted without persistence): the count goes on from the store's.
 * A store that cannot be read before the pass: the request goes with the decisions known here,
 * and says so (`storeBehind`).
 */
import { describeError } from '@toolmask/core/errors';
import { DecisionConflictError } from '../state/stores.js';
import type {
  ConversationSync,
  PassAttempt,
  PassDecisions,
  StoreLookAhead,
  SyncedConversation,
} from './conversation-sync.js';
import type { Saving } from './durable-decisions.js';

/**
 * Passes run again after losing the race to append: each loss means another replica appended in
 * between, so a few tries settle any client's retries; after them, the request goes without new
 * decisions.
 */
const MAX_APPEND_TRIES = 3;

export const SHARED_STORE_SYNC: ConversationSync = {
  lookAhead(conversation) {
    const { decisions } = conversation;
    if (!decisions.isLoaded) return undefined;
    const known = decisions.known;
    const update = decisions.readSince(known);
    // Awaited, and its failure handled, by `catchUp`; never an unhandled rejection meanwhile.
    update.catch(() => undefined);
    return { known, update };
  },

  catchUp: (conversation) => catchUp(conversation),

  async agree<T>(
    conversation: SyncedConversation,
    attempt: PassAttempt<T>,
    lookAhead?: StoreLookAhead,
  ) {
    for (let tries = 1; ; tries++) {
      let storeBehind = false;
      try {
        await catchUp(conversation, tries === 1 ? lookAhead : undefined);
      } catch (error) {
        // The shared store cannot be reached: the request goes with the decisions known here
        // (its own new ones cannot be saved either), and the next request catches up.
        storeBehind = true;
        conversation.debug(
          `[toolmask gateway] conversation ${conversation.id}: could not catch up with the store; sent with the decisions known here: ${describeError(error)}`,
        );
      }
      const mayRunAgain = tries < MAX_APPEND_TRIES;
      const prepared = await attempt((pass) => appendIfNoneCame(conversation, pass, mayRunAgain));
      if (prepared !== undefined) return { prepared, storeBehind };
      // Another gateway appended first: the next catch-up takes its decisions (and lets the
      // history go), and the pass runs again over them.
      conversation.debug(
        `[toolmask gateway] conversation ${conversation.id}: another gateway decided first; the pass runs again over its decisions`,
      );
    }
  },

  stateBeforeAnswerEnds: true,
};

/**
 * What other gateways did since this one last looked. New decisions make the history kept
 * between requests stale: it is let go (decisions and outputs kept whole stay known). The last
 * answer's state is taken when it is not older than this gateway's own.
 */
async function catchUp(conversation: SyncedConversation, lookAhead?: StoreLookAhead) {
  const { decisions } = conversation;
  // A read started before this turn's decoding, when it asked for what is still unknown.
  const update =
    lookAhead && lookAhead.known === decisions.known
      ? await lookAhead.update
      : await decisions.readSince(decisions.known);
  if (update.decisions.length > 0) {
    for (const record of update.decisions) decisions.remember(record);
    conversation.forgetHistory();
  }
  const ours = conversation.currentMeta()?.lastEndedAt ?? -Infinity;
  if (update.meta && (update.meta.lastEndedAt ?? -Infinity) >= ours) {
    conversation.adoptMeta(update.meta);
  }
}

/**
 * The pass's decisions appended only if the store holds exactly the ones known here; `'again'`
 * when another gateway appended first and the pass may run again, else the request goes without
 * them (its masked outputs counted as unsaved).
 */
async function appendIfNoneCame(
  conversation: SyncedConversation,
  pass: PassDecisions,
  mayRunAgain: boolean,
): Promise<Saving | 'again'> {
  const { decisions } = conversation;
  const known = decisions.known;
  try {
    return await decisions.save(pass.records, pass.pause, known);
  } catch (error) {
    if (!(error instanceof DecisionConflictError)) throw error;
    if (error.count < known) {
      // The store lost decisions (a Redis restarted without persistence, keys expired): go on
      // from what it holds; what this gateway knew stays applied here.
      conversation.debug(
        `[toolmask gateway] conversation ${conversation.id}: the store holds ${error.count} decisions, ${known} were known; going on from the store's`,
      );
      decisions.knownFromStore(error.count);
    }
    return mayRunAgain ? 'again' : { saved: false, unsavedDecisions: pass.result.offloaded.length };
  }
}
