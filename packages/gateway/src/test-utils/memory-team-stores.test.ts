/**
 * The in-memory team stores the replica tests share keep the contract of a real shared store
 * (test-utils/conversation-store-contract.ts), so what those tests show holds for Redis too.
 */
import { describeConversationStore } from './conversation-store-contract.js';
import { memoryTeamStores } from './memory-team-stores.js';

describeConversationStore('in memory (the replica tests)', async () => ({
  store: memoryTeamStores().conversations,
  cleanup: async () => undefined,
}));
