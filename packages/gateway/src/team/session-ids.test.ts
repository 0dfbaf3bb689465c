/**
 * Session ids a caller chooses on a team replica's `/api` (issue 33, attack A12), on a real
 * `redis-server`: an id that is no conversation's (capitals, dots, 128 characters) is a session
 * that does not exist for whoever asks: never a server error, and the answer repeats nothing of
 * the store's.
 */
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { redisAvailable, startRedisServer } from '@toolmask/test-support/redis-server';
import { post, shellHistory } from '../test-utils/gemini-client.js';
import { ADMIN_KEY, startTeamReplica } from '../test-utils/team-replica.js';

const cleanups = cleanUpAfterEach();
const GEMINI = '/v1beta/models/gemini-2.5-flash:generateContent';

describe.runIf(redisAvailable('the session id test'))('session ids on a team /api', () => {
  it('answers 4xx for an id that is no conversation, for an owner and the admin', async () => {
    const redis = await startRedisServer();
    cleanups.push(() => redis.close());
    const upstream = await startFakeUpstream(() => geminiAnswer([{ text: 'ok' }]));
    cleanups.push(() => upstream.close());
    const { running } = await startTeamReplica({
      redisUrl: redis.url,
      upstreamUrl: upstream.url,
      cleanups,
    });
    const bob = { 'x-goog-api-key': 'bob-provider-key' };
    // Bob's first answer proves his key: he is an owner the replica knows.
    expect((await post(`${running.url}${GEMINI}`, shellHistory('bob', 1), bob)).status).toBe(200);
    const ids = ['ABCDEF0123456789', 'a.b', 'a'.repeat(128), 'Z'.repeat(32), '0', 'a-b_c'];
    for (const headers of [bob, { authorization: `Bearer ${ADMIN_KEY}` }]) {
      for (const id of ids) {
        for (const path of [
          `/api/sessions/${id}`,
          `/api/sessions/${id}/outputs`,
          `/api/outputs?session=${id}&file=x.txt`,
        ]) {
          const answer = await fetch(`${running.url}${path}`, { headers });
          const text = await answer.text();
          expect(answer.status, `${path}: ${text}`).toBeLessThan(500);
          expect(text).not.toMatch(/conversation id|internal error/);
          if (path.startsWith('/api/outputs')) expect([400, 403, 404]).toContain(answer.status);
        }
      }
    }
  });
});
