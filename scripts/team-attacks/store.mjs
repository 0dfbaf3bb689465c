/**
 * What a stranger can leave in the team's Redis (finding 2): requests that prove no identity (no
 * key, a made-up provider key the provider refuses, a made-up virtual key) must write nothing, and
 * every key that is written keeps the documented layout and expires.
 */
import { call, readOutput } from './lib/http.mjs';
import { statusCounts } from './lib/verdict.mjs';
import { GEMINI_PATH } from './lib/world.mjs';
import { shellHistory } from './lib/histories.mjs';

/** Every key of the Redis database the team uses. */
export async function allKeys(redis) {
  const keys = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

async function usedMemory(redis) {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

const strangersWriteNothing = {
  title: 'strangers with no key, made-up provider keys and made-up tmk_ keys, bulky bodies',
  property:
    'a request that proves no identity writes nothing to Redis: no new key after 100 such requests (bulky histories, 4 MB model names, read-backs, dashboard logins)',
  async run(world, evidence, { quick }) {
    const redis = world.redisClient;
    const before = new Set(await allKeys(redis));
    const memoryBefore = await usedMemory(redis);
    const url = world.haproxy.url;
    const rounds = quick ? 10 : 25;
    const statuses = { none: [], madeUpProvider: [], madeUpVirtual: [], huge: [], other: [] };
    for (let index = 0; index < rounds; index++) {
      const body = shellHistory(`stranger-${index}`, 6);
      const post = (headers) =>
        call(`${url}/gemini${GEMINI_PATH}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
      statuses.none.push((await post({})).status);
      statuses.madeUpProvider.push(
        (await post({ 'x-goog-api-key': `AIza-made-up-${index}` })).status,
      );
      statuses.madeUpVirtual.push(
        (await post({ 'x-goog-api-key': `tmk_made_up_${index}` })).status,
      );
      statuses.other.push(
        (await readOutput(url, `tmk_made_up_${index}`, { file: world.aliceFiles[0] })).status,
        (await call(`${url}/?token=tmk_made_up_${index}`)).status,
        (await call(`${url}/api/sessions`, { headers: { 'x-toolmask-token': `made-up-${index}` } }))
          .status,
      );
    }
    for (let index = 0; index < (quick ? 2 : 5); index++) {
      const answer = await call(`${url}/openai/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer sk-made-up-${index}`,
        },
        body: JSON.stringify({
          model: `n${index}-${'y'.repeat(4 * 1024 * 1024)}`,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
      statuses.huge.push(answer.status);
    }
    // Writes that follow a request (usage records, decisions) land within a moment.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const added = (await allKeys(redis)).filter((key) => !before.has(key));
    const memoryAfter = await usedMemory(redis);
    evidence.note(
      `no key: ${statusCounts(statuses.none)}; made-up provider keys: ${statusCounts(statuses.madeUpProvider)}; made-up tmk_: ${statusCounts(statuses.madeUpVirtual)}; 4 MB model names: ${statusCounts(statuses.huge)}; /mcp, /?token=, /api: ${statusCounts(statuses.other)}`,
    );
    evidence.check(
      added.length === 0,
      `${added.length} new Redis keys${added.length ? `: ${added.slice(0, 5).join(', ')}` : ''}; used_memory ${(memoryBefore / 1e6).toFixed(2)} → ${(memoryAfter / 1e6).toFixed(2)} MB`,
    );
    evidence.check(
      [...statuses.none, ...statuses.madeUpProvider, ...statuses.madeUpVirtual].every(
        (status) => status === 401 || status === 403,
      ),
      'every model request refused (401/403)',
    );
  },
};

/** The key shapes the Redis stores write (packages/gateway/src/state/redis). */
const LAYOUT = [
  /^toolmask:\{vkeys\}:(key:[0-9a-f]{64}|names)$/,
  /^toolmask:\{usage\}:[\x21-\x7e]+$/,
  /^toolmask:\{proofs\}:owner:[\x21-\x7e]+$/,
  /^toolmask:\{owner-outputs\}:[0-9a-f]+$/,
  /^toolmask:conversation:\{[0-9a-f]{32}\}:[a-z-]+$/,
  /^toolmask:output:tool-outputs\/session-[0-9a-f]+\/[\x21-\x7e]+\.txt$/,
  /^toolmask:outputs:saved$/,
];
export const inLayout = (key) => LAYOUT.some((shape) => shape.test(key));

const keyLayout = {
  title: 'the layout and expiry of every key in Redis after the attacks so far',
  property:
    'every Redis key keeps its layout (one of the 7 shapes the stores write, printable, at most 512 bytes, no `..` segment) and has a TTL, except the virtual keys',
  async run(world, evidence) {
    const redis = world.redisClient;
    const keys = await allKeys(redis);
    const bad = keys.filter(
      (key) => !inLayout(key) || key.length > 512 || /(^|\/)\.\.(\/|$)/.test(key.slice(9)),
    );
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.ttl(key);
    const ttls = (await pipeline.exec()).map(([, ttl]) => ttl);
    const forever = keys.filter((key, index) => ttls[index] === -1 && !key.includes('{vkeys}'));
    const tags = new Map();
    for (const key of keys) {
      const family = /^toolmask:(\{[^}]*\}|[a-z]+)/.exec(key)?.[1] ?? key.slice(0, 24);
      tags.set(family, (tags.get(family) ?? 0) + 1);
    }
    evidence.note(
      `${keys.length} keys: ${[...tags].map(([tag, count]) => `${tag} ${count}`).join(', ')}`,
    );
    evidence.check(
      bad.length === 0,
      `${bad.length} keys out of layout${bad.length ? `: ${bad.slice(0, 3).join(', ')}` : ''}`,
    );
    evidence.check(
      forever.length === 0,
      `${forever.length} keys without a TTL besides {vkeys}${forever.length ? `: ${forever.slice(0, 5).join(', ')}` : ''}`,
    );
  },
};

export default [strangersWriteNothing, keyLayout];
