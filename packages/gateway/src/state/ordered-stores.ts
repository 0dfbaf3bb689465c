/**
 * Reads that find every write started before them.
 *
 * The gateway writes a request's usage record and its conversation's state after the answer has
 * ended, so the client never waits for the disk (pipeline/handle-model-request.ts). Whoever reads the
 * stores next (`/api`, the dashboard, retention, a conversation loaded again) must still find
 * those writes: these wrappers count the writes in flight, and every read waits for the writes
 * that started before it. A write's failure is its writer's to report; a read only waits for it.
 */
import type { ConversationStore, UsageStore } from './stores.js';

export class WritesInFlight {
  private readonly pending = new Set<Promise<unknown>>();

  track<T>(write: Promise<T>): Promise<T> {
    this.pending.add(write);
    const done = () => this.pending.delete(write);
    write.then(done, done);
    return write;
  }

  /** Resolves once every write started before this call has ended (well or not). */
  async settled(): Promise<void> {
    if (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}

export function orderedConversationStore(
  store: ConversationStore,
  writes: WritesInFlight,
): ConversationStore {
  return {
    load: async (id) => {
      await writes.settled();
      return store.load(id);
    },
    // `since` runs before every pass of a replica and waits for no write: the conversation's own
    // writes are done by then (its decisions within its pass, its state in `finish`, both in the
    // conversation's turn), and other conversations' are not its business.
    since: (id, known) => store.since(id, known),
    appendDecisions: (id, records, expectedCount) =>
      writes.track(store.appendDecisions(id, records, expectedCount)),
    saveMeta: (id, meta) => writes.track(store.saveMeta(id, meta)),
    // A claim is its own read and write, in the store's turn for the conversation.
    claimOwner: (id, owner) => store.claimOwner(id, owner),
    ownerOf: (id) => store.ownerOf(id),
    prune: async (beforeMs, keep) => {
      await writes.settled();
      return store.prune(beforeMs, keep);
    },
  };
}

export function orderedUsageStore(store: UsageStore, writes: WritesInFlight): UsageStore {
  return {
    append: (record) => writes.track(store.append(record)),
    list: async (query) => {
      await writes.settled();
      return store.list(query);
    },
    prune: async (beforeMs) => {
      await writes.settled();
      return store.prune(beforeMs);
    },
  };
}
