/**
 * A team gateway's owners (team-access.ts): who a request is, and who owns a conversation. The
 * owner of a conversation is claimed in the shared store by its first request and never changes,
 * so a replica remembers the owners it has seen (at most `KNOWN_OWNERS`).
 */
import type { TeamOptions } from '../gateway-options.js';
import type { ConversationStore } from '../state/stores.js';
import { TeamAccess } from './team-access.js';

/** Conversations whose owner this replica knows (they never change owner), at most this many. */
const KNOWN_OWNERS = 100_000;

/** A team gateway's owners: who a request is, and who owns a conversation. */
export function teamSide(options: TeamOptions, conversations: ConversationStore) {
  const access = new TeamAccess({
    ...(options.keys ? { keys: options.keys } : {}),
    ...(options.providerKey ? { providerKey: options.providerKey } : {}),
    ...(options.adminKey ? { adminKey: options.adminKey } : {}),
    cookieSecret: options.cookieSecret,
  });
  const owners = new Map<string, string>();
  const remember = (id: string, owner: string) => {
    if (owners.size >= KNOWN_OWNERS) owners.clear();
    owners.set(id, owner);
  };
  return {
    access,
    async claim(id: string, owner: string): Promise<void> {
      if (owners.has(id) || !conversations.claimOwner) return;
      try {
        remember(id, await conversations.claimOwner(id, owner));
      } catch {
        // The store is down: the conversation's next request claims it again.
      }
    },
    async ownerOf(id: string): Promise<string | undefined> {
      const known = owners.get(id);
      if (known !== undefined) return known;
      const owner = await conversations.ownerOf?.(id);
      if (owner !== undefined) remember(id, owner);
      return owner;
    },
  };
}
