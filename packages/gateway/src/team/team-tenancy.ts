/**
 * A team gateway's tenancy (server/tenancy.ts): every request carries a key, and the key names
 * its owner (team-keys.ts). A model request's conversation is its owner's alone (the owner is
 * mixed into its key, so two people's sessions never share one, however alike they start) and is
 * claimed for them in the shared store (conversation-owners.ts); a virtual key goes upstream as
 * the team's provider key, put where the client put its own, on a model call or model list only
 * (virtual-key-paths.ts). On the gateway's own endpoints a key, or the team cookie a browser got
 * for one, names who asks: an owner reads what is theirs, the admin everything.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Outbound, RequestOwner, Tenancy } from '../server/tenancy.js';
import type { ConversationOwners } from './conversation-owners.js';
import type { OwnerLedger } from './owner-ledger.js';
import { mayRead, type KeyPlace, type TeamKeys } from './team-keys.js';

/** A virtual key's replacement: the team's provider key, where the client put its key. */
type KeySwap = { place: KeyPlace; value: string };

/**
 * The request as it goes upstream with the provider key where the virtual key was: a header (a
 * copy of the request's headers, the one replaced), or Gemini's `?key=`.
 */
function swapped(url: string, headers: IncomingHttpHeaders, swap: KeySwap | undefined): Outbound {
  if (!swap) return { url, headers };
  if (swap.place === 'query') {
    const withKey = new URL(url);
    withKey.searchParams.set('key', swap.value);
    return { url: withKey.toString(), headers };
  }
  const value = swap.place === 'authorization' ? `Bearer ${swap.value}` : swap.value;
  return { url, headers: { ...headers, [swap.place]: value } };
}

/** What a team's tenancy keeps track of: claims in the shared store, proofs and budgets here. */
export interface Ledgers {
  owners: ConversationOwners;
  ledger: OwnerLedger;
}

function requestOwner(owner: string, ledgers: Ledgers, swap?: KeySwap): RequestOwner {
  const { owners, ledger } = ledgers;
  return {
    name: owner,
    // A team gateway's owners never share a conversation, however alike their sessions start.
    scopeSession: (session) => `${owner}\u0000${session ?? ''}`,
    // Not awaited: the owner is what read-back checks later, never what this request needs.
    claim: (conversationId) => {
      ledger.conversation(owner, conversationId);
      void owners.claim(conversationId, owner);
    },
    outbound: (url, headers) => swapped(url, headers, swap),
    // Nothing kept for an owner who proved nothing, or one past their budget (owner-ledger.ts).
    mayStore: () => ledger.mayStore(owner),
    proven: () => ledger.proven(owner),
    answered: (status, kept, modelCall) => ledger.answered(owner, status, kept, modelCall),
  };
}

export function teamTenancy(keys: TeamKeys, ledgers: Ledgers): Tenancy {
  const { owners, ledger } = ledgers;
  return {
    async admitModelRequest(request, upstream, upstreamPath) {
      const found = await keys.modelOwner(request, upstream, upstreamPath);
      if (found.kind === 'refused') return found;
      // A virtual key that exists proves its owner; a provider key waits for the provider's 2xx.
      if (found.replace) ledger.prove(found.owner);
      return { kind: 'owned', owner: requestOwner(found.owner, ledgers, found.replace) };
    },
    // A key in a header or the team cookie, whichever ways the route takes a credential.
    principal: (request, accepted) => keys.principal(request, accepted),
    // Everyone's models and figures: the admin's (a scraper sends the admin key as Bearer).
    countsForAdminOnly: true,
    credentialHint:
      'a team gateway answers this with your key (x-toolmask-token, x-api-key, x-goog-api-key or Authorization: Bearer)',
    async browserCookie(token) {
      const principal = await keys.principalOfKey(token, 'throw');
      return principal ? keys.cookieFor(principal, token) : undefined;
    },
    mayRead: async (principal, conversationId) =>
      mayRead(principal, await owners.ownerOf(conversationId)),
    // A `user:` owner is named by a virtual key that exists (team-keys.ts); a `key:` one proves
    // itself by a provider's 2xx.
    proven: async (owner) => owner.startsWith('user:') || (await ledger.proven(owner)),
  };
}
