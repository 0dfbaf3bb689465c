/**
 * What a stranger can send a team replica (issue 33): names and ids of any size, made-up keys.
 * Nothing a caller chooses is kept or labelled whole (finding 1), and the upstream still gets the
 * request's bytes as they came.
 */
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { openAiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { gatewayFixture, startTestGateway } from '../test-utils/gemini-client.js';
import { memoryTeamStores } from '../test-utils/memory-team-stores.js';
import { MAX_MODEL_LABELS } from '../usage/metric-labels.js';

const cleanups = cleanUpAfterEach();

async function teamReplica(status = 200) {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const upstream = await startFakeUpstream(() =>
    status === 200
      ? openAiAnswer({ content: 'ok' })
      : { status, json: { error: { message: 'invalid api key' } } },
  );
  cleanups.push(() => upstream.close());
  const stores = memoryTeamStores();
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { openai: `${upstream.url}/v1` },
    stores: { conversations: stores.conversations, usage: stores.usage },
    team: {
      outputs: stores.outputs,
      cookieSecret: async () => 'team-cookie-secret',
      adminKey: 'the-admin-key',
    },
  });
  cleanups.push(() => running.close());
  return { running, upstream, stores };
}

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
    for (let request = 0; request < 3; request++) {
      expect((await send(running.url, body)).status).toBe(200);
    }
    const text = await metrics(running.url);
    expect(text.length).toBeLessThan(64 * 1024);
    expect(modelLabels(text)).toEqual(new Set(['other']));
    await running.gateway.close();
    // The upstream got the bytes as they came.
    expect(upstream.requests.map((request) => request.raw.toString('utf8'))).toEqual([
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
    await send(running.url, chat('gpt-5'), { 'x-toolmask-session': long });
    await send(running.url, chat('gpt-5', 'other'), { 'x-toolmask-session': 'run-1' });
    await running.gateway.close();
    const sessions = (await stores.usage.list()).map((record) => record.session);
    expect(sessions[0]).toBeUndefined();
    expect(sessions[1]).toMatch(/^[0-9a-f]{16}$/);
  });
});
