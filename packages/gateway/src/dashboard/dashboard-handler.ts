/**
 * The dashboard as one request handler over a `DashboardSource`: the page (`/`, `/assets/...`)
 * and its API (`/api/...`), with the access rules of the gateway's own endpoints (own-access.ts).
 * The gateway mounts it in front of its model routes; `toolmask dashboard` serves it alone
 * (listen-dashboard.ts).
 *
 * With an auth token, a browser gets in by opening `/?token=<token>` once: the answer is a
 * redirect to `/` (the token leaves the address bar and the history) that sets an HttpOnly,
 * SameSite=Strict cookie derived from the token; the page's own requests then carry it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  dashboardCookie,
  hasToken,
  hostAllowed,
  refuseForeignHost,
  refuseWithoutToken,
  tokenMatches,
  type AccessRules,
} from '../http/own-access.js';
import { createChangeFeed, type ChangeFeed } from './change-feed.js';
import { handleDashboardApi } from './dashboard-api.js';
import type { DashboardSource } from './dashboard-source.js';
import { SECURITY_HEADERS, serveAsset } from './static-assets.js';

export interface DashboardHandlerOptions extends AccessRules {
  source: DashboardSource;
  version: string;
  now?: () => number;
}

export interface DashboardHandler {
  /** Whether `pathname` is the dashboard's (the page, its assets, its API). */
  owns(pathname: string): boolean;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** Ends the live streams (a server that stops). */
  close(): void;
  readonly feed: ChangeFeed;
}

const NEEDS_TOKEN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolmask dashboard</title></head>
<body><h1>toolmask dashboard</h1>
<p>This server needs its auth token. Open this address once with <code>?token=&lt;token&gt;</code>
added (e.g. <code>/?token=…</code>): the browser then keeps an HttpOnly cookie for it.</p>
</body></html>
`;

function needsToken(response: ServerResponse): void {
  response
    .writeHead(401, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      ...SECURITY_HEADERS,
    })
    .end(NEEDS_TOKEN_PAGE);
}

function isPage(pathname: string): boolean {
  return pathname === '/' || pathname === '/index.html';
}

export function createDashboardHandler(options: DashboardHandlerOptions): DashboardHandler {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const feed = createChangeFeed();
  const unsubscribe = options.source.onChange(() => feed.notify());
  const api = { source: options.source, feed, version: options.version, startedAt, now };

  /** `/?token=...`: the cookie for a right token, a refusal for a wrong one. */
  function exchangeToken(url: URL, response: ServerResponse): void {
    const token = options.authToken;
    if (!token || !tokenMatches(url.searchParams.get('token') ?? '', token)) {
      needsToken(response);
      return;
    }
    const cookie = dashboardCookie(token);
    response
      .writeHead(303, {
        location: '/',
        'set-cookie': `${cookie.name}=${cookie.value}; HttpOnly; SameSite=Strict; Path=/`,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      })
      .end();
  }

  return {
    feed,
    owns: (pathname) =>
      isPage(pathname) || pathname.startsWith('/assets/') || pathname.startsWith('/api/'),
    async handle(request, response) {
      const url = new URL(request.url ?? '/', 'http://dashboard');
      if (!hostAllowed(request, options)) {
        refuseForeignHost(response);
        return;
      }
      if (isPage(url.pathname) && url.searchParams.has('token')) {
        exchangeToken(url, response);
        return;
      }
      if (!hasToken(request, options, ['header', 'bearer', 'cookie'])) {
        if (isPage(url.pathname)) needsToken(response);
        else refuseWithoutToken(response);
        return;
      }
      if (url.pathname.startsWith('/api/')) {
        await handleDashboardApi(api, request, response);
        return;
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        response.writeHead(405, { allow: 'GET, HEAD' }).end();
        return;
      }
      if (!(await serveAsset(url.pathname, response))) {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      }
    },
    close() {
      unsubscribe();
      feed.closeAll();
    },
  };
}
