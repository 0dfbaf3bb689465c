/**
 * Headers across the gateway. Requests keep every header the client sent (API keys and tokens
 * included: forwarded, never logged or stored) except the hop-by-hop ones, the gateway's own
 * `x-toolmask-*`, and `accept-encoding`: the gateway asks for an uncompressed answer so it can
 * read the usage report as the answer streams through. Responses drop hop-by-hop headers and any
 * encoding or length (fetch has already decoded the body).
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

export function upstreamRequestHeaders(incoming: IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('x-toolmask-')) continue;
    if (name === 'host' || name === 'content-length' || name === 'accept-encoding') continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  headers['accept-encoding'] = 'identity';
  return headers;
}

export function clientResponseHeaders(upstream: Headers): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  upstream.forEach((value, name) => {
    if (HOP_BY_HOP.has(name) || name === 'content-encoding' || name === 'content-length') return;
    if (name === 'set-cookie') return; // Headers joins them; re-added below, one per cookie
    headers[name] = value;
  });
  const cookies = upstream.getSetCookie?.() ?? [];
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  return headers;
}
