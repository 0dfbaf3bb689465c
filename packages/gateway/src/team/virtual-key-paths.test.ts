/**
 * A virtual key opens the model calls and model lists of its API's route, and no other path:
 * what the provider keeps for the team's key (files, cached contents, batches, stored
 * responses) is no one person's (issue 33, "keys go only where they belong"). Before, every path
 * went upstream with the team's key in the virtual key's place.
 */
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { startMemoryTeamReplica } from '../test-utils/team-replica.js';
import { openToVirtualKeys } from './virtual-key-paths.js';

const cleanups = cleanUpAfterEach();

const ALICE = 'tmk_alice';
const BOB = 'tmk_bob';
const TEAM_KEYS = { gemini: 'team-gemini', openai: 'team-openai', anthropic: 'team-anthropic' };

describe('openToVirtualKeys', () => {
  it('opens the model calls, token counts and model lists the real clients send', () => {
    const open: Array<[string, string, string]> = [
      ['gemini', 'POST', '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse'],
      ['gemini', 'POST', '/v1beta/models/gemini-2.5-flash:generateContent'],
      ['gemini', 'POST', '/v1/models/gemini-2.5-pro:countTokens'],
      ['gemini', 'GET', '/v1beta/models'],
      ['gemini', 'GET', '/v1beta/models/gemini-2.5-flash'],
      [
        'vertex',
        'POST',
        '/v1/projects/p/locations/us-central1/publishers/google/models/m:generateContent',
      ],
      ['codeAssist', 'POST', '/v1internal:streamGenerateContent?alt=sse'],
      ['codeAssist', 'POST', '/v1internal:loadCodeAssist'],
      ['openai', 'POST', '/v1/chat/completions'],
      ['openai', 'POST', '/chat/completions'],
      ['openai', 'POST', '/v1/responses'],
      ['openai', 'POST', '/v1/responses/compact'],
      ['openai', 'GET', '/v1/models?client_version=0.169.0'],
      ['openai', 'GET', '/v1/models/gpt-5-codex'],
      ['anthropic', 'POST', '/v1/messages?beta=true'],
      ['anthropic', 'POST', '/v1/messages/count_tokens?beta=true'],
      ['anthropic', 'GET', '/v1/models?limit=1000'],
    ];
    for (const [upstream, method, path] of open) {
      expect(openToVirtualKeys(upstream, method, path), `${upstream} ${method} ${path}`).toBe(true);
    }
  });

  it('closes what the provider keeps for the key, other methods, and paths that would leave', () => {
    const closed: Array<[string, string, string]> = [
      ['gemini', 'GET', '/v1beta/files'],
      ['gemini', 'POST', '/upload/v1beta/files'],
      ['gemini', 'GET', '/v1beta/cachedContents/abc'],
      ['gemini', 'POST', '/v1beta/models/m:batchGenerateContent'],
      ['gemini', 'DELETE', '/v1beta/models/m:generateContent'],
      ['gemini', 'GET', '/v1beta/tunedModels'],
      ['gemini', 'GET', '/v1beta/models/%2e%2e/files'],
      ['gemini', 'GET', '/v1beta/models/..'],
      ['gemini', 'POST', '/v1beta/models/..:generateContent'],
      ['gemini', 'GET', '/v1beta/models/x\\..\\files'],
      ['codeAssist', 'POST', '/v1internal:onboardUser'],
      ['openai', 'POST', '/v1/files'],
      ['openai', 'GET', '/v1/responses/resp_1'],
      ['openai', 'GET', '/v1/responses/resp_1/input_items'],
      ['openai', 'POST', '/v1/batches'],
      ['openai', 'GET', '/v1/chat/completions'],
      ['anthropic', 'GET', '/v1/messages/batches'],
      ['anthropic', 'POST', '/v1/messages/batches'],
      ['anthropic', 'GET', '/v1/files'],
      ['anthropic', 'POST', '/v1/chat/completions'],
      ['elsewhere', 'POST', '/v1/messages'],
    ];
    for (const [upstream, method, path] of closed) {
      expect(openToVirtualKeys(upstream, method, path), `${upstream} ${method} ${path}`).toBe(
        false,
      );
    }
  });
});

async function teamReplica() {
  const { running, upstream } = await startMemoryTeamReplica(
    cleanups,
    () => ({
      adminKey: undefined,
      keys: {
        lookup: async (raw) =>
          raw === ALICE ? { name: 'alice' } : raw === BOB ? { name: 'bob' } : undefined,
      },
      providerKeys: TEAM_KEYS,
    }),
    { answer: () => ({ json: { stored: 'whatever the key kept' } }), allFronts: true },
  );
  return { url: running.url, upstream };
}

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const JSON_BODY = { 'content-type': 'application/json' };

/** Bob's requests, with his virtual key where each API's SDK puts it. */
const STORED_THINGS: Sent[] = [
  { method: 'GET', path: '/gemini/v1beta/files', headers: { 'x-goog-api-key': BOB } },
  { method: 'GET', path: `/gemini/v1beta/files/alice-upload?key=${BOB}`, headers: {} },
  { method: 'GET', path: '/gemini/v1beta/cachedContents', headers: { 'x-goog-api-key': BOB } },
  {
    method: 'POST',
    path: '/gemini/upload/v1beta/files',
    headers: { 'x-goog-api-key': BOB, ...JSON_BODY },
    body: '{"file":{}}',
  },
  {
    method: 'POST',
    path: '/openai/v1/files',
    headers: { authorization: `Bearer ${BOB}`, ...JSON_BODY },
    body: '{"purpose":"batch"}',
  },
  {
    method: 'GET',
    path: '/openai/v1/responses/resp_alice',
    headers: { authorization: `Bearer ${BOB}` },
  },
  { method: 'GET', path: '/openai/v1/batches', headers: { authorization: `Bearer ${BOB}` } },
  { method: 'GET', path: '/anthropic/v1/messages/batches', headers: { 'x-api-key': BOB } },
  {
    method: 'POST',
    path: '/anthropic/v1/messages/batches',
    headers: { 'x-api-key': BOB, ...JSON_BODY },
    body: '{"requests":[]}',
  },
  { method: 'GET', path: '/anthropic/v1/files', headers: { 'x-api-key': BOB } },
];

function send(url: string, request: Sent): Promise<Response> {
  return fetch(`${url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body ? { body: request.body } : {}),
  });
}

describe('a team replica opens to a virtual key only the paths a coding agent needs', () => {
  it('refuses a virtual key on files, cached contents, batches and stored responses: nothing forwarded', async () => {
    const { url, upstream } = await teamReplica();
    for (const request of STORED_THINGS) {
      const response = await send(url, request);
      const text = await response.text();
      expect(response.status, `${request.method} ${request.path}`).toBe(403);
      expect(text).toContain('NOT_FOR_VIRTUAL_KEYS');
      expect(text).toContain('is not open to virtual keys');
      expect(text).toContain('your own provider key');
      expect(text).not.toContain(BOB);
    }
    expect(upstream.requests).toHaveLength(0);
    // In each protocol's style: Anthropic's `type: error`, OpenAI's and Google's `error`.
    const anthropic = await send(url, STORED_THINGS[7]!);
    expect(await anthropic.json()).toMatchObject({ type: 'error' });
    const google = await send(url, STORED_THINGS[0]!);
    expect(await google.json()).toMatchObject({
      error: { code: 403, status: 'PERMISSION_DENIED' },
    });
  });

  it("still sends the model calls and model lists with the team's key of their API", async () => {
    const { url, upstream } = await teamReplica();
    const model: Sent[] = [
      {
        method: 'POST',
        path: '/gemini/v1beta/models/gemini-2.5-flash:countTokens',
        headers: { 'x-goog-api-key': ALICE, ...JSON_BODY },
        body: '{"contents":[]}',
      },
      { method: 'GET', path: `/gemini/v1beta/models?key=${ALICE}`, headers: {} },
      {
        method: 'GET',
        path: '/openai/v1/models?client_version=1',
        headers: { authorization: `Bearer ${ALICE}` },
      },
      {
        method: 'POST',
        path: '/anthropic/v1/messages/count_tokens?beta=true',
        headers: { 'x-api-key': ALICE, ...JSON_BODY },
        body: '{"messages":[]}',
      },
      { method: 'GET', path: '/anthropic/v1/models/claude-fake', headers: { 'x-api-key': ALICE } },
    ];
    for (const request of model) {
      const response = await send(url, request);
      expect(response.status, `${request.method} ${request.path}`).toBe(200);
    }
    const keys = upstream.requests.map(
      (seen) =>
        seen.headers['x-goog-api-key'] ??
        seen.headers['x-api-key'] ??
        seen.headers.authorization ??
        new URLSearchParams(seen.query).get('key'),
    );
    expect(keys).toEqual([
      'team-gemini',
      'team-gemini',
      'Bearer team-openai',
      'team-anthropic',
      'team-anthropic',
    ]);
  });

  it("forwards a person's own provider key on any path, as it came", async () => {
    const { url, upstream } = await teamReplica();
    const response = await send(url, {
      method: 'GET',
      path: '/gemini/v1beta/files',
      headers: { 'x-goog-api-key': 'bobs-own-key' },
    });
    expect(response.status).toBe(200);
    expect(upstream.requests.map((seen) => seen.headers['x-goog-api-key'])).toEqual([
      'bobs-own-key',
    ]);
  });
});
