/**
 * Tenancy: who a request belongs to, as one strategy the gateway is given when it is wired and
 * asks at the edge. It answers, for a model request, who owns it, which key goes upstream (the
 * key swap) and how its owner scopes and claims a conversation; for the gateway's own endpoints
 * that read state, who asks and what they may read. Nothing past the edge (the pipeline, the
 * access rules, the route table) knows which tenancy it is.
 *
 * Two implementations: the single-user gateway's (local-tenancy.ts: one person, the access
 * secret, no claims) and a team gateway's (team/team-tenancy.ts: keys name owners, conversations
 * are claimed, a virtual key is swapped for the team's provider key).
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { WireErrorCode } from '../errors.js';

/** Who asks on the gateway's own endpoints that read state. */
export type Principal =
  /** Reads only what `owner` owns. */
  | { kind: 'owner'; owner: string }
  /** Reads everything: the single-user gateway's person, or a team's admin. */
  | { kind: 'admin' };

/** The ways a credential may come on the gateway's own endpoints (access.ts). */
export type Credential = 'header' | 'bearer' | 'cookie';

/** Where a model request goes upstream, and with which headers. */
export interface Outbound {
  url: string;
  headers: IncomingHttpHeaders;
}

/** A model request's owner, as the tenancy found it at the edge. */
export interface RequestOwner {
  /** The owner's name on the usage record; absent for the single-user gateway's one person. */
  readonly name?: string;
  /** The session signal as the conversation key mixes it in: scoped to this owner. */
  scopeSession(session: string | undefined): string | undefined;
  /** Claims a conversation for this owner, once (best effort; a turn never waits for it). */
  claim(conversationId: string): void;
  /** The request as it goes upstream: where, and with the key the provider is to see. */
  outbound(upstreamUrl: string, headers: IncomingHttpHeaders): Outbound;
  /**
   * Whether anything may be kept for this request (its conversation, outputs, usage record); false:
   * it goes upstream as it came and leaves nothing behind (an owner not proven, or past a budget).
   */
  mayStore(): Promise<boolean>;
  /**
   * Whether the owner proved who they are (a virtual key that exists, a provider key whose model
   * call the provider accepted): only then is a body's declared length held before it arrives.
   */
  proven(): Promise<boolean>;
  /**
   * The provider's answer (its status, 0 when unreached), and what was kept for the request.
   * `modelCall`: the request was a model call (a route the gateway masks), the one kind of
   * request whose 2xx shows the provider took its key.
   */
  answered(
    status: number,
    kept: { outputBytes: number; records: number },
    modelCall: boolean,
  ): void;
}

/** A model request's owner, or why it is refused (answered in its protocol's error style). */
export type ModelAdmission =
  | { kind: 'owned'; owner: RequestOwner }
  | { kind: 'refused'; status: number; code: WireErrorCode; message: string };

export interface Tenancy {
  /**
   * Who owns a model request on the route of `upstream` (its API: `gemini`, `anthropic`, ...)
   * for `upstreamPath` (the path the upstream gets, with its query), and how it goes upstream;
   * or why it is refused.
   */
  admitModelRequest(
    request: IncomingMessage,
    upstream: string,
    upstreamPath: string,
  ): Promise<ModelAdmission>;
  /**
   * Who asks on an endpoint that reads state, from the credentials it accepts (`accepted`);
   * undefined: nobody this tenancy knows (the request is refused, 401).
   */
  principal(
    request: IncomingMessage,
    accepted: readonly Credential[],
  ): Promise<Principal | undefined>;
  /** What a request refused that way is told it needs. */
  readonly credentialHint: string;
  /**
   * Whether the gateway's counts (`/metrics`) are for the admin alone: they name the models and
   * figures of everyone a gateway serves.
   */
  readonly countsForAdminOnly: boolean;
  /**
   * The cookie a browser keeps after opening `/?token=<token>` (for `maxAgeSeconds` when set);
   * undefined: it opens nothing. Throws `StoreUnavailableError` for a token that cannot be checked
   * now (answered 503).
   */
  browserCookie(
    token: string,
  ): Promise<{ name: string; value: string; maxAgeSeconds?: number } | undefined>;
  /** Whether `principal` may read the conversation's outputs and state. */
  mayRead(principal: Principal | undefined, conversationId: string): Promise<boolean>;
  /**
   * Whether an owner proved who they are (a team's virtual key that exists, or a provider key its
   * provider accepted), so scarce shared things (the live feed's streams) go to them before
   * strangers. Absent: every owner has.
   */
  proven?(owner: string): Promise<boolean>;
}

/** Whether `principal` may read everyone's state (a gateway's totals). */
export function readsEverything(principal: Principal | undefined): boolean {
  return principal?.kind === 'admin';
}
