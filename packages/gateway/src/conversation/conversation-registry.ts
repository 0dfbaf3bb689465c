/**
 * The conversations the gateway knows, in memory. Each keeps its last request's history between
 * requests (that is what makes a pass cost what is new); the registry bounds the total by bytes:
 * beyond `maxRetainedBytes`, the least recently used conversations drop their history (their
 * decisions stay, and their next request pays for a full estimate once). Beyond
 * `maxConversations`, the least recently used idle ones are forgotten altogether and loaded again
 * from the store when they come back.
 */
import { Conversation, type ConversationOptions } from './conversation.js';

export interface ConversationRegistryOptions {
  maxRetainedBytes: number;
  maxConversations: number;
  create: (id: string) => ConversationOptions;
}

export class ConversationRegistry {
  /** Insertion order is recency order (a Map iterates in insertion order). */
  private readonly conversations = new Map<string, Conversation>();

  constructor(private readonly options: ConversationRegistryOptions) {}

  get size(): number {
    return this.conversations.size;
  }

  get(id: string): Conversation {
    let conversation = this.conversations.get(id);
    if (conversation) {
      this.conversations.delete(id);
    } else {
      conversation = new Conversation(this.options.create(id));
    }
    this.conversations.set(id, conversation);
    return conversation;
  }

  /** Keeps memory within bounds after a request retained its history. */
  trim(): void {
    // The least recently used first; a conversation with a request in flight is never forgotten
    // (its handler still holds it: a second instance would load and save state beside it).
    for (const [id, conversation] of this.conversations) {
      if (this.conversations.size <= this.options.maxConversations) break;
      if (!conversation.busy) this.conversations.delete(id);
    }
    let retained = 0;
    for (const conversation of this.conversations.values()) retained += conversation.retainedBytes;
    for (const conversation of this.conversations.values()) {
      if (retained <= this.options.maxRetainedBytes) break;
      retained -= conversation.retainedBytes;
      conversation.releaseHistory();
    }
  }

  /** Ids of the conversations held in memory. */
  ids(): IterableIterator<string> {
    return this.conversations.keys();
  }

  /** Bytes of history kept, for /api and tests. */
  retainedBytes(): number {
    let total = 0;
    for (const conversation of this.conversations.values()) total += conversation.retainedBytes;
    return total;
  }
}
