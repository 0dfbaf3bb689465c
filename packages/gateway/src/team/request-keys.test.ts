/**
 * The key of a team request, read from the header lines as they came (issue 33): Node keeps only
 * the first of two `Authorization` lines in `request.headers` (the second is dropped, checked by
 * nobody) and joins other repeated headers, so every key header given on two lines is refused as
 * ambiguous, and a replica forwards nothing for it.
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { startMemoryTeamReplica } from '../test-utils/team-replica.js';
import { carriesAnywhere, requestKeys, type RequestKeys } from './request-keys.js';

const cleanups = cleanUpAfterEach();

/** Header lines as a client sends them: a name given twice is sent on two lines. */
type Lines = Array<[string, string]>;

/** Node's client sends a header given as a list on one line per value. */
function withLines(lines: Lines): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [given, value] of lines) {
    const name = given.toLowerCase();
    const had = headers[name];
    headers[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  return headers;
}

function send(
  url: string,
  path: string,
  lines: Lines,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${url}${path}`,
      { method: body === undefined ? 'GET' : 'POST', headers: withLines(lines) },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * What `requestKeys` (and the admin check) make of a request whose header lines are written on a
 * socket exactly as given (names in their case, in their order).
 */
async function keysOf(lines: Lines): Promise<{ keys: RequestKeys; admin: boolean }> {
  let seen!: IncomingMessage;
  const server = createServer((request, response) => {
    seen = request;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  const head = lines.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}Connection: close\r\n\r\n`);
  socket.resume();
  await new Promise((resolve) => socket.on('close', resolve));
  return {
    keys: requestKeys(seen),
    admin: carriesAnywhere(seen, 'the-admin-key', (a, b) => a === b),
  };
}

describe('the key of a request, from its header lines', () => {
  it('refuses a key header given on two lines, whatever they hold', async () => {
    const repeated: Lines[] = [
      [
        ['Authorization', 'Bearer tmk_alice'],
        ['Authorization', 'Bearer sk-bob'],
      ],
      [
        ['Authorization', 'Bearer tmk_alice'],
        ['authorization', 'Bearer tmk_alice'],
      ],
      [
        ['Authorization', 'Basic dXNlcjpwdw=='],
        ['Authorization', 'Bearer tmk_alice'],
      ],
      [
        ['X-Api-Key', 'tmk_alice'],
        ['x-api-key', 'sk-bob'],
      ],
      [
        ['x-goog-api-key', 'tmk_alice'],
        ['X-Goog-Api-Key', 'tmk_alice'],
      ],
      [
        ['x-goog-api-key', 'tmk_alice'],
        ['Authorization', 'Bearer sk-bob'],
      ],
    ];
    for (const lines of repeated) {
      expect((await keysOf(lines)).keys, JSON.stringify(lines)).toEqual({ kind: 'ambiguous' });
    }
  });

  it('takes one key on one line, where it was', async () => {
    expect((await keysOf([['Authorization', 'Bearer tmk_alice']])).keys).toEqual({
      kind: 'one',
      found: { key: 'tmk_alice', place: 'authorization' },
    });
    expect((await keysOf([['X-Goog-Api-Key', ' tmk_alice ']])).keys).toEqual({
      kind: 'one',
      found: { key: 'tmk_alice', place: 'x-goog-api-key' },
    });
    expect((await keysOf([['x-other', 'a, b']])).keys).toEqual({ kind: 'none' });
  });

  it('finds the admin key on a second Authorization line', async () => {
    const { admin } = await keysOf([
      ['Authorization', 'Bearer sk-bob'],
      ['Authorization', 'Bearer the-admin-key'],
    ]);
    expect(admin).toBe(true);
  });
});

describe('a replica given a key header twice', () => {
  it('answers 400 AMBIGUOUS_KEY and forwards nothing', async () => {
    const { running, upstream } = await startMemoryTeamReplica(cleanups, () => ({
      keys: { lookup: async (raw) => (raw === 'tmk_alice' ? { name: 'alice' } : undefined) },
      providerKeys: { gemini: 'team-gemini-key' },
    }));
    const path = '/v1beta/models/gemini-2.5-flash:generateContent';
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello' }] }] });
    const json: Lines = [['content-type', 'application/json']];
    // One key on one line goes through (the team's key in its place).
    const one = await send(
      running.url,
      path,
      [...json, ['Authorization', 'Bearer tmk_alice']],
      body,
    );
    expect(one.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    // Alice's virtual key first, a stranger's key second: Node keeps only the first.
    const twice = await send(
      running.url,
      path,
      [...json, ['Authorization', 'Bearer tmk_alice'], ['Authorization', 'Bearer sk-stranger']],
      body,
    );
    expect(twice.status).toBe(400);
    expect(JSON.parse(twice.text).error.reason).toBe('AMBIGUOUS_KEY');
    expect(upstream.requests).toHaveLength(1);
  });
});
