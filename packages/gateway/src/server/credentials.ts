/**
 * How a request carries a credential to the gateway: a header, a Bearer token, the dashboard
 * cookie. What the access rules (access.ts) and the tenancies (local-tenancy.ts,
 * team/team-keys.ts) read a request with; values are compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Credential } from './tenancy.js';

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

/**
 * Whether the request carries one of `values` in one of the `accepted` ways: the
 * `x-toolmask-token` header, `Authorization: Bearer`, or the dashboard cookie derived from
 * `cookieKey`. Always, when there is no value to ask for.
 */
export function carriesCredential(
  request: IncomingMessage,
  accepted: readonly Credential[],
  values: readonly (string | undefined)[],
  cookieKey: string | undefined,
): boolean {
  const asked = values.filter(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  if (asked.length === 0) return true;
  const header = firstHeader(request, 'x-toolmask-token');
  const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  for (const value of asked) {
    if (accepted.includes('header') && tokenMatches(header, value)) return true;
    if (accepted.includes('bearer') && tokenMatches(bearer, value)) return true;
  }
  if (!accepted.includes('cookie') || !cookieKey) return false;
  const expected = dashboardCookie(cookieKey);
  return tokenMatches(cookie(request, expected.name), expected.value);
}
