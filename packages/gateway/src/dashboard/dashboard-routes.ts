/**
 * The dashboard as routes over a `DashboardSource`: the page (`/`, `/assets/...`) and its API
 * (`/api/...`), with the access rules of the gateway's own endpoints (server/access.ts). The
 * gateway puts them in its route table before its model routes; `toolmask dashboard` serves them
 * alone (listen-dashboard.ts).
 *
 * A browser gets in by opening `/?token=<access secret or auth token>` once (the launchers and
 * `toolmask gateway` print that address): the answer is a redirect to `/` (the token leaves the
 * address bar and the history) that sets an HttpOnly, SameSite=Strict cookie derived from the
 * secret; the page's own requests then carry it. On a team gateway, the token is the person's
 * key, the cookie names its owner (server/team-access.ts), and each request sees that owner's
 * sessions only (`scope`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ACCESS,
  cookieKey,
  credentialsFor,
  dashboardCookie,
  tokenMatches,
  type AccessRules,
} from '../server/access.js';
import type { RequestTarget, Route } from '../server/route-table.js';
import type { TeamAccess } from '../server/team-access.js';
import { createChangeFeed, type ChangeFeed } from './change-feed.js';
import { firstView, handleDashboardApi, type DashboardApiOptions } from './dashboard-api.js';
import type { DashboardSource } from './dashboard-source.js';
import { withFirstView } from './first-view-html.js';
import { SECURITY_HEADERS, serveAsset } from './static-assets.js';

export interface DashboardOptions extends AccessRules {
  source: DashboardSource;
  /**
   * The source as one request may see it (a team gateway: the asking owner's sessions only).
   * @default the whole source
   */
  scope?: (source: DashboardSource, request: IncomingMessage) => DashboardSource;
  version: string;
  now?: () => number;
}

export interface Dashboard {
  /** Its rows of a route table. */
  routes: Route[];
  /** Ends the live streams (a server that stops). */
  close(): void;
  readonly feed: ChangeFeed;
}

const NEEDS_TOKEN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolmask dashboard</title></head>
<body><h1>toolmask dashboard</h1>
<p>The dashboard shows your sessions' outputs, so it asks who you are. Open the address that
<code>toolmask gateway</code> (or <code>toolmask gemini</code>, <code>toolmask qwen</code>) printed,
the one ending in <code>/?token=…</code> (the value is also in the gateway's state folder, in the
file <code>access-secret</code>): the browser then keeps an HttpOnly cookie for it.</p>
</body></html>
`;

const NEEDS_KEY_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolmask dashboard</title></head>
<body><h1>toolmask dashboard</h1>
<p>This is a team gateway: it shows each person their own sessions and outputs, so it asks who you
are. Open this address once with your key at the end, <code>/?token=&lt;your key&gt;</code> (the
virtual key <code>toolmask keys create</code> made for you, or the provider key your client
sends): the browser then keeps an HttpOnly cookie that names you, not your key.</p>
</body></html>
`;

function refusal(page: string): (response: ServerResponse) => void {
  return (response) =>
    response
      .writeHead(401, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        ...SECURITY_HEADERS,
      })
      .end(page);
}

async function serveOrNotFound(
  pathname: string,
  response: ServerResponse,
  page?: (html: string) => string,
): Promise<void> {
  if (!(await serveAsset(pathname, response, page))) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
  }
}

/**
 * The page with its first view's figures in it (first-view-html.ts), served behind the same
 * access rules as the API that answers them. When they cannot be read, the plain page: it fetches
 * them itself and says what went wrong.
 */
async function servePage(api: DashboardApiOptions, response: ServerResponse): Promise<void> {
  let page: ((html: string) => string) | undefined;
  try {
    const view = await firstView(api);
    page = (html) => withFirstView(html, view);
  } catch {
    page = undefined;
  }
  await serveOrNotFound('/', response, page);
}

/** To the page, with the cookie (the token leaves the address bar and the history). */
function redirectWithCookie(
  response: ServerResponse,
  cookie: { name: string; value: string },
): void {
  response
    .writeHead(303, {
      location: '/',
      'set-cookie': `${cookie.name}=${cookie.value}; HttpOnly; SameSite=Strict; Path=/`,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    })
    .end();
}

const PAGES = ['/', '/index.html'];
const READS = ['GET', 'HEAD'];

export function createDashboard(options: DashboardOptions): Dashboard {
  const needsToken = refusal(options.team ? NEEDS_KEY_PAGE : NEEDS_TOKEN_PAGE);
  const now = options.now ?? Date.now;
  const startedAt = now();
  const feed = createChangeFeed();
  const unsubscribe = options.source.onChange(() => feed.notify());
  const api: DashboardApiOptions = {
    source: options.source,
    feed,
    version: options.version,
    startedAt,
    now,
  };

  /** The API as `request` may see it. */
  const apiFor = (request: IncomingMessage): DashboardApiOptions =>
    options.scope ? { ...api, source: options.scope(options.source, request) } : api;

  /** A team gateway's `/?token=<key>`: a cookie naming the key's owner (server/team-access.ts). */
  async function exchangeTeamKey(
    team: TeamAccess,
    response: ServerResponse,
    { query }: RequestTarget,
  ): Promise<void> {
    const principal = await team.principalOfKey(query.get('token') ?? '');
    if (!principal) {
      needsToken(response);
      return;
    }
    redirectWithCookie(response, await team.cookieFor(principal));
  }

  /** `/?token=...`: the cookie for the access secret or the auth token, a refusal for anything else. */
  function exchangeToken(response: ServerResponse, { query }: RequestTarget): void {
    const given = query.get('token') ?? '';
    const key = cookieKey(options);
    const accepted = credentialsFor(ACCESS.browser, options);
    if (!key || !accepted.some((value) => tokenMatches(given, value))) {
      needsToken(response);
      return;
    }
    redirectWithCookie(response, dashboardCookie(key));
  }

  const page = { ...ACCESS.browser, refuseWithoutToken: needsToken };
  return {
    feed,
    routes: [
      ...PAGES.map((path): Route => ({
        path,
        withQuery: 'token',
        access: ACCESS.tokenExchange,
        handle: (_request, response, target) =>
          options.team
            ? exchangeTeamKey(options.team, response, target)
            : exchangeToken(response, target),
      })),
      {
        path: '/api/',
        prefix: true,
        access: ACCESS.browser,
        handle: (request, response) => handleDashboardApi(apiFor(request), request, response),
      },
      ...PAGES.map((path): Route => ({
        path,
        methods: READS,
        access: page,
        handle: (request, response) => servePage(apiFor(request), response),
      })),
      {
        path: '/assets/',
        prefix: true,
        methods: READS,
        access: ACCESS.browser,
        handle: (_request, response, { pathname }) => serveOrNotFound(pathname, response),
      },
    ],
    close() {
      unsubscribe();
      feed.closeAll();
    },
  };
}
