/**
 * The route table: the first matching row answers, its access is checked before its method, and
 * a thrown error becomes a 500 (or a cut connection once an answer is under way).
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ACCESS, type AccessRules } from './access.js';
import { localTenancy } from './local-tenancy.js';
import { RequestsInFlight, requestTarget, serveRoutes, type Route } from './route-table.js';

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

const answer = (text: string) => (_request: IncomingMessage, response: ServerResponse) => {
  response.writeHead(200, { 'content-type': 'text/plain' }).end(text);
};

/** A single person's rules: the tenancy that opens what reads state with the token, when one is set. */
function rulesWith(authToken?: string, extra: Partial<AccessRules> = {}): AccessRules {
  return {
    tenancy: localTenancy(authToken ? { authToken } : {}),
    ...(authToken ? { authToken } : {}),
    ...extra,
  };
}

async function serve(routes: Route[], rules: AccessRules = rulesWith(), log: string[] = []) {
  const server = createServer(serveRoutes({ routes, rules, log: (line) => log.push(line) }));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(
    async (path: string, init: RequestInit = {}) => {
      const response = await fetch(base + path, init);
      return { status: response.status, text: await response.text(), headers: response.headers };
    },
    { base },
  );
}

describe('the route table', () => {
  it('answers with the first row that matches: exact, prefix, query, then the catch-all', async () => {
    const get = await serve([
      { path: '/', withQuery: 'token', access: ACCESS.public, handle: answer('exchange') },
      { path: '/api/', prefix: true, access: ACCESS.public, handle: answer('api') },
      { path: '/', access: ACCESS.public, handle: answer('page') },
      { path: '*', access: ACCESS.public, handle: answer('model') },
    ]);
    expect((await get('/?token=x')).text).toBe('exchange');
    expect((await get('/?other=x')).text).toBe('page');
    expect((await get('/api/sessions')).text).toBe('api');
    // A prefix holds only whole segments below it.
    expect((await get('/apiary')).text).toBe('model');
    expect((await get('/v1beta/models/m:generateContent')).text).toBe('model');
  });

  it('a path no row has is 404; a method a row does not take is 405 with Allow', async () => {
    const get = await serve([
      { path: '/metrics', methods: ['GET'], access: ACCESS.public, handle: answer('m') },
    ]);
    expect((await get('/nowhere')).status).toBe(404);
    const post = await get('/metrics', { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('checks access before anything else: a token, and the Host of a loopback-only server', async () => {
    const route: Route = {
      path: '/mcp',
      methods: ['POST'],
      access: ACCESS.tool,
      handle: answer('ok'),
    };
    const get = await serve([route], rulesWith('secret', { loopbackOnly: true }));
    const url = get.base;
    // Without the token even a wrong method is refused as unauthorized.
    expect((await get('/mcp')).status).toBe(401);
    const headers = { authorization: 'Bearer secret' };
    expect((await get('/mcp', { method: 'POST', headers })).status).toBe(200);
    // fetch never sends another Host: a raw request does, as a rebinding page's would arrive.
    const foreign = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          hostname: '127.0.0.1',
          port: new URL(url).port,
          path: '/mcp',
          method: 'POST',
          headers: { ...headers, host: 'evil.test' },
        },
        (response) => resolve(response.statusCode ?? 0),
      );
      request.on('error', reject);
      request.end();
    });
    expect(foreign).toBe(403);
  });

  it('a thrown error is logged and answered 500, and the count of requests in flight settles', async () => {
    const log: string[] = [];
    const inFlight = new RequestsInFlight();
    const server = createServer(
      serveRoutes({
        routes: [
          {
            path: '*',
            access: ACCESS.public,
            handle: () => {
              throw new Error('boom');
            },
          },
        ],
        rules: rulesWith(),
        log: (line) => log.push(line),
        inFlight,
      }),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: { code: 500, message: 'toolmask gateway: internal error' },
    });
    await inFlight.settled(1_000);
    expect(inFlight.size).toBe(0);
    expect(log).toEqual(['request failed: boom']);
  });

  it('reads a target as written: the path is not normalised, the query is parsed', () => {
    const target = requestTarget('//host/x?token=a%20b');
    expect(target.pathname).toBe('//host/x');
    expect(target.query.get('token')).toBe('a b');
  });
});
