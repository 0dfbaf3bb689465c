/**
 * A team gateway's replicas on one shared store (in memory here; the Redis e2e test runs the same
 * story on real processes behind HAProxy): any replica sends what one gateway would, two replicas
 * given one request at once agree, an output masked through one is read back through another by
 * its owner only, and a store that is down fails no turn.
 */
import * as http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import type { FakeUpstream } from '@toolmask/test-support/fake-upstream';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { scriptedShellUpstream } from './test-utils/scripted-upstream.js';
import {
  gatewayFixture,
  post,
  runGeminiClient,
  shellOutput,
  startTestGateway,
  type ContentLike,
} from './test-utils/gemini-client.js';
import { memoryTeamStores, type MemoryTeamStores } from './test-utils/memory-team-stores.js';
import type { RunningGateway } from './listen-gateway.js';

const MODEL_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';
const ALICE = { 'x-goog-api-key': 'alice-provider-key' };
const BOB = { 'x-goog-api-key': 'bob-provider-key' };

const cleanups = cleanUpAfterEach();

/** The scripted model (test-utils/scripted-upstream.ts), closed after the test. */
async function scriptedUpstream(calls: number): Promise<FakeUpstream> {
  const upstream = await scriptedShellUpstream(calls);
  cleanups.push(() => upstream.close());
  return upstream;
}

async function replicas(
  count: number,
  stores: MemoryTeamStores,
  upstream: FakeUpstream,
  allowedHosts?: string[],
): Promise<RunningGateway[]> {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const running: RunningGateway[] = [];
  for (let index = 0; index < count; index++) {
    const gateway = await startTestGateway({
      stateDir: `${fixture.stateDir}-${index}`,
      settingsFile: fixture.settingsFile,
      upstreams: { gemini: upstream.url },
      stores: { conversations: stores.conversations, usage: stores.usage },
      ...(allowedHosts ? { allowedHosts } : {}),
      team: {
        outputs: stores.outputs,
        cookieSecret: async () => 'team-cookie-secret',
        proofs: stores.proofs,
        adminKey: 'the-admin-key',
      },
    });
    cleanups.push(() => gateway.close());
    running.push(gateway);
  }
  return running;
}

/** One client session, request `n` sent to `pick(n)`; the upstream bodies as sent. */
async function session(
  gateways: RunningGateway[],
  upstream: FakeUpstream,
  pick: (request: number) => number,
): Promise<string[]> {
  const history: ContentLike[] = [{ role: 'user', parts: [{ text: 'build it' }] }];
  for (let request = 0; request < 14; request++) {
    const gateway = gateways[pick(request)]!;
    const result = await runGeminiClient({
      url: `${gateway.url}${MODEL_PATH}`,
      prompt: 'build it',
      history,
      outputFor: (call) => ({ output: shellOutput(call.id) }),
      maxRequests: 1,
      headers: ALICE,
    });
    if (result.answers[0]?.events.length === 0) break;
  }
  return upstream.matching(/streamGenerateContent$/).map((request) => request.raw.toString('utf8'));
}

/** Alice's client on one gateway: `step(n)` sends her next `n` requests of one session. */
function aliceSteps(gateway: RunningGateway) {
  const history: ContentLike[] = [{ role: 'user', parts: [{ text: 'build it' }] }];
  return (count: number) =>
    runGeminiClient({
      url: `${gateway.url}${MODEL_PATH}`,
      prompt: 'build it',
      history,
      outputFor: (call) => ({ output: shellOutput(call.id) }),
      maxRequests: count,
      headers: ALICE,
    });
}

async function connect(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'toolmask-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  cleanups.push(() => client.close());
  return client;
}

type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

describe('team gateway replicas on one shared store', () => {
  it('round robin over three replicas sends the bytes one gateway sends', async () => {
    const alone = await scriptedUpstream(12);
    const one = await session(await replicas(1, memoryTeamStores(), alone), alone, () => 0);
    const spread = await scriptedUpstream(12);
    const three = await session(
      await replicas(3, memoryTeamStores(), spread),
      spread,
      (request) => request % 3,
    );
    expect(one.some((body) => body.includes('tool_output_masked'))).toBe(true);
    expect(three).toEqual(one);
  });

  it('two replicas given one request at once agree on one set of decisions', async () => {
    const stores = memoryTeamStores();
    const upstream = await scriptedUpstream(12);
    const [first, second] = await replicas(2, stores, upstream);
    // A history long enough that the next pass masks, built through the first replica.
    const history: ContentLike[] = [{ role: 'user', parts: [{ text: 'build it' }] }];
    await runGeminiClient({
      url: `${first!.url}${MODEL_PATH}`,
      prompt: 'build it',
      history,
      outputFor: (call) => ({ output: shellOutput(call.id) }),
      maxRequests: 6,
      headers: ALICE,
    });
    // The second replica reads that Alice is proven (team/owner-ledger.ts) before the race, so
    // that one store read more does not keep its pass from running beside the first one's.
    await post(
      `${second!.url}${MODEL_PATH}`,
      { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
      ALICE,
    );
    const before = upstream.requests.length;
    // The same request (a client's retry) to both at once; the store is slow enough that both
    // passes run before either appends.
    stores.delay = 20;
    const body = { contents: history };
    const answers = await Promise.all([
      post(`${first!.url}${MODEL_PATH}`, body, ALICE),
      post(`${second!.url}${MODEL_PATH}`, body, ALICE),
    ]);
    stores.delay = 0;
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const sent = upstream.requests.slice(before).map((request) => request.raw.toString('utf8'));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBe(sent[1]);
    expect(sent[0]).toContain('tool_output_masked');
    expect(stores.conflicts).toBeGreaterThan(0);
  });

  it('an output masked through one replica is read back through another, by its owner only', async () => {
    const stores = memoryTeamStores();
    const upstream = await scriptedUpstream(8);
    const [first, second] = await replicas(2, stores, upstream);
    await runGeminiClient({
      url: `${first!.url}${MODEL_PATH}`,
      prompt: 'build it',
      outputFor: (call) => ({ output: shellOutput(call.id) }),
      maxRequests: 10,
      headers: ALICE,
    });
    const last = upstream.requests.at(-1)!.raw.toString('utf8');
    const file = JSON.parse(`"${/file=\\"([^\\]+)\\"/.exec(last)![1]!}"`) as string;
    const callId = /(call-\d+)/.exec(file.split('/').at(-1)!)![1]!;
    expect(file.startsWith('/team/tool-outputs/')).toBe(true);

    const alice = await connect(second!.url, ALICE);
    const read = (await alice.callTool({
      name: 'read_tool_output',
      arguments: { file, limit: 5 },
    })) as TextResult;
    expect(read.isError).toBeFalsy();
    expect(read.content[0]!.text).toContain(shellOutput(callId).split('\n')[0]!);
    expect(read.content[0]!.text).not.toContain('read-back');

    const bob = await connect(second!.url, BOB);
    const refused = (await bob.callTool({
      name: 'read_tool_output',
      arguments: { file },
    })) as TextResult;
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/another person/);
    await expect(connect(second!.url, {})).rejects.toThrow(/401/);

    // The dashboard's API: each owner sees their own sessions; the admin sees all.
    const sessions = async (headers: Record<string, string>) => {
      const response = await fetch(`${second!.url}/api/sessions`, {
        headers: { 'x-toolmask-token': Object.values(headers)[0]! },
      });
      return ((await response.json()) as { sessions: unknown[] }).sessions.length;
    };
    expect(await sessions(ALICE)).toBe(1);
    expect(await sessions(BOB)).toBe(0);
    expect(await sessions({ admin: 'the-admin-key' })).toBe(1);
    // The page's view of the output's text, from the shared store, through the other replica.
    const session = /session-([0-9a-f]+)\//.exec(file)![1]!;
    const outputText = (key: string) =>
      fetch(`${second!.url}/api/outputs?session=${session}&file=${encodeURIComponent(file)}`, {
        headers: { 'x-toolmask-token': key },
      });
    const forAlice = await outputText(ALICE['x-goog-api-key']);
    expect(forAlice.status).toBe(200);
    const slice = (await forAlice.json()) as { file: string; text: string };
    expect(slice.file).toBe(file);
    expect(slice.text).toBe(shellOutput(callId));
    expect((await outputText(BOB['x-goog-api-key'])).status).toBe(404);
  });

  it('a store that is down fails no turn; masking resumes when it is back', async () => {
    const stores = memoryTeamStores();
    const upstream = await scriptedUpstream(12);
    const [gateway] = await replicas(1, stores, upstream);
    const step = aliceSteps(gateway!);
    await step(4);
    stores.failing = true;
    const during = await step(4);
    expect(during.answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    stores.failing = false;
    // Counted and shown: the store's failures on /metrics, the requests' on /api/summary.
    const metrics = await (
      await fetch(`${gateway!.url}/metrics`, { headers: { authorization: 'Bearer the-admin-key' } })
    ).text();
    expect(metrics).toMatch(/toolmask_gateway_store_failures_total\{[^}]*store="conversations"/);
    const summary = (await (
      await fetch(`${gateway!.url}/api/summary`, {
        headers: { 'x-toolmask-token': 'the-admin-key' },
      })
    ).json()) as { gateway: { failures: number } };
    expect(summary.gateway.failures).toBeGreaterThan(0);
    const forAlice = await fetch(`${gateway!.url}/api/summary`, {
      headers: { 'x-toolmask-token': ALICE['x-goog-api-key'] },
    });
    expect(forAlice.status).toBe(403);
    await step(6);
    expect(upstream.requests.at(-1)!.raw.toString('utf8')).toContain('tool_output_masked');
  });

  it('a store that lost its decisions (Redis restarted empty) takes new ones again', async () => {
    const stores = memoryTeamStores();
    const upstream = await scriptedUpstream(14);
    const [gateway] = await replicas(1, stores, upstream);
    const step = aliceSteps(gateway!);
    await step(8);
    expect(stores.decisionCount()).toBeGreaterThan(0);
    stores.loseDecisions();
    const after = await step(7);
    expect(after.answers.every((answer) => answer.status === 200)).toBe(true);
    expect(stores.decisionCount()).toBeGreaterThan(0);
  });

  it('a replica on loopback answers the Host its proxy passes on when listed, no other (issue 33)', async () => {
    const stores = memoryTeamStores();
    const upstream = await scriptedUpstream(1);
    const [gateway] = await replicas(1, stores, upstream, ['toolmask.team.example']);
    const { port } = new URL(gateway!.url);
    const send = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            path: MODEL_PATH,
            method: 'POST',
            headers: { host, 'content-type': 'application/json', ...ALICE },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end(JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }));
      });
    expect(await send('toolmask.team.example')).toBe(200);
    // A name nobody listed: a web page's DNS rebinding.
    expect(await send('rebound.attacker.example')).toBe(403);
  });

  it('a request without a key is refused in its protocol style; a virtual key needs the store', async () => {
    const stores = memoryTeamStores();
    const upstream = await scriptedUpstream(1);
    const [gateway] = await replicas(1, stores, upstream);
    const answer = await post(`${gateway!.url}${MODEL_PATH}`, { contents: [] }, {});
    expect(answer.status).toBe(401);
    const unknown = await post(
      `${gateway!.url}${MODEL_PATH}`,
      { contents: [] },
      {
        'x-goog-api-key': 'tmk_nobody',
      },
    );
    expect(unknown.status).toBe(403);
    expect(upstream.requests).toHaveLength(0);
  });
});
