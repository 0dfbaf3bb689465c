/**
 * A gateway's stores: the ones it was given (shared storage) or the file system under its state
 * folder. Conversation state and usage are written after an answer ended; reads of either wait
 * for those writes (ordered-stores.ts).
 */
import { createFileToolOutputStore, type ToolOutputStore } from '@toolmask/core/storage';
import { createFileConversationStore } from './file-conversation-store.js';
import { createFileUsageStore } from './file-usage-store.js';
import { WritesInFlight, orderedConversationStore, orderedUsageStore } from './ordered-stores.js';
import type { ConversationStore, UsageStore } from './stores.js';

export interface GatewayStores {
  conversations: ConversationStore;
  usage: UsageStore;
  outputs: ToolOutputStore;
}

export function openStores(
  stateDir: string,
  given: Partial<GatewayStores> | undefined,
  log: (line: string) => void,
): GatewayStores {
  const writes = new WritesInFlight();
  return {
    conversations: orderedConversationStore(
      given?.conversations ?? createFileConversationStore(stateDir, log),
      writes,
    ),
    usage: orderedUsageStore(given?.usage ?? createFileUsageStore(stateDir), writes),
    outputs: given?.outputs ?? createFileToolOutputStore(),
  };
}
