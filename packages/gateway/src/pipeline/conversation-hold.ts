/**
 * The conversation of one model request, held from when its key is known until the request ends:
 * leased once (and claimed for the request's owner) when it is first asked for, and released once,
 * by the request's handler when it ends (handle-model-request.ts), whatever path it took. While
 * held, the registry never forgets it (conversation-registry.ts).
 */
import type { Conversation } from '../conversation/conversation.js';
import type {
  ConversationLease,
  ConversationRegistry,
} from '../conversation/conversation-registry.js';
import type { RequestOwner } from '../server/tenancy.js';

export class ConversationHold {
  private lease?: ConversationLease;

  constructor(
    private readonly registry: ConversationRegistry,
    private readonly owner: RequestOwner,
  ) {}

  /** The conversation `key`, leased on the first call (masking off, then on: one lease). */
  take(key: string): Conversation {
    if (!this.lease) {
      this.owner.claim(key);
      this.lease = this.registry.lease(key);
    }
    return this.lease.conversation;
  }

  /** Lets the conversation go (again: nothing). */
  release(): void {
    this.lease?.release();
  }
}
