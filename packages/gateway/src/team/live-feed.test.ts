/**
 * The dashboard's live feed on a team replica (issue 33, attack A31), on a real `redis-server`:
 * anyone can make up a provider key, and `/api` takes it for an owner, so owners who proved
 * nothing share a small pool of streams and can never take the stream of a person who did.
 */
import * as http from 'node:http';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { redisAvailable, startRedisServer } from '@toolmask/test-support/redis-server';
import { MAX_UNPROVEN_STREAMS } from '../dashboard/change-feed.js';
import { post, shellHistory } from '../test-utils/gemini-client.js';
import { startTeamReplica } from '../test-utils/team-replica.js';

const cleanups = cleanUpAfterEach();
const GEMINI = '/v1beta/models/gemini-2.5-flash:generateContent';
const ALICE_KEY = 'alice-provider-key';

/** Opens `/api/events` as `key`; the status, and the stream kept open until the test ends. */
function openStream(url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${url}/api/events`, { headers: { authorization: `Bearer ${key}` } });
    request.on('response', (response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
      cleanups.push(async () => void response.destroy());
    });
    request.on('error', reject);
  });
}

describe.runIf(redisAvailable('the live feed test'))('the live feed of a team replica', () => {
  it('gives made-up keys a pool of their own and leaves a proven owner a stream', async () => {
    const redis = await startRedisServer();
    cleanups.push(() => redis.close());
    const upstream = await startFakeUpstream((request) =>
      request.headers['x-goog-api-key'] === ALICE_KEY
        ? geminiAnswer([{ text: 'ok' }])
        : { status: 401, json: { error: { code: 401, message: 'API key not valid' } } },
    );
    cleanups.push(() => upstream.close());
    const { running } = await startTeamReplica({
      redisUrl: redis.url,
      upstreamUrl: upstream.url,
      cleanups,
    });
    // Alice's key is proven by the provider's 200; a made-up key by nothing (its 401).
    const history = shellHistory('alice', 1);
    expect(
      (await post(`${running.url}${GEMINI}`, history, { 'x-goog-api-key': ALICE_KEY })).status,
    ).toBe(200);
    expect(
      (await post(`${running.url}${GEMINI}`, history, { 'x-goog-api-key': 'made-up' })).status,
    ).toBe(401);
    const strangers: number[] = [];
    for (let index = 0; index <= MAX_UNPROVEN_STREAMS; index++) {
      strangers.push(await openStream(running.url, `made-up-${index}`));
    }
    expect(strangers.filter((status) => status === 200)).toHaveLength(MAX_UNPROVEN_STREAMS);
    expect(strangers.at(-1)).toBe(503);
    expect(await openStream(running.url, ALICE_KEY)).toBe(200);
  });
});
