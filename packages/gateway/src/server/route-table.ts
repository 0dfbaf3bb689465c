/**
 * The gateway's HTTP edge as one table: every route says which paths and methods it answers, who
 * may reach it (access.ts), and what handles it. `dispatch` finds the first route that matches a
 * request, checks its access (access.ts: who asks, on a route that reads state, is handed over with
 * the request), and hands it over; a path no route has is 404, a method a route does not take is
 * 405. The model routes, `/mcp`, the dashboard with its `/api`, `/metrics` and
 * `/healthz` are rows of one table (gateway.ts), and `toolmask dashboard` serves the dashboard's
 * rows alone (dashboard/listen-dashboard.ts), so each check is written once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '@toolmask/core/errors';
import { admits, type Access, type AccessRules } from './access.js';
import type { Principal } from './tenancy.js';

export interface Route {
  /** The pathname answered: exactly, or every pathname under it when `prefix` is set; `*`: any. */
  path: string;
  prefix?: boolean;
  /** Only when the URL carries this query parameter. */
  withQuery?: string;
  /** The methods taken; any when unset. */
  methods?: readonly string[];
  access: Access;
  handle(
    request: IncomingMessage,
    response: ServerResponse,
    routed: RoutedRequest,
  ): Promise<void> | void;
}

/** A request's path and query, as it wrote them (the path is not normalised). */
export interface RequestTarget {
  pathname: string;
  query: URLSearchParams;
}

/** What a route's handler is given besides the request: its target, and who asks. */
export interface RoutedRequest extends RequestTarget {
  /** On a route that reads state (`Access.owner`): the principal the tenancy found. */
  principal?: Principal;
}

export function requestTarget(rawUrl: string): RequestTarget {
  const queryAt = rawUrl.indexOf('?');
  return {
    pathname: queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt),
    query: new URLSearchParams(queryAt < 0 ? '' : rawUrl.slice(queryAt + 1)),
  };
}

function matches(route: Route, { pathname, query }: RequestTarget): boolean {
  const under = route.path.endsWith('/') ? route.path : `${route.path}/`;
  const onPath =
    route.path === '*' ||
    pathname === route.path ||
    (route.prefix === true && pathname.startsWith(under));
  return onPath && (route.withQuery === undefined || query.has(route.withQuery));
}

/** Answers `request` with the first route of `routes` that matches it. */
export async function dispatch(
  routes: readonly Route[],
  rules: AccessRules,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  // No answer of the gateway's is to be read as another type than it says.
  response.setHeader('x-content-type-options', 'nosniff');
  const rawUrl = request.url ?? '/';
  if (!rawUrl.startsWith('/')) {
    // An absolute-form target (`POST http://host/...`) is for a forward proxy, which this is not.
    response.writeHead(400, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        error: { code: 400, message: 'toolmask gateway: the request target must be a path' },
      }),
    );
    return;
  }
  const target = requestTarget(rawUrl);
  const route = routes.find((candidate) => matches(candidate, target));
  if (!route) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    return;
  }
  if (route.access.page) {
    // A page's own answer (static-assets.ts) sets its policy; every other one allows nothing.
    response.setHeader('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
    response.setHeader('x-frame-options', 'DENY');
  }
  const admitted = await admits(route.access, rules, request, response);
  if (!admitted) return;
  if (route.methods && !route.methods.includes(request.method ?? 'GET')) {
    response.writeHead(405, { allow: route.methods.join(', ') }).end();
    return;
  }
  await route.handle(request, response, { ...target, ...admitted });
}

/** Requests being handled, and a wait for none to be (a server that stops). */
export class RequestsInFlight {
  private count = 0;
  private readonly waiting: Array<() => void> = [];

  get size(): number {
    return this.count;
  }

  /** Counts `handling` until it settles. */
  track(handling: Promise<void>): void {
    this.count++;
    void handling.finally(() => {
      this.count--;
      if (this.count === 0) for (const resolve of this.waiting.splice(0)) resolve();
    });
  }

  /** Resolves when none is in flight, or after `timeoutMs`. */
  async settled(timeoutMs: number): Promise<void> {
    if (this.count === 0) return;
    await Promise.race([
      new Promise<void>((resolve) => this.waiting.push(resolve)),
      new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
  }
}

/**
 * `dispatch` as a server's request handler that never throws: whatever a route throws is logged
 * and answered 500 (or the connection cut, once an answer is under way).
 */
export function serveRoutes(table: {
  routes: readonly Route[];
  rules: AccessRules;
  log: (line: string) => void;
  inFlight?: RequestsInFlight;
}): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const handling = dispatch(table.routes, table.rules, request, response).catch(
      (error: unknown) => {
        table.log(`request failed: ${describeError(error)}`);
        if (response.headersSent) {
          response.destroy();
          return;
        }
        response.writeHead(500, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            error: { code: 500, message: 'toolmask gateway: internal error' },
          }),
        );
      },
    );
    table.inFlight?.track(handling);
  };
}
