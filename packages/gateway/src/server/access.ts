/**
 * Who may use each route (route-table.ts): the gateway's own endpoints (the dashboard, `/api`,
 * `/metrics`, `/mcp`) and its model endpoints, shared by the gateway and `toolmask dashboard`:
 *
 * - on a loopback-bound server, every route but `/healthz` answers only a request addressed to a
 *   loopback name (Host header), so a web page cannot reach it by DNS rebinding;
 * - a request that says it comes from a web page (an `Origin` or `Sec-Fetch-Site` header) is
 *   answered only when that page is the gateway's own (its origin is the Host it addressed): the
 *   CLIs send neither, and the dashboard's page is same-origin;
 * - what reads outputs or state (`/mcp`, `/api`, the dashboard) answers the principal the
 *   gateway's tenancy finds in the request (tenancy.ts: the access secret or auth token of a
 *   single person's gateway, local-tenancy.ts; a person's key elsewhere), and nobody else (401);
 * - with an auth token, every other endpoint needs it: `x-toolmask-token: <token>` anywhere;
 *   `Authorization: Bearer <token>` on own endpoints only (on a model request that header is the
 *   client's credential for the provider); and, for `/metrics`, the dashboard cookie;
 * - a request with a body must say it is JSON (`content-type: application/json` or `+json`):
 *   every client of the gateway sends JSON, and a web page can send another type (text/plain)
 *   cross-origin without the browser asking the server first (a "simple" request), but not JSON.
 *
 * The checks run in that order; the first that fails answers. Tokens are compared in constant
 * time (credentials.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { carriesCredential, firstHeader } from './credentials.js';
import { isLoopbackHost } from './loopback.js';
import { readsEverything, type Credential, type Principal, type Tenancy } from './tenancy.js';

export interface AccessRules {
  /** Who owns requests, and who asks on the endpoints that read state (tenancy.ts). */
  tenancy: Tenancy;
  /** Required of every client on the other endpoints (model requests included) when set. */
  authToken?: string;
  /** What the dashboard cookie is derived from, for the endpoints that take it with the token. */
  cookieKey?: string;
  /** Own endpoints only for requests addressed to a loopback name. */
  loopbackOnly?: boolean;
  /** With `loopbackOnly`, other names a request may address (a proxy's on the same machine). */
  allowedHosts?: readonly string[];
}

/**
 * The host name of a Host header (`127.0.0.1:8787` → `127.0.0.1`, `[::1]:8787` → `[::1]`); empty
 * for a header that is not `name[:port]` whole (`[::1].evil` names no loopback host).
 */
export function hostName(header: string | undefined): string {
  return /^(\[[0-9A-Fa-f:.]*\]|[^:[\]]*)(?::\d*)?$/.exec(header ?? '')?.[1] ?? '';
}

/** Host lines as they came: Node keeps the first of two, which a proxy may not (RFC 9112: 400). */
function hostLines(request: IncomingMessage): number {
  const raw = request.rawHeaders as string[] | undefined;
  if (!raw) return request.headers.host === undefined ? 0 : 1;
  let count = 0;
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index]!.toLowerCase() === 'host') count++;
  }
  return count;
}

/** Who may reach a route: the Host it is addressed to, and how its token may come. */
export interface Access {
  /**
   * Only requests addressed to a loopback name, on a server that requires it (`loopbackOnly`),
   * with no foreign `Origin`, and with a JSON body if any: what a web page cannot send.
   */
  loopbackHost: boolean;
  /**
   * The ways a credential may come: the server's auth token (when it has one), or on a route that
   * reads state whatever its tenancy asks for; none: nothing is asked for.
   */
  token: readonly Credential[];
  /** Answers a request without the credential. @default a 401 JSON error */
  refuseWithoutToken?: (response: ServerResponse) => void;
  /** Its answers are for the dashboard's page: none may be framed, none may run anything. */
  page?: boolean;
  /** It reads outputs or state: the tenancy's principal is required (and given to the handler). */
  owner?: boolean;
  /**
   * It shows the gateway's counts (`/metrics`): where the tenancy keeps them for the admin
   * (`Tenancy.countsForAdminOnly`: counts that name everyone's models), only the admin.
   */
  counts?: boolean;
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
  metrics: { loopbackHost: true, token: ['header', 'bearer', 'cookie'], page: true, counts: true },
  /** `/?token=`: the handler checks the token in the query itself. */
  tokenExchange: { loopbackHost: true, token: [], page: true },
} as const satisfies Record<string, Access>;

/** A request let through: who asks, on a route that reads state. */
export interface Admitted {
  principal?: Principal;
}

/**
 * Whether `request` may reach a route of `access`, and who asks; when it may not, the refusal is
 * answered here (403 for a foreign Host or Origin, 401 without a credential, 415 for a body that
 * is not JSON) and the result is undefined.
 */
export async function admits(
  access: Access,
  rules: AccessRules,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<Admitted | undefined> {
  if (hostLines(request) > 1) {
    refuse(response, 400, 'more than one Host header');
    return undefined;
  }
  if (access.loopbackHost) {
    const refusal = !hostAllowed(request, rules)
      ? 'not a loopback Host'
      : !originAllowed(request)
        ? "not a request of this gateway's own page (Origin)"
        : undefined;
    if (refusal) {
      refuse(response, 403, refusal);
      return undefined;
    }
  }
  let principal: Principal | undefined;
  if (access.counts && rules.tenancy.countsForAdminOnly) {
    principal = await rules.tenancy.principal(request, access.token);
    if (!readsEverything(principal)) {
      refuseUnauthorized(response, 'the counts of this gateway need the admin key');
      return undefined;
    }
  } else if (access.owner) {
    principal = await rules.tenancy.principal(request, access.token);
    if (!principal) {
      const hint = rules.tenancy.credentialHint;
      (access.refuseWithoutToken ?? ((answer) => refuseUnauthorized(answer, hint)))(response);
      return undefined;
    }
  } else if (
    access.token.length > 0 &&
    !carriesCredential(request, access.token, [rules.authToken], rules.cookieKey)
  ) {
    (access.refuseWithoutToken ?? refuseWithoutToken)(response);
    return undefined;
  }
  if (access.loopbackHost && !isJsonOrEmpty(request)) {
    refuse(response, 415, 'a request body must be JSON (content-type: application/json)');
    return undefined;
  }
  return principal ? { principal } : {};
}

/** Whether a request is addressed as the rules require. */
function hostAllowed(request: IncomingMessage, rules: AccessRules): boolean {
  if (!rules.loopbackOnly) return true;
  const name = hostName(request.headers.host).toLowerCase();
  return isLoopbackHost(name) || (rules.allowedHosts?.includes(name) ?? false);
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
