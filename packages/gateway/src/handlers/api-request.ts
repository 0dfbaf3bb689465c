/**
 * The gateway's JSON API (`/api/...`): `GET /api/sessions` (every conversation of the kept
 * history, folded, with totals), `GET /api/sessions/<id>` (one conversation's requests, oldest
 * first) and `GET /api/status` (version, state folder, settings file).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayContext } from '../gateway-context.js';
import { summarizeSessions } from '../usage/sessions.js';
import { GATEWAY_VERSION } from '../version.js';

function json(response: ServerResponse, status: number, value: unknown): void {
  response
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    })
    .end(JSON.stringify(value));
}

export async function handleApiRequest(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  info: { stateDir: string; settingsFile: string },
): Promise<void> {
  if (request.method !== 'GET') {
    json(response, 405, {
      error: { code: 405, message: 'toolmask gateway: the API is read-only (GET)' },
    });
    return;
  }
  const url = new URL(request.url ?? '/', 'http://gateway');
  const pathname = url.pathname;
  const since = Number(url.searchParams.get('since'));
  const query = Number.isFinite(since) && since > 0 ? { sinceMs: since } : {};
  if (pathname === '/api/sessions') {
    json(response, 200, summarizeSessions(await context.usage.list(query)));
    return;
  }
  const one = /^\/api\/sessions\/([0-9a-f]{8,64})$/.exec(pathname);
  if (one) {
    const records = await context.usage.list({ ...query, conversationId: one[1] as string });
    if (records.length === 0) {
      json(response, 404, { error: { code: 404, message: 'toolmask gateway: no such session' } });
      return;
    }
    json(response, 200, { id: one[1], requests: records });
    return;
  }
  if (pathname === '/api/status') {
    json(response, 200, {
      version: GATEWAY_VERSION,
      stateDir: info.stateDir,
      settingsFile: info.settingsFile,
      conversationsInMemory: context.conversations.size,
      retainedBytes: context.conversations.retainedBytes(),
    });
    return;
  }
  json(response, 404, { error: { code: 404, message: `toolmask gateway: no API at ${pathname}` } });
}
