/**
 * Requests a web page, a rebinding host name or a confused client could send, against a
 * loopback gateway: each is refused before anything reaches the upstream or the state folder,
 * while the requests the CLIs really send go through. And no answer can be sniffed or framed, and
 * no upstream password is shown or stored.
 */
import { promises as fs } from 'node:fs';
import { request as httpRequest } from 'node:http';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  geminiAnswer,
  openAiAnswer,
  startFakeUpstream,
} from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  ownerFetch,
  ownerHeaders,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import { RUNNING_FILE } from '../running-gateway.js';

const cleanups = cleanUpAfterEach();

const MODEL = '/v1beta/models/gemini-2.5-flash:generateContent';
const BODY = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
const JSON_TYPE = 'application/json';

async function setUp(openaiBase = '/v1') {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const upstream = await startFakeUpstream((request) =>
    request.path.includes('chat/completions')
      ? openAiAnswer({ content: 'ok' })
      : geminiAnswer([{ text: 'ok' }]),
  );
  cleanups.push(() => upstream.close());
  const credentialed = upstream.url.replace('http://', 'http://user:s3cret@');
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: upstream.url, openai: `${credentialed}${openaiBase}` },
  });
  cleanups.push(() => running.close());
  return { fixture, upstream, running };
}

/** A raw request, with the headers exactly as given (fetch would set Host and others itself). */
function send(
  base: string,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: target,
        method: options.method ?? 'POST',
        headers: options.headers ?? {},
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('hostile requests to a loopback gateway', () => {
  it('refuses a foreign Host, a foreign Origin or Sec-Fetch-Site, and a body that is not JSON', async () => {
    const { upstream, running } = await setUp();
    const refused = await Promise.all([
      // DNS rebinding: the page's own name, resolved to 127.0.0.1.
      send(running.url, MODEL, {
        headers: { host: 'attacker.example:8787', 'content-type': JSON_TYPE },
        body: BODY,
      }),
      send(running.url, MODEL, {
        headers: { origin: 'http://attacker.example', 'content-type': JSON_TYPE },
        body: BODY,
      }),
      send(running.url, MODEL, {
        method: 'GET',
        headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' },
      }),
      send(running.url, MODEL, { headers: { 'content-type': 'text/plain' }, body: BODY }),
      send(running.url, '/mcp', {
        headers: { 'content-type': 'text/plain', ...ownerHeaders(running) },
        body: '{}',
      }),
    ]);
    expect(refused.map((answer) => answer.status)).toEqual([403, 403, 403, 415, 415]);
    expect(upstream.requests).toHaveLength(0);
    // What the CLIs send: no Origin, a loopback Host, JSON.
    const ok = await send(running.url, MODEL, {
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: BODY,
    });
    expect(ok.status).toBe(200);
    // The gateway's own page may call it (same origin), and a person may open it by address.
    const own = await send(running.url, '/api/status', {
      method: 'GET',
      headers: { origin: running.url, 'sec-fetch-site': 'same-origin', ...ownerHeaders(running) },
    });
    expect(own.status).toBe(200);
    const typed = await send(running.url, `/?token=${running.gateway.accessSecret}`, {
      method: 'GET',
      headers: { 'sec-fetch-site': 'none' },
    });
    expect(typed.status).toBe(303);
  });

  it('refuses an absolute-form target and a path that climbs out of the upstream base', async () => {
    const { upstream, running } = await setUp('/v1');
    const absolute = await send(running.url, `http://127.0.0.1:1${MODEL}`, {
      headers: { 'content-type': JSON_TYPE },
      body: BODY,
    });
    expect(absolute.status).toBe(400);
    for (const climbing of ['/openai/../../admin/secret', '/openai/%2e%2e/%2e%2e/admin/secret']) {
      const answer = await send(running.url, climbing, { method: 'GET' });
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('BAD_PATH');
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('never shows or stores an upstream password, and sends it as a header', async () => {
    const { fixture, upstream, running } = await setUp();
    const status = await (await ownerFetch(running, `${running.url}/api/status`)).text();
    expect(status).not.toContain('s3cret');
    const announced = await fs.readFile(path.join(fixture.stateDir, RUNNING_FILE), 'utf8');
    expect(announced).not.toContain('s3cret');
    const chat = await fetch(`${running.url}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': JSON_TYPE },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200);
    const sent = upstream.requests.at(-1)!;
    expect(sent.headers['authorization']).toBe(
      `Basic ${Buffer.from('user:s3cret').toString('base64')}`,
    );
    // The client's own credential wins.
    await fetch(`${running.url}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': JSON_TYPE, authorization: 'Bearer client-key' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(upstream.requests.at(-1)!.headers['authorization']).toBe('Bearer client-key');
  });

  it('no answer can be sniffed; none of the own JSON answers can be framed or run anything', async () => {
    const { running } = await setUp();
    for (const [target, method] of [
      ['/metrics', 'GET'],
      ['/mcp', 'GET'],
      ['/api/status', 'GET'],
      ['/healthz', 'GET'],
      [MODEL, 'POST'],
    ] as const) {
      const answer = await send(running.url, target, {
        method,
        headers: { 'content-type': JSON_TYPE },
        ...(method === 'POST' ? { body: BODY } : {}),
      });
      expect(answer.headers['x-content-type-options'], target).toBe('nosniff');
    }
    const status = await send(running.url, '/api/status', { method: 'GET' });
    expect(status.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(status.headers['x-frame-options']).toBe('DENY');
  });
});
