/**
 * A team replica on a real `redis-server` that freezes (SIGSTOP: connections open, nothing
 * answered; issue 33, finding 7): no request waits for Redis longer than docs/team.md says.
 * A model request with new outputs to save is answered, its outputs left whole; a read-back over
 * `/mcp` answers a clear error soon; `/?token=` answers 503 (retry), not 500.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { redisAvailable, startRedisServer } from '@toolmask/test-support/redis-server';
import { post, shellHistory } from '../test-utils/gemini-client.js';
import { startTeamReplica } from '../test-utils/team-replica.js';

const cleanups = cleanUpAfterEach();
const runs = redisAvailable('frozen Redis tests');

const GEMINI = '/v1beta/models/gemini-2.5-flash:generateContent';
const ALICE = { 'x-goog-api-key': 'alice-provider-key' };
/**
 * What docs/team.md promises a request waits for Redis (250 ms), with room for the turn's own
 * work on a loaded 2-CPU machine (decoding and masking: 0.4-0.7 s here). Before the change a turn
 * waited 5.3-5.8 s (the outputs connection's 5 s limit) and a read-back 5 s.
 */
const PROMISED_MS = 250;
const SLACK_MS = 1_750;

async function replicaOnRedis(outputs?: string) {
  const redis = await startRedisServer();
  cleanups.push(() => redis.close());
  const upstream = await startFakeUpstream(() => geminiAnswer([{ text: 'ok' }]));
  cleanups.push(() => upstream.close());
  const { stores, running } = await startTeamReplica({
    redisUrl: redis.url,
    upstreamUrl: upstream.url,
    cleanups,
    ...(outputs ? { outputs } : {}),
    providerKeys: { gemini: 'team-gemini-key' },
  });
  return { redis, upstream, stores, running };
}

type TextResult = { isError?: boolean; content: Array<{ text: string }> };

async function readBack(url: string, file: string): Promise<TextResult> {
  const client = new Client({ name: 'test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: ALICE },
  });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return (await client.callTool({
    name: 'read_tool_output',
    arguments: { file, limit: 3 },
  })) as TextResult;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe.runIf(runs)('a team replica while Redis is frozen (finding 7)', () => {
  it.each([
    // Outputs in Redis cannot be read while it is frozen; a folder's can (their owner is known).
    ['Redis', 'an error', () => undefined],
    [
      'a shared folder',
      'the output',
      () => mkdtempSync(path.join(os.tmpdir(), 'toolmask-outputs-')),
    ],
  ])(
    'with outputs in %s: a turn waits one command limit, a read-back gives %s soon, /?token= 503',
    async (kind, readBackGives, outputsIn) => {
      const outputs = outputsIn();
      if (outputs) cleanups.push(async () => rmSync(outputs, { recursive: true, force: true }));
      const { redis, upstream, stores, running } = await replicaOnRedis(outputs);
      // A key not looked up before the freeze: it cannot be checked.
      const key = await stores.keys.create('bob');
      // Proven by the provider's first answer, then masked: its outputs saved.
      expect((await post(`${running.url}${GEMINI}`, shellHistory('proof', 1), ALICE)).status).toBe(
        200,
      );
      expect((await post(`${running.url}${GEMINI}`, shellHistory('warm', 12), ALICE)).status).toBe(
        200,
      );
      const masked = upstream.requests.at(-1)!.raw.toString('utf8');
      const file = JSON.parse(`"${/file=\\"([^\\]+)\\"/.exec(masked)![1]!}"`) as string;
      expect((await readBack(running.url, file)).isError).toBeFalsy();

      redis.pause();
      try {
        // The same conversation with 8 outputs more to save.
        const turn = await timed(() =>
          post(`${running.url}${GEMINI}`, shellHistory('warm', 20), ALICE),
        );
        expect(turn.value.status).toBe(200);
        const read = await timed(() => readBack(running.url, file));
        const signIn = await timed(() =>
          fetch(`${running.url}/?token=${encodeURIComponent(key)}`, { redirect: 'manual' }),
        );
        console.log(
          `outputs in ${kind}: turn ${turn.ms.toFixed(0)} ms, read ${read.ms.toFixed(0)} ms, sign-in ${signIn.value.status} in ${signIn.ms.toFixed(0)} ms`,
        );
        expect(turn.ms).toBeLessThan(PROMISED_MS + SLACK_MS);
        expect(read.ms).toBeLessThan(PROMISED_MS + SLACK_MS);
        if (readBackGives === 'an error') {
          expect(read.value.isError).toBe(true);
          expect(read.value.content[0]!.text).toMatch(
            /the team store \(Redis\) did not answer within 250 ms; retry in a moment/,
          );
        } else {
          expect(read.value.isError).toBeFalsy();
        }
        expect(signIn.value.status).toBe(503);
        expect(await signIn.value.text()).toMatch(/retry in a moment/);
        expect(signIn.ms).toBeLessThan(PROMISED_MS + SLACK_MS);
      } finally {
        redis.resume();
      }
    },
    60_000,
  );
});
