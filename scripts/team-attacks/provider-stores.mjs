/**
 * What the provider keeps for the team's key (issue 33, "keys go only where they belong"): a
 * virtual key stands for the team's provider key, and the Gemini API keeps uploaded files and
 * cached contents per key. Had a virtual key opened every path, Bob with his own virtual key
 * would list, read, upload and delete them, Alice's included, as the team. A virtual key opens
 * the model calls and model lists only (team/virtual-key-paths.ts); Bob's own provider key may
 * go anywhere, as it would without the gateway.
 */
import { call } from './lib/http.mjs';
import { providerSince } from './lib/probes.mjs';
import { statusCounts } from './lib/verdict.mjs';
import { BOB_PROVIDER_KEY, TEAM_GEMINI_KEY } from './lib/world.mjs';

/** Bob's requests on what the Gemini API keeps per key, his virtual key where SDKs put it. */
function storedThings(bob) {
  const header = { 'x-goog-api-key': bob };
  const json = { ...header, 'content-type': 'application/json' };
  return [
    { method: 'GET', path: '/v1beta/files', headers: header },
    { method: 'GET', path: `/v1beta/files/alice-upload?key=${bob}`, headers: {} },
    { method: 'DELETE', path: '/v1beta/files/alice-upload', headers: header },
    { method: 'GET', path: '/v1beta/cachedContents', headers: header },
    { method: 'GET', path: '/v1beta/cachedContents/alice-cache', headers: header },
    { method: 'POST', path: '/upload/v1beta/files', headers: json, body: '{"file":{}}' },
    {
      method: 'POST',
      path: '/v1beta/models/gemini-2.5-flash:batchGenerateContent',
      headers: json,
      body: '{}',
    },
    { method: 'GET', path: '/v1beta/models/%2e%2e/files', headers: header },
  ];
}

const virtualKeyOnStores = {
  title: "Bob's virtual key on the Gemini API's files, cached contents and batches",
  property:
    "a virtual key reaches no path of what the provider keeps for the team's key: 8 such requests (headers and ?key=, GET, POST, DELETE, an encoded `..`) are answered 403 NOT_FOR_VIRTUAL_KEYS and none reaches the provider; Bob's model list still goes out with the team's key, and Bob's own provider key still reaches the files path",
  async run(world, evidence) {
    const url = `${world.haproxy.url}/gemini`;
    const mark = world.provider.requests.length;
    const answers = [];
    for (const request of storedThings(world.keys.bob)) {
      const { method, path, headers, body } = request;
      answers.push({ request, answer: await call(`${url}${path}`, { method, headers, body }) });
    }
    const reached = providerSince(world, mark);
    evidence.note(`answers: ${statusCounts(answers.map(({ answer }) => answer.status))}`);
    const refused = answers.filter(
      ({ answer }) => answer.status === 403 && answer.text.includes('NOT_FOR_VIRTUAL_KEYS'),
    );
    for (const { request, answer } of answers.filter((one) => !refused.includes(one))) {
      evidence.check(false, `${request.method} ${request.path.split('?')[0]}: ${answer.status}`);
    }
    evidence.check(
      refused.length === answers.length,
      `${refused.length} of ${answers.length} refused with 403 NOT_FOR_VIRTUAL_KEYS`,
    );
    evidence.check(
      reached.length === 0,
      `${reached.length} reached the provider${reached.length ? `: ${reached.map((seen) => seen.path).join(', ')}` : ''}`,
    );
    const listMark = world.provider.requests.length;
    const list = await call(`${url}/v1beta/models`, {
      headers: { 'x-goog-api-key': world.keys.bob },
    });
    const listed = providerSince(world, listMark);
    evidence.check(
      list.status === 200 && listed.length === 1 && listed[0].key === TEAM_GEMINI_KEY,
      `Bob's model list: ${list.status}, ${listed.length} upstream request(s), with the team's key: ${listed[0]?.key === TEAM_GEMINI_KEY}`,
    );
    const ownMark = world.provider.requests.length;
    const own = await call(`${url}/v1beta/files`, {
      headers: { 'x-goog-api-key': BOB_PROVIDER_KEY },
    });
    const ownSeen = providerSince(world, ownMark);
    evidence.check(
      own.status === 200 && ownSeen.length === 1 && ownSeen[0].key === BOB_PROVIDER_KEY,
      `Bob's own provider key on /v1beta/files: ${own.status}, reached the provider with his key: ${ownSeen[0]?.key === BOB_PROVIDER_KEY}`,
    );
  },
};

export default [virtualKeyOnStores];
