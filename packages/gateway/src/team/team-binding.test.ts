/**
 * What a team replica bound to loopback answers, and what its status tells a person (issue 33,
 * finding 13): a request addressed to a foreign name (a web page's DNS rebinding) is refused
 * before anything is forwarded or kept, unless the name is one its proxy passes on
 * (`allowedHosts`); `/api/status` shows a non-admin the masking settings and their own counts,
 * never the state folder, the settings path, the upstreams or anyone else's counts.
 */
import * as http from 'node:http';
import * as net from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { openAiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { gatewayFixture, startTestGateway } from '../test-utils/gemini-client.js';
import { memoryTeamStores } from '../test-utils/memory-team-stores.js';

const cleanups = cleanUpAfterEach();
const ADMIN = 'the-admin-key';

async function teamReplica(allowedHosts?: string[]) {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const upstream = await startFakeUpstream(() => openAiAnswer({ content: 'ok' }));
  cleanups.push(() => upstream.close());
  const stores = memoryTeamStores();
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { openai: `${upstream.url}/v1` },
    stores: { conversations: stores.conversations, usage: stores.usage },
    ...(allowedHosts ? { allowedHosts } : {}),
    team: {
      outputs: stores.outputs,
      cookieSecret: async () => 'team-cookie-secret',
      proofs: stores.proofs,
      adminKey: ADMIN,
    },
  });
  cleanups.push(() => running.close());
  return { running, upstream, fixture };
}

/** A request with the Host header given (fetch sets its own). */
function request(
  url: string,
  options: { path: string; host?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(options.path, url);
    const sent = http.request(target, {
      method: options.body === undefined ? 'GET' : 'POST',
      headers: {
        ...(options.host ? { host: options.host } : {}),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
    });
    sent.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end(options.body);
  });
}

/** Header lines written on a socket exactly as given (Node's client would not send two Hosts). */
function rawRequest(url: string, head: string[], body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.on('error', reject);
    const lines = [...head, `content-length: ${Buffer.byteLength(body)}`, 'connection: close'];
    // Written, not ended: a client that half-closes counts as gone.
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

const chat = JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] });
const BEARER = (key: string) => ({ authorization: `Bearer ${key}` });

describe('a team replica bound to loopback (finding 13)', () => {
  it('refuses a foreign Host (DNS rebinding) before anything is forwarded; a listed name passes', async () => {
    const { running, upstream } = await teamReplica(['toolmask.example.internal']);
    const evil = 'attacker.example:8787';
    const model = await request(running.url, {
      path: '/v1/chat/completions',
      host: evil,
      headers: BEARER('sk-anyone'),
      body: chat,
    });
    expect(model.status).toBe(403);
    const api = await request(running.url, {
      path: '/api/sessions',
      host: evil,
      headers: BEARER(ADMIN),
    });
    expect(api.status).toBe(403);
    expect(upstream.requests).toHaveLength(0);
    // The name its proxy passes on, and loopback names, are answered.
    for (const host of ['toolmask.example.internal', 'TOOLMASK.example.internal:443', undefined]) {
      const answered = await request(running.url, {
        path: '/v1/chat/completions',
        ...(host ? { host } : {}),
        headers: BEARER('sk-anyone'),
        body: chat,
      });
      expect(answered.status, String(host)).toBe(200);
    }
    expect(upstream.requests).toHaveLength(3);
  });

  it('refuses two Host lines (400) and a name that only starts as a loopback one', async () => {
    const { running, upstream } = await teamReplica();
    const json = ['content-type: application/json', 'authorization: Bearer sk-anyone'];
    for (const hosts of [
      ['127.0.0.1', 'attacker.example'],
      ['attacker.example', '127.0.0.1'],
      ['localhost', 'localhost'],
    ]) {
      const status = await rawRequest(
        running.url,
        [...hosts.map((h) => `Host: ${h}`), ...json],
        chat,
      );
      expect(status, hosts.join(' then ')).toBe(400);
    }
    for (const host of ['[::1].evil', '[::1]evil:80', '[::1]:8787.evil', 'localhost:x', '']) {
      const status = await rawRequest(running.url, [`Host: ${host}`, ...json], chat);
      expect(status, host).toBe(403);
    }
    expect(upstream.requests).toHaveLength(0);
    for (const host of ['[::1]', '[::1]:8787', 'LOCALHOST:8787', '127.0.0.1', '127.0.0.1:']) {
      const status = await rawRequest(running.url, [`Host: ${host}`, ...json], chat);
      expect(status, host).toBe(200);
    }
  });

  it('shows a non-admin only their own counts at /api/status', async () => {
    const { running, fixture, upstream } = await teamReplica();
    for (const key of ['alice-key', 'alice-key', 'alice-key', 'bob-key']) {
      const sent = await request(running.url, {
        path: '/v1/chat/completions',
        headers: BEARER(key),
        body: JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: key }] }),
      });
      expect(sent.status).toBe(200);
    }
    const status = async (key: string) => {
      const answer = await request(running.url, { path: '/api/status', headers: BEARER(key) });
      expect(answer.status).toBe(200);
      return answer.body;
    };
    const alice = await status('alice-key');
    const parsed = JSON.parse(alice) as { details: Record<string, unknown>; settings: object };
    // Alice's first request proved her key; her next two were kept (one conversation).
    expect(parsed.details).toEqual({ requests: 2, conversations: 1 });
    expect(Object.keys(parsed.settings)).toEqual(['masking']);
    for (const secret of [
      fixture.stateDir,
      fixture.settingsFile,
      upstream.url,
      'conversationsInMemory',
    ]) {
      expect(alice).not.toContain(secret);
    }
    // The admin still sees the replica's own facts.
    const admin = await status(ADMIN);
    expect(admin).toContain(JSON.stringify(fixture.stateDir));
    expect(admin).toContain('conversationsInMemory');
  });
});
