/**
 * A `ConversationStore` that keeps nothing, for tests that play one behaviour of a store (a slow
 * load, a broken one) and need the rest of the contract to answer as an empty store would.
 */
import type { ConversationStore } from '../state/stores.js';

export function stubConversationStore(
  overrides: Partial<ConversationStore> = {},
): ConversationStore {
  return {
    load: async () => ({ decisions: [] }),
    since: async () => ({ decisions: [] }),
    appendDecisions: async () => undefined,
    saveMeta: async () => undefined,
    claimOwner: async (_id, owner) => owner,
    ownerOf: async () => undefined,
    prune: async () => 0,
    ...overrides,
  };
}
