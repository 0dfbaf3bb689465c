/**
 * What a stranger can send a team replica (issue 33): names and ids of any size, made-up keys.
 * Nothing a caller chooses is kept or labelled whole (finding 1), and the upstream still gets the
 * request's bytes as they came.
 */
import * as net from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  geminiAnswer,
  openAiAnswer,
  type UpstreamResponder,
} from '@toolmask/test-support/fake-upstream';
import { post, shellOutput, type ContentLike } from '../test-utils/gemini-client.js';
import type { MemoryTeamStores } from '../test-utils/memory-team-stores.js';
import { startMemoryTeamReplica } from '../test-utils/team-replica.js';
import { MAX_MODEL_LABELS } from '../usage/metric-labels.js';

const cleanups = cleanUpAfterEach();

/** Keys the fake provider accepts; any other gets 401. */
const VALID_KEYS = new Set(['sk-made-up', 'alice-provider-key', 'team-gemini-key']);

const ALICE_VIRTUAL = 'tmk_alice';
const PUBLIC_PATH = '/$discovery/rest';
const ADMIN = 'the-admin-key';

/** A fake upstream that serves a public path without a key, and the rest only to valid keys. */
const keyCheckingUpstream: UpstreamResponder = (request) => {
  // A path a provider answers without a key (Google APIs serve their discovery document so).
  if (request.path === PUBLIC_PATH) return { json: { kind: 'discovery#restDescription' } };
  const key =
    request.headers['x-goog-api-key'] ?? request.headers.authorization?.replace('Bearer ', '');
  if (!VALID_KEYS.has(String(key))) {
    return { status: 401, json: { error: { code: 401, message: 'API key not valid' } } };
  }
  return request.path.includes('chat/completions')
    ? openAiAnswer({ content: 'ok' })
    : geminiAnswer([{ text: 'ok' }]);
};

async function teamReplica(ownerBudget?: { conversations: number }) {
  return startMemoryTeamReplica(
    cleanups,
    () => ({
      adminKey: ADMIN,
      keys: { lookup: async (raw) => (raw === ALICE_VIRTUAL ? { name: 'alice' } : undefined) },
      providerKeys: { gemini: 'team-gemini-key' },
      ...(ownerBudget ? { ownerBudget } : {}),
    }),
    { answer: keyCheckingUpstream, allFronts: true },
  );
}

/** Every write to the team's stores (claims, decisions, state, records, outputs), counted. */
async function writes(stores: MemoryTeamStores): Promise<number> {
  const records = await stores.usage.list();
  const outputs = (stores.outputs as unknown as { files: Map<string, unknown> }).files.size;
  return records.length + stores.decisionCount() + outputs;
}

/** A Gemini history with `outputs` bulky shell outputs: a pass masks some of them. */
function bulkyHistory(tag: string, outputs = 12, name = 'run_shell_command'): string {
  const contents: ContentLike[] = [{ role: 'user', parts: [{ text: `build ${tag}` }] }];
  for (let index = 0; index < outputs; index++) {
    const id = `${tag}-${index}`;
    contents.push({
      role: 'model',
      parts: [{ functionCall: { id, name, args: {} } }],
    });
    contents.push({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id,
            name,
            response: { output: shellOutput(id, 2_000) },
          },
        },
      ],
    });
  }
  return JSON.stringify({ contents });
}

const GEMINI = '/v1beta/models/gemini-2.5-flash:generateContent';

function chat(model: string, text = 'hello'): string {
  return JSON.stringify({ model, messages: [{ role: 'user', content: text }] });
}

async function send(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer sk-made-up',
      ...headers,
    },
    body,
  });
  await response.arrayBuffer();
  return response;
}

async function metrics(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`, {
    headers: { authorization: 'Bearer the-admin-key' },
  });
  expect(response.status).toBe(200);
  return response.text();
}

const modelLabels = (text: string) =>
  new Set([...text.matchAll(/model="([^"]*)"/g)].map((match) => match[1]));

describe('a team replica bounds what a caller chooses (finding 1)', () => {
  it('keeps and labels a huge model name as `other`, and forwards it as sent', async () => {
    const { running, upstream, stores } = await teamReplica();
    const huge = 'm'.repeat(1024 * 1024);
    const body = chat(huge);
    // The key proves itself first (the provider accepts it); then its requests are kept.
    expect((await send(running.url, chat('gpt-5', 'proof'))).status).toBe(200);
    for (let request = 0; request < 3; request++) {
      expect((await send(running.url, body)).status).toBe(200);
    }
    const text = await metrics(running.url);
    expect(text.length).toBeLessThan(64 * 1024);
    expect(modelLabels(text)).toEqual(new Set(['other']));
    await running.gateway.close();
    // The upstream got the bytes as they came.
    expect(upstream.requests.map((request) => request.raw.toString('utf8'))).toEqual([
      chat('gpt-5', 'proof'),
      body,
      body,
      body,
    ]);
    const records = await stores.usage.list();
    expect(records.map((record) => record.model)).toEqual(['other', 'other', 'other']);
    const conversation = await stores.conversations.load(records[0]!.conversationId);
    expect(conversation.meta?.model).toBe('other');
  });

  it('shows at most a bounded number of model labels at /metrics', async () => {
    const { running } = await teamReplica();
    expect((await send(running.url, chat('gpt-5', 'proof'))).status).toBe(200);
    for (let index = 0; index < MAX_MODEL_LABELS + 20; index++) {
      expect((await send(running.url, chat(`made-up-${index}`, `hi ${index}`))).status).toBe(200);
    }
    const text = await metrics(running.url);
    const labels = modelLabels(text);
    expect(labels.size).toBeLessThanOrEqual(MAX_MODEL_LABELS + 1);
    expect(labels.has('other')).toBe(true);
    expect(labels.has('made-up-0')).toBe(true);
    expect(text.length).toBeLessThan(1024 * 1024);
  });

  it('keeps no session id past the bounds: a 10 kB session header is no session', async () => {
    const { running, stores } = await teamReplica();
    const long = 's'.repeat(10_000);
    expect((await send(running.url, chat('gpt-5', 'proof'))).status).toBe(200);
    await send(running.url, chat('gpt-5'), { 'x-toolmask-session': long });
    await send(running.url, chat('gpt-5', 'other'), { 'x-toolmask-session': 'run-1' });
    await running.gateway.close();
    const sessions = (await stores.usage.list()).map((record) => record.session);
    expect(sessions[0]).toBeUndefined();
    expect(sessions[1]).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('a team replica bounds the tool names and call ids it keeps (issue 33, what to build)', () => {
  it('keeps a 10 kB tool name and a 1 kB call id in its decisions cut to 128 printable characters', async () => {
    const { running, stores } = await teamReplica();
    const headers = { 'x-goog-api-key': 'alice-provider-key' };
    expect((await post(`${running.url}${GEMINI}`, bulkyHistory('proof'), headers)).status).toBe(
      200,
    );
    // The call id is on every line of its output (shellOutput), so 1 kB of it is 2 MB an output.
    const history = bulkyHistory(`c\u0007${'c'.repeat(1_000)}`, 4, `t\u0000${'t'.repeat(10_000)}`);
    expect((await post(`${running.url}${GEMINI}`, history, headers)).status).toBe(200);
    await running.gateway.close();
    const [record] = await stores.usage.list();
    const { decisions } = await stores.conversations.load(record!.conversationId);
    expect(decisions.length).toBeGreaterThan(0);
    for (const decision of decisions) {
      for (const kept of [decision.toolName, decision.callId]) {
        expect(kept.length).toBeLessThanOrEqual(128);
        expect(kept).toMatch(/^[\x20-\x7e]*$/);
      }
    }
  });
});

describe('a team replica keeps nothing for a request that proves no identity (finding 2)', () => {
  it('a made-up provider key the provider refuses leaves nothing in the stores', async () => {
    const { running, upstream, stores } = await teamReplica();
    for (let request = 0; request < 4; request++) {
      const body = bulkyHistory(`stranger-${request}`);
      const answer = await post(`${running.url}${GEMINI}`, body, {
        'x-goog-api-key': `made-up-${request % 2}`,
      });
      expect(answer.status).toBe(401);
      // Forwarded as it came.
      expect(upstream.requests.at(-1)?.raw.toString('utf8')).toBe(body);
    }
    await running.gateway.close();
    expect(await writes(stores)).toBe(0);
    expect(running.gateway.stats().conversations).toBe(0);
  });

  it("a 2xx to a path the provider answers without a key proves nothing: the key's next requests keep nothing", async () => {
    const { running, upstream, stores } = await teamReplica();
    const headers = { 'x-goog-api-key': 'made-up-proof' };
    for (let request = 0; request < 3; request++) {
      const open = await fetch(`${running.url}${PUBLIC_PATH}?version=v1beta`, { headers });
      await open.arrayBuffer();
      expect(open.status).toBe(200);
      const body = bulkyHistory(`stranger-${request}`);
      expect((await post(`${running.url}${GEMINI}`, body, headers)).status).toBe(401);
      const forwarded = upstream.requests.at(-1)?.raw.toString('utf8');
      expect(forwarded === body, 'forwarded as it came, not masked').toBe(true);
    }
    await running.gateway.close();
    expect(await writes(stores)).toBe(0);
    expect(running.gateway.stats().conversations).toBe(0);
  });

  it('a key the provider accepted is proven: its next requests are masked and kept', async () => {
    const { running, upstream, stores } = await teamReplica();
    const headers = { 'x-goog-api-key': 'alice-provider-key' };
    const body = bulkyHistory('alice');
    expect((await post(`${running.url}${GEMINI}`, body, headers)).status).toBe(200);
    expect(upstream.requests.at(-1)?.raw.toString('utf8')).toBe(body);
    expect(await writes(stores)).toBe(0);
    expect((await post(`${running.url}${GEMINI}`, body, headers)).status).toBe(200);
    await running.gateway.close();
    expect(upstream.requests.at(-1)?.raw.toString('utf8')).toContain('tool_output_masked');
    expect(stores.decisionCount()).toBeGreaterThan(0);
    expect((await stores.usage.list()).length).toBe(1);
  });

  it("past an owner's budget, requests go out as they came, nothing more is kept, and it is counted", async () => {
    const { running, upstream, stores } = await teamReplica({ conversations: 1 });
    const headers = { 'x-goog-api-key': 'alice-provider-key' };
    await post(`${running.url}${GEMINI}`, bulkyHistory('proof'), headers);
    await post(`${running.url}${GEMINI}`, bulkyHistory('first'), headers);
    const kept = await writes(stores);
    expect(kept).toBeGreaterThan(0);
    const second = bulkyHistory('second');
    expect((await post(`${running.url}${GEMINI}`, second, headers)).status).toBe(200);
    expect(upstream.requests.at(-1)?.raw.toString('utf8')).toBe(second);
    const text = await metrics(running.url);
    await running.gateway.close();
    expect(await writes(stores)).toBe(kept);
    expect(text).toMatch(
      /toolmask_gateway_owner_budget_refusals_total\{[^}]*resource="conversations"[^}]*\} 1/,
    );
  });
});

describe("a team replica's in-flight body budget against strangers (attack A39)", () => {
  it('a made-up key that declares the largest body and sends none of it holds no room', async () => {
    const { running } = await teamReplica();
    const silent = net.connect(Number(new URL(running.url).port), '127.0.0.1');
    cleanups.push(async () => void silent.destroy());
    silent.on('error', () => undefined);
    const declared = 64 * 1024 * 1024;
    await new Promise<void>((resolve) =>
      silent.write(
        `POST ${GEMINI} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-goog-api-key: made-up-silent\r\n` +
          `content-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`,
        () => resolve(),
      ),
    );
    // The replica has read the headers and waits for the body when Alice's turn comes.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const hello = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    const alice = await post(`${running.url}${GEMINI}`, hello, { 'x-goog-api-key': ALICE_VIRTUAL });
    expect(alice.status).toBe(200);
  });
});

describe('a team replica sends each key only where it belongs (findings 5 and 10)', () => {
  const hello = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });

  it("a virtual key goes out as the team's key of its route's API, and is refused on the others", async () => {
    const { running, upstream } = await teamReplica();
    const gemini = await post(`${running.url}${GEMINI}`, hello, {
      'x-goog-api-key': ALICE_VIRTUAL,
    });
    expect(gemini.status).toBe(200);
    expect(upstream.requests.at(-1)?.headers['x-goog-api-key']).toBe('team-gemini-key');
    const openai = await send(running.url, chat('gpt-5'), {
      authorization: `Bearer ${ALICE_VIRTUAL}`,
    });
    expect(openai.status).toBe(403);
    const anthropic = await fetch(`${running.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ALICE_VIRTUAL },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 10, messages: [] }),
    });
    expect(anthropic.status).toBe(403);
    expect(await anthropic.text()).toContain('no team key for anthropic');
    expect(upstream.requests).toHaveLength(1);
  });

  it('a key given twice, or two credentials, is refused with 400 and never forwarded', async () => {
    const { running, upstream } = await teamReplica();
    const cases: Array<{ path: string; headers: Record<string, string> }> = [
      { path: `${GEMINI}?key=${ALICE_VIRTUAL}`, headers: { 'x-goog-api-key': ALICE_VIRTUAL } },
      { path: GEMINI, headers: { 'x-goog-api-key': `${ALICE_VIRTUAL}, ${ALICE_VIRTUAL}` } },
      {
        path: GEMINI,
        headers: { 'x-goog-api-key': ALICE_VIRTUAL, authorization: 'Bearer alice-provider-key' },
      },
      { path: `${GEMINI}?key=a&key=b`, headers: {} },
    ];
    for (const { path, headers } of cases) {
      expect((await post(`${running.url}${path}`, hello, headers)).status).toBe(400);
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('the admin key is never forwarded, in any form', async () => {
    const { running, upstream } = await teamReplica();
    const cases: Array<{ path: string; headers: Record<string, string> }> = [
      { path: GEMINI, headers: { 'x-goog-api-key': `${ADMIN}, ${ADMIN}` } },
      {
        path: GEMINI,
        headers: { 'x-goog-api-key': 'alice-provider-key', authorization: `Bearer ${ADMIN}` },
      },
      { path: `${GEMINI}?key=${ADMIN}`, headers: { 'x-goog-api-key': 'alice-provider-key' } },
      { path: GEMINI, headers: { 'x-goog-api-key': 'alice-provider-key', 'x-other': ADMIN } },
    ];
    for (const { path, headers } of cases) {
      const answer = await post(`${running.url}${path}`, hello, headers);
      expect([400, 403]).toContain(answer.status);
    }
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('the dashboard cookie over the wire (finding 3)', () => {
  it('is Secure behind TLS, holds for 12 hours, and opens no /mcp', async () => {
    const { running } = await teamReplica();
    const exchange = (headers: Record<string, string>) =>
      fetch(`${running.url}/?token=alice-provider-key`, { redirect: 'manual', headers });
    const behindTls = await exchange({ 'x-forwarded-proto': 'https' });
    expect(behindTls.status).toBe(303);
    const cookie = behindTls.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/; Max-Age=43200(;|$)/);
    expect(cookie).toMatch(/; Secure(;|$)/);
    const plain = await exchange({});
    expect(plain.headers.get('set-cookie')).not.toMatch(/Secure/);
    const value = cookie.split(';')[0]!;
    const api = await fetch(`${running.url}/api/sessions`, { headers: { cookie: value } });
    expect(api.status).toBe(200);
    const mcp = await fetch(`${running.url}/mcp`, {
      method: 'POST',
      headers: {
        cookie: value,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
  });
});

describe("a team replica's counts are the admin's (finding 13)", () => {
  it('/metrics answers the admin key only: not a made-up key, an owner, or nobody', async () => {
    const { running } = await teamReplica();
    const get = (headers: Record<string, string>) => fetch(`${running.url}/metrics`, { headers });
    expect((await get({})).status).toBe(401);
    expect((await get({ authorization: 'Bearer sk-made-up' })).status).toBe(401);
    expect((await get({ 'x-toolmask-token': ALICE_VIRTUAL })).status).toBe(401);
    expect((await get({ authorization: `Bearer ${ADMIN}` })).status).toBe(200);
    expect((await get({ 'x-toolmask-token': ADMIN })).status).toBe(200);
  });
});
