/**
 * Headers across the gateway. Requests keep every header the client sent (API keys and tokens
 * included: forwarded, never logged or stored) except the hop-by-hop ones, the gateway's own
 * `x-toolmask-*`, and `accept-encoding`: the gateway asks for an uncompressed answer so it can
 * read the usage report as the answer streams through. Responses drop hop-by-hop headers only:
 * the answer's bytes go to the client as upstream sent them (undici's `request` decodes nothing),
 * so its `content-encoding` and `content-length` still describe them. The one answer the gateway
 * changes, a rewritten JSON one (forward.ts), takes its new length.
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

/**
 * Response headers as undici's `request` gives them: names in lower case, a repeated header as an
 * array. `set-cookie` stays one per cookie; any other repeated header is joined with `, ` (as
 * fetch's `Headers` did).
 */
export function clientResponseHeaders(
  upstream: Record<string, string | string[] | undefined>,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    if (name === 'set-cookie') headers[name] = Array.isArray(value) ? value : [value];
    else headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
