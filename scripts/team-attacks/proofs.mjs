/**
 * How a provider key proves itself (finding 2): only the provider's 2xx to a model call of that
 * key. A provider answers some paths without any key (Google's APIs their discovery document, a
 * self-hosted server its health check or model list), and a replica forwards every path, so a 2xx
 * there must prove nothing: a stranger who fetched one, then sent bulky histories with the same
 * made-up key, would otherwise have them masked and kept for a month.
 */
import { call } from './lib/http.mjs';
import { shellHistory } from './lib/histories.mjs';
import { PUBLIC_PATH } from './lib/provider.mjs';
import { statusCounts } from './lib/verdict.mjs';
import { GEMINI_PATH } from './lib/world.mjs';
import { allKeys } from './store.mjs';

const publicAnswerProvesNothing = {
  title: "a made-up key after the provider's 2xx to a path it answers without a key",
  property:
    "a 2xx to a request that is no model call proves no key: a made-up key that fetched the provider's discovery document, then sent bulky histories (401), leaves no key in Redis and its histories go upstream unmasked",
  async run(world, evidence, { quick }) {
    const redis = world.redisClient;
    const before = new Set(await allKeys(redis));
    const url = world.haproxy.url;
    const rounds = quick ? 4 : 10;
    const opened = [];
    const sent = [];
    const start = world.provider.requests.length;
    for (let index = 0; index < rounds; index++) {
      const headers = { 'x-goog-api-key': `AIza-public-path-${index}` };
      opened.push((await call(`${url}/gemini${PUBLIC_PATH}?version=v1beta`, { headers })).status);
      sent.push(
        (
          await call(`${url}/gemini${GEMINI_PATH}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: shellHistory(`public-path-${index}`, 6),
          })
        ).status,
      );
    }
    // Writes that follow a request (usage records, decisions) land within a moment.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const added = (await allKeys(redis)).filter((key) => !before.has(key));
    const masked = world.provider
      .since(start)
      .filter((request) => request.raw.toString('utf8').includes('tool_output_masked'));
    evidence.note(
      `the discovery document with made-up keys: ${statusCounts(opened)}; their histories: ${statusCounts(sent)}`,
    );
    evidence.check(
      opened.every((status) => status === 200),
      'the provider answered the path without a key (200): the attack is posed',
    );
    evidence.check(
      added.length === 0,
      `${added.length} new Redis keys${added.length ? `: ${added.slice(0, 5).join(', ')}` : ''}`,
    );
    evidence.check(
      masked.length === 0,
      `${masked.length} of ${rounds} histories reached the provider masked`,
    );
  },
};

export default [publicAnswerProvesNothing];
