/**
 * Who owns each conversation of a team gateway: claimed in the shared store by its first request
 * and never changed after (the store keeps the first claim: state/stores.ts), so a replica
 * remembers the owners it has seen (at most `KNOWN_OWNERS`) and asks the store only for the others.
 */
import { CONVERSATION_ID, type ConversationStore } from '../state/stores.js';

/** Conversations whose owner this replica knows (they never change owner), at most this many. */
const KNOWN_OWNERS = 100_000;

export class ConversationOwners {
  private readonly owners = new Map<string, string>();
  /** Claims sent and not answered yet: what this replica's own requests say. */
  private readonly claiming = new Map<string, string>();

  constructor(private readonly conversations: ConversationStore) {}

  /** Records the conversation's owner in the shared store, once per conversation (best effort). */
  async claim(id: string, owner: string): Promise<void> {
    if (this.owners.has(id)) return;
    this.claiming.set(id, owner);
    try {
      await this.claimNow(id, owner);
    } finally {
      this.claiming.delete(id);
    }
  }

  /** The owner this replica knows of, without asking the store (a claim under way counts). */
  knownOwner(id: string): string | undefined {
    return this.owners.get(id) ?? this.claiming.get(id);
  }

  private async claimNow(id: string, owner: string): Promise<void> {
    try {
      this.remember(id, await this.conversations.claimOwner(id, owner));
    } catch {
      // The store is down: the conversation's next request claims it again.
    }
  }

  /**
   * The conversation's owner, undefined when none was recorded, or when `id` (a caller's choice,
   * on `/api`) is no conversation id at all: a session that does not exist, not a store error.
   */
  async ownerOf(id: string): Promise<string | undefined> {
    if (!CONVERSATION_ID.test(id)) return undefined;
    const known = this.owners.get(id);
    if (known !== undefined) return known;
    const owner = await this.conversations.ownerOf(id);
    if (owner !== undefined) this.remember(id, owner);
    return owner;
  }

  private remember(id: string, owner: string): void {
    if (this.owners.size >= KNOWN_OWNERS) this.owners.clear();
    this.owners.set(id, owner);
  }
}
