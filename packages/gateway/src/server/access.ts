/**
 * Who may use each route (route-table.ts): the gateway's own endpoints (the dashboard, `/api`,
 * `/metrics`, `/mcp`) and its model endpoints, shared by the gateway and `toolmask dashboard`:
 *
 * - on a loopback-bound server, every route but `/healthz` answers only a request addressed to a
 *   loopback name (Host header), so a web page cannot reach it by DNS rebinding;
 * - a request that says it comes from a web page (an `Origin` or `Sec-Fetch-Site` header) is
 *   answered only when that page is the gateway's own (its origin is the Host it addressed): the
 *   CLIs send neither, and the dashboard's page is same-origin;
 * - a request with a body must say it is JSON (`content-type: application/json` or `+json`):
 *   every client of the gateway sends JSON, and a web page can send another type (text/plain)
 *   cross-origin without the browser asking the server first (a "simple" request), but not JSON;
 * - what reads outputs or state (`/mcp`, `/api`, the dashboard) needs the gateway's access secret,
 *   a random value in a 0600 file of its 0700 state folder (state/access-secret.ts): the person
 *   who owns that folder can read it, another local account cannot, though it can reach the port;
 * - with an auth token, every endpoint needs it (the token also opens what the secret opens):
 *   `x-toolmask-token: <token>` anywhere; `Authorization: Bearer <token>` on own endpoints only (on
 *   a model request that header is the client's credential for the provider); the secret is sent
 *   the same ways, on own endpoints; and, for the dashboard's page and its reads, the dashboard
 *   cookie a browser gets by opening `/?token=<secret or token>` once (dashboard/dashboard-routes.ts).
 *
 * Tokens are compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLoopbackHost } from './loopback.js';
import type { TeamAccess } from './team-access.js';

export interface AccessRules {
  /**
   * A team gateway: routes that read outputs or state answer the principal a key or the team
   * cookie names (team-access.ts, checked by the route table), in place of the access secret.
   */
  team?: TeamAccess;
  /** Required of every client (model requests included) when set. */
  authToken?: string;
  /** Required on routes that read outputs or state (`owner` access), unless the auth token is given. */
  accessSecret?: string;
  /** Own endpoints only for requests addressed to a loopback name. */
  loopbackOnly?: boolean;
}

/** The host name of a Host header (`127.0.0.1:8787` → `127.0.0.1`, `[::1]:8787` → `[::1]`). */
export function hostName(header: string | undefined): string {
  return /^(\[[^\]]*\]|[^:]*)/.exec(header ?? '')?.[1] ?? '';
}

export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function derived(authToken: string, purpose: string): string {
  return createHmac('sha256', authToken).update(`toolmask dashboard ${purpose} v1`).digest('hex');
}

/**
 * The dashboard cookie: its value is derived from the token, so the cookie is no token (it
 * cannot authorize a model request) and changes when the token does; so does its name, so that
 * gateways with different tokens on one host (cookies ignore ports) do not overwrite each other's.
 */
export function dashboardCookie(authToken: string): { name: string; value: string } {
  return {
    name: `toolmask_dashboard_${derived(authToken, 'cookie name').slice(0, 12)}`,
    value: derived(authToken, 'cookie'),
  };
}

/** The value of the request's cookie `name` (the first of that name). */
export function cookie(request: IncomingMessage, name: string): string | undefined {
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** The first value of a request header. */
export function firstHeader(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export type Credential = 'header' | 'bearer' | 'cookie';

/** Who may reach a route: the Host it is addressed to, and how its token may come. */
export interface Access {
  /**
   * Only requests addressed to a loopback name, on a server that requires it (`loopbackOnly`),
   * with no foreign `Origin`, and with a JSON body if any: what a web page cannot send.
   */
  loopbackHost: boolean;
  /** The ways the server's auth token (when it has one) may come; none: it is not asked for. */
  token: readonly Credential[];
  /** Answers a request without the token. @default a 401 JSON error */
  refuseWithoutToken?: (response: ServerResponse) => void;
  /** Its answers are for the dashboard's page: none may be framed, none may run anything. */
  page?: boolean;
  /** It reads outputs or state: the access secret (or the auth token) is required. */
  owner?: boolean;
}

/** The kinds of route there are. */
export const ACCESS = {
  /** `/healthz`: anyone. */
  public: { loopbackHost: false, token: [] },
  /** Model requests: their `Authorization` is the client's credential for the provider. */
  model: { loopbackHost: true, token: ['header'] },
  /** `/mcp`: a client's tool call, never a browser's cookie. */
  tool: { loopbackHost: true, token: ['header', 'bearer'], owner: true },
  /** The dashboard's page, assets and API: also the dashboard cookie. */
  browser: { loopbackHost: true, token: ['header', 'bearer', 'cookie'], page: true, owner: true },
  /** `/metrics`: counts only, for a scraper (the auth token when there is one). */
  metrics: { loopbackHost: true, token: ['header', 'bearer', 'cookie'], page: true },
  /** `/?token=`: the handler checks the token in the query itself. */
  tokenExchange: { loopbackHost: true, token: [], page: true },
} as const satisfies Record<string, Access>;

/**
 * Whether `request` may reach a route of `access`; when it may not, the refusal is answered here
 * (403 for a foreign Host or Origin, 415 for a body that is not JSON, 401 without the token).
 */
export function admits(
  access: Access,
  rules: AccessRules,
  request: IncomingMessage,
  response: ServerResponse,
): boolean {
  if (access.loopbackHost) {
    const refusal = !hostAllowed(request, rules)
      ? 'not a loopback Host'
      : !originAllowed(request)
        ? "not a request of this gateway's own page (Origin)"
        : undefined;
    if (refusal) {
      refuse(response, 403, refusal);
      return false;
    }
  }
  // On a team gateway, who may read what is the route table's principal check.
  const teamOwnerRoute = rules.team !== undefined && access.owner === true;
  if (access.token.length > 0 && !teamOwnerRoute && !hasToken(request, { rules, access })) {
    (access.refuseWithoutToken ?? refuseWithoutToken)(response);
    return false;
  }
  if (access.loopbackHost && !isJsonOrEmpty(request)) {
    refuse(response, 415, 'a request body must be JSON (content-type: application/json)');
    return false;
  }
  return true;
}

/** What the dashboard cookie is derived from: the secret where there is one, else the token. */
export function cookieKey(rules: AccessRules): string | undefined {
  return rules.accessSecret ?? rules.authToken;
}

/** The values that open a route: the auth token, and on owner routes the access secret. */
export function credentialsFor(access: Access, rules: AccessRules): string[] {
  const values = access.owner ? [rules.accessSecret, rules.authToken] : [rules.authToken];
  return values.filter((value): value is string => typeof value === 'string' && value !== '');
}

/**
 * Whether the request carries a credential of the route in one of the accepted ways (always,
 * when the route asks for none).
 */
function hasToken(
  request: IncomingMessage,
  route: { rules: AccessRules; access: Access },
): boolean {
  const { rules, access } = route;
  const accepted = access.token;
  const values = credentialsFor(access, rules);
  if (values.length === 0) return true;
  const header = firstHeader(request, 'x-toolmask-token');
  const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  for (const value of values) {
    if (accepted.includes('header') && tokenMatches(header, value)) return true;
    if (accepted.includes('bearer') && tokenMatches(bearer, value)) return true;
  }
  const key = cookieKey(rules);
  if (!accepted.includes('cookie') || !key) return false;
  const expected = dashboardCookie(key);
  return tokenMatches(cookie(request, expected.name), expected.value);
}

/** Whether a request is addressed as the rules require. */
function hostAllowed(request: IncomingMessage, rules: AccessRules): boolean {
  return !rules.loopbackOnly || isLoopbackHost(hostName(request.headers.host));
}

/**
 * Not a request a web page of another origin made: no Origin (the CLIs send none) or the
 * gateway's own (the Host it addressed, over http(s)), and no `Sec-Fetch-Site` that says another
 * site or origin sent it (browsers send it on every request, a GET with no Origin included; a
 * person's own address bar is `none`).
 */
function originAllowed(request: IncomingMessage): boolean {
  const site = firstHeader(request, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = firstHeader(request, 'origin');
  if (origin === undefined) return true;
  const host = request.headers.host ?? '';
  return origin === `http://${host}` || origin === `https://${host}`;
}

const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/** A request without a body, or one whose body says it is JSON. */
function isJsonOrEmpty(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  const hasBody =
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  return !hasBody || JSON_TYPE.test(request.headers['content-type'] ?? '');
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { code: status, message: `toolmask gateway: ${message}` } }));
}

/** A 401 saying what the route needs. */
export function refuseUnauthorized(response: ServerResponse, needs: string): void {
  response
    .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
    .end(JSON.stringify({ error: { code: 401, message: `toolmask gateway: ${needs}` } }));
}

function refuseWithoutToken(response: ServerResponse): void {
  refuseUnauthorized(
    response,
    "this needs the gateway's access secret or auth token (x-toolmask-token header)",
  );
}
