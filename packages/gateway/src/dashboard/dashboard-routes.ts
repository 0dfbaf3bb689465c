/**
 * The dashboard as routes over a `DashboardSource`: the page (`/`, `/assets/...`) and its API
 * (`/api/...`), with the access rules of the gateway's own endpoints (server/access.ts). The
 * gateway puts them in its route table before its model routes; `toolmask dashboard` serves them
 * alone (listen-dashboard.ts).
 *
 * A browser gets in by opening `/?token=<access secret or auth token>` once (the launchers and
 * `toolmask gateway` print that address): the answer is a redirect to `/` (the token leaves the
 * address bar and the history) that sets an HttpOnly, SameSite=Strict cookie derived from the
 * secret; the page's own requests then carry it. What a token opens, and what each request then
 * sees, is the gateway's tenancy's (server/tenancy.ts): on a team gateway the token is the
 * person's key, the cookie names its owner, and each request sees that owner's sessions only
 * (readable-source.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StoreUnavailableError } from '../errors.js';
import { ACCESS, type AccessRules } from '../server/access.js';
import type { RequestTarget, Route, RoutedRequest } from '../server/route-table.js';
import { builtInPrices, type PriceTable } from '../usage/model-prices.js';
import { createChangeFeed, type ChangeFeed } from './change-feed.js';
import { firstView, handleDashboardApi, type DashboardApiOptions } from './dashboard-api.js';
import type { DashboardSource } from './dashboard-source.js';
import { withFirstView } from './first-view-html.js';
import { readableSource } from './readable-source.js';
import { ACCESS_SECRET_SIGN_IN } from './sign-in-pages.js';
import { SECURITY_HEADERS, serveAsset } from './static-assets.js';

export interface DashboardOptions {
  source: DashboardSource;
  /** The access rules of its routes; each request sees what its principal may read. */
  rules: AccessRules;
  /** What a browser that has not said who it is gets (sign-in-pages.ts). @default the access secret's */
  signInPage?: string;
  version: string;
  now?: () => number;
  /** The prices of the money figures. @default the built-in table */
  prices?: PriceTable;
}

export interface Dashboard {
  /** Its rows of a route table. */
  routes: Route[];
  /** Ends the live streams (a server that stops). */
  close(): void;
  readonly feed: ChangeFeed;
}

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

/** Whether the browser reached the gateway over TLS (its own, or a terminator's `X-Forwarded-Proto`). */
function overTls(request: IncomingMessage): boolean {
  const forwarded = request.headers['x-forwarded-proto'];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return proto?.toLowerCase() === 'https' || 'encrypted' in request.socket;
}

/**
 * To the page, with the cookie (the token leaves the address bar and the history): `Secure`
 * behind TLS, for as long as the tenancy says when it says.
 */
function redirectWithCookie(
  request: IncomingMessage,
  response: ServerResponse,
  cookie: { name: string; value: string; maxAgeSeconds?: number },
): void {
  const attributes = [
    `${cookie.name}=${cookie.value}`,
    'HttpOnly',
    'SameSite=Strict',
    'Path=/',
    ...(cookie.maxAgeSeconds !== undefined ? [`Max-Age=${cookie.maxAgeSeconds}`] : []),
    ...(overTls(request) ? ['Secure'] : []),
  ];
  response
    .writeHead(303, {
      location: '/',
      'set-cookie': attributes.join('; '),
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    })
    .end();
}

const PAGES = ['/', '/index.html'];
const READS = ['GET', 'HEAD'];

export function createDashboard(options: DashboardOptions): Dashboard {
  const needsToken = refusal(options.signInPage ?? ACCESS_SECRET_SIGN_IN);
  const now = options.now ?? Date.now;
  const startedAt = now();
  const feed = createChangeFeed();
  const unsubscribe = options.source.onChange((owner) => feed.notify(owner));
  const api: DashboardApiOptions = {
    source: options.source,
    feed,
    version: options.version,
    startedAt,
    now,
    prices: options.prices ?? builtInPrices(),
  };
  const { tenancy } = options.rules;

  /** The API as the principal who asks may see it. */
  const apiFor = ({ principal }: RoutedRequest): DashboardApiOptions => ({
    ...api,
    source: readableSource(options.source, principal, tenancy),
    // Its own changes only (change-feed.ts); whoever reads everything sees all of them. An owner
    // who proved nothing takes a stream from the strangers' pool.
    viewer: async () =>
      principal?.kind === 'owner'
        ? { owner: principal.owner, proven: (await tenancy.proven?.(principal.owner)) ?? true }
        : {},
    // And its reads of outputs take that owner's read slots (the admin's are one reader's).
    reader: principal?.kind === 'owner' ? principal.owner : 'admin',
  });

  /** `/?token=...`: the cookie that token earns (the tenancy's), a refusal for anything else. */
  async function exchangeToken(
    request: IncomingMessage,
    response: ServerResponse,
    { query }: RequestTarget,
  ): Promise<void> {
    let cookie: Awaited<ReturnType<typeof tenancy.browserCookie>>;
    try {
      cookie = await tenancy.browserCookie(query.get('token') ?? '');
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      // A key that cannot be checked now (a team's store down or frozen): try again, not sign in.
      response
        .writeHead(503, {
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
          'retry-after': '1',
        })
        .end(`${error.message}\n`);
      return;
    }
    if (!cookie) {
      needsToken(response);
      return;
    }
    redirectWithCookie(request, response, cookie);
  }

  return {
    feed,
    routes: dashboardRoutes({ apiFor, exchangeToken, needsToken }),
    close() {
      unsubscribe();
      feed.closeAll();
    },
  };
}

/** The dashboard's rows of a route table. */
function dashboardRoutes(handlers: {
  apiFor: (routed: RoutedRequest) => DashboardApiOptions;
  exchangeToken: (
    request: IncomingMessage,
    response: ServerResponse,
    target: RequestTarget,
  ) => Promise<void>;
  needsToken: (response: ServerResponse) => void;
}): Route[] {
  const { apiFor, exchangeToken, needsToken } = handlers;
  const page = { ...ACCESS.browser, refuseWithoutToken: needsToken };
  return [
    ...PAGES.map((path): Route => ({
      path,
      withQuery: 'token',
      access: ACCESS.tokenExchange,
      handle: (request, response, routed) => exchangeToken(request, response, routed),
    })),
    {
      path: '/api/',
      prefix: true,
      access: ACCESS.browser,
      handle: (request, response, routed) => handleDashboardApi(apiFor(routed), request, response),
    },
    ...PAGES.map((path): Route => ({
      path,
      methods: READS,
      access: page,
      handle: (_request, response, routed) => servePage(apiFor(routed), response),
    })),
    {
      path: '/assets/',
      prefix: true,
      methods: READS,
      access: ACCESS.browser,
      handle: (_request, response, { pathname }) => serveOrNotFound(pathname, response),
    },
  ];
}
