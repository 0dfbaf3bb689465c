/**
 * The single-user gateway's tenancy (tenancy.ts): one person, so a model request carries no
 * owner (its usage record names none, its conversation key is its session's, nothing is claimed,
 * and it goes upstream with the key it came with).
 *
 * The endpoints that read state (`/mcp`, `/api`, the dashboard) answer whoever shows the
 * gateway's access secret (a random value in a 0600 file of its 0700 state folder:
 * state/access-secret.ts; the person who owns that folder can read it, another local account
 * cannot, though it can reach the port) or its auth token, when it has one: as the
 * `x-toolmask-token` header, a Bearer token, or the dashboard cookie a browser gets by opening
 * `/?token=<secret or token>` once. That person reads everything.
 */
import { carriesCredential, dashboardCookie, tokenMatches } from './credentials.js';
import type { Principal, RequestOwner, Tenancy } from './tenancy.js';

export interface LocalTenancyOptions {
  /** Opens what reads outputs or state. */
  accessSecret?: string;
  /** The gateway's auth token: it opens what the secret opens. */
  authToken?: string;
}

/** The gateway's one person: every model request is theirs, as it came. */
const ONE_PERSON: RequestOwner = {
  scopeSession: (session) => session,
  claim: () => undefined,
  outbound: (url, headers) => ({ url, headers }),
  mayStore: async () => true,
  proven: async () => true,
  answered: () => undefined,
};

const EVERYTHING: Principal = { kind: 'admin' };

export function localTenancy(options: LocalTenancyOptions): Tenancy {
  const values = [options.accessSecret, options.authToken].filter(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  // The dashboard cookie is derived from the secret where there is one, else from the token.
  const cookieKey = options.accessSecret ?? options.authToken;
  return {
    admitModelRequest: async () => ({ kind: 'owned', owner: ONE_PERSON }),
    principal: async (request, accepted) =>
      carriesCredential(request, accepted, values, cookieKey) ? EVERYTHING : undefined,
    credentialHint:
      "this needs the gateway's access secret or auth token (x-toolmask-token header)",
    // One person's counts: the auth token, when there is one, guards them (access.ts).
    countsForAdminOnly: false,
    async browserCookie(token) {
      if (!cookieKey || !values.some((value) => tokenMatches(token, value))) return undefined;
      return dashboardCookie(cookieKey);
    },
    // Everything is the one person's, who is the only one let in.
    mayRead: async (principal) => principal !== undefined,
  };
}
