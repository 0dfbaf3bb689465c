/**
 * The conversations the gateway knows, in memory. Each keeps its last request's history between
 * requests (that is what makes a pass cost what is new); the registry bounds the total by bytes:
 * beyond `maxRetainedBytes`, the least recently used conversations drop their history (their
 * decisions stay, and their next request pays for a full estimate once). Beyond
 * `maxConversations`, the least recently used idle ones are forgotten altogether and loaded again
 * from the store when they come back. A conversation leased to a request in flight is never
 * forgotten (its handler still holds it: a second instance would load and save state beside it).
 */
import { Conversation, type ConversationOptions } from './conversation.js';

/** A conversation held for one request, until `release` (which may be called more than once). */
export interface ConversationLease {
  readonly conversation: Conversation;
  release(): void;
}

export interface ConversationRegistryOptions {
  maxRetainedBytes: number;
  maxConversations: number;
  create: (id: string) => ConversationOptions;
}

export class ConversationRegistry {
  /** Insertion order is recency order (a Map iterates in insertion order). */
  private readonly conversations = new Map<string, Conversation>();
  /** Requests in flight per conversation id. */
  private readonly leases = new Map<string, number>();

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

  /** The conversation `id`, held for a request in flight until the lease is released. */
  lease(id: string): ConversationLease {
    const conversation = this.get(id);
    this.leases.set(id, (this.leases.get(id) ?? 0) + 1);
    let released = false;
    return {
      conversation,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.leases.get(id) ?? 1) - 1;
        if (left > 0) this.leases.set(id, left);
        else this.leases.delete(id);
      },
    };
  }

  /** Keeps memory within bounds after a request retained its history. */
  trim(): void {
    // The least recently used first, never one leased to a request in flight.
    for (const id of this.conversations.keys()) {
      if (this.conversations.size <= this.options.maxConversations) break;
      if (!this.leases.has(id)) this.conversations.delete(id);
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
