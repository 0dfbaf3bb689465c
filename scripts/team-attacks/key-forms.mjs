/**
 * Keys in forms a replica must not guess at (findings 5 and 10): a key given twice or two keys at
 * once (in repeated headers too, which Node's parser folds or drops), the admin key anywhere in a
 * model request, and a virtual key on another API's route. None may reach the provider.
 */
import { call, raw } from './lib/http.mjs';
import { providerSaw, providerSince } from './lib/probes.mjs';
import {
  ADMIN_KEY,
  ALICE_PROVIDER_KEY,
  BOB_PROVIDER_KEY,
  GEMINI_PATH,
  TEAM_GEMINI_KEY,
} from './lib/world.mjs';

const OPENAI = '/openai/v1/chat/completions';
const ANTHROPIC = '/anthropic/v1/messages';
const CHAT = JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] });
const MESSAGES = JSON.stringify({
  model: 'claude-sonnet-4',
  max_tokens: 10,
  messages: [{ role: 'user', content: 'hi' }],
});
const GEMINI_BODY = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });

/** A request with headers as lines, repeated names kept (fetch would merge them). */
function rawRequest(path, lines, body) {
  return (
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n${lines.map((line) => `${line}\r\n`).join('')}\r\n${body}`
  );
}

/** Each case sent raw; checks the status and that nothing reached the provider. */
async function refusedCases(world, evidence, cases, expect) {
  const replica = world.r1;
  for (const [what, path, lines, body] of cases) {
    const mark = world.provider.requests.length;
    const answer = await raw(replica.port, rawRequest(path, lines, body));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const forwarded = providerSince(world, mark).length;
    const bodyText = answer.text.split('\r\n\r\n').slice(1).join('').slice(0, 120);
    evidence.check(
      expect(answer) && forwarded === 0,
      `${what}: ${answer.status} ${bodyText.replace(/\s+/g, ' ')}; ${forwarded} requests reached the provider`,
    );
  }
}

const repeatedAuthorization = {
  title: 'a repeated Authorization header: two Bearer keys on two lines',
  property:
    'repeated or conflicting key headers are refused (400 AMBIGUOUS_KEY) and never forwarded: Node keeps only the first Authorization line, so a gateway that reads it alone forwards one of two keys',
  async run(world, evidence) {
    const bob = world.keys.bob;
    await refusedCases(
      world,
      evidence,
      [
        [
          "Bob's virtual key, then a made-up key",
          OPENAI,
          [`Authorization: Bearer ${bob}`, 'Authorization: Bearer sk-made-up'],
          CHAT,
        ],
        [
          "a made-up key, then Bob's virtual key",
          OPENAI,
          ['Authorization: Bearer sk-made-up', `Authorization: Bearer ${bob}`],
          CHAT,
        ],
        [
          "Bob's provider key, then Alice's",
          OPENAI,
          [
            `Authorization: Bearer ${BOB_PROVIDER_KEY}`,
            `Authorization: Bearer ${ALICE_PROVIDER_KEY}`,
          ],
          CHAT,
        ],
        [
          'twice on the Gemini route',
          `/gemini${GEMINI_PATH}`,
          [`Authorization: Bearer ${bob}`, `Authorization: Bearer ${BOB_PROVIDER_KEY}`],
          GEMINI_BODY,
        ],
      ],
      (answer) => answer.status === 400 && answer.text.includes('AMBIGUOUS_KEY'),
    );
  },
};

const ambiguousKeys = {
  title: 'a key given twice, or two keys, in every other form',
  property:
    'a request carrying more than one key (header and ?key=, A, B in one header, header and Bearer, ?key= twice, a repeated x-goog-api-key or x-api-key line) is refused with 400 and never forwarded',
  async run(world, evidence) {
    const bob = world.keys.bob;
    const gemini = `/gemini${GEMINI_PATH}`;
    await refusedCases(
      world,
      evidence,
      [
        [
          'header and ?key=',
          `${gemini}?key=${BOB_PROVIDER_KEY}`,
          [`x-goog-api-key: ${bob}`],
          GEMINI_BODY,
        ],
        [
          'A, B in one header',
          gemini,
          [`x-goog-api-key: ${bob}, ${BOB_PROVIDER_KEY}`],
          GEMINI_BODY,
        ],
        [
          'x-goog-api-key and Bearer',
          gemini,
          [`x-goog-api-key: ${bob}`, `Authorization: Bearer ${BOB_PROVIDER_KEY}`],
          GEMINI_BODY,
        ],
        ['?key= twice', `${gemini}?key=${bob}&key=${BOB_PROVIDER_KEY}`, [], GEMINI_BODY],
        [
          'x-goog-api-key on two lines',
          gemini,
          [`x-goog-api-key: ${bob}`, `x-goog-api-key: ${BOB_PROVIDER_KEY}`],
          GEMINI_BODY,
        ],
        [
          'x-api-key on two lines',
          ANTHROPIC,
          [`x-api-key: ${ALICE_PROVIDER_KEY}`, `x-api-key: ${BOB_PROVIDER_KEY}`],
          MESSAGES,
        ],
        [
          'x-api-key and Bearer',
          ANTHROPIC,
          [`x-api-key: ${ALICE_PROVIDER_KEY}`, `Authorization: Bearer ${BOB_PROVIDER_KEY}`],
          MESSAGES,
        ],
      ],
      (answer) => answer.status === 400,
    );
  },
};

const adminNeverForwarded = {
  title: 'the admin key in a model request, in every form',
  property:
    'the admin key never reaches the provider: twice in one header, as Bearer beside a key, in ?key=, in x-api-key, in another header, padded; each refused (4xx) before anything is forwarded',
  async run(world, evidence) {
    const gemini = `/gemini${GEMINI_PATH}`;
    const cases = [
      ['ADMIN, ADMIN', gemini, [`x-goog-api-key: ${ADMIN_KEY}, ${ADMIN_KEY}`], GEMINI_BODY],
      [
        'Bearer admin beside a key',
        gemini,
        [`x-goog-api-key: ${world.keys.bob}`, `Authorization: Bearer ${ADMIN_KEY}`],
        GEMINI_BODY,
      ],
      ['?key=ADMIN', `${gemini}?key=${ADMIN_KEY}`, [], GEMINI_BODY],
      ['x-goog-api-key ADMIN', gemini, [`x-goog-api-key: ${ADMIN_KEY}`], GEMINI_BODY],
      ['Bearer ADMIN on OpenAI', OPENAI, [`Authorization: Bearer ${ADMIN_KEY}`], CHAT],
      ['x-api-key ADMIN on Anthropic', ANTHROPIC, [`x-api-key: ${ADMIN_KEY}`], MESSAGES],
      [
        'in another header, with a valid key',
        gemini,
        [`x-goog-api-key: ${world.keys.bob}`, `x-custom-forwarded: ${ADMIN_KEY}`],
        GEMINI_BODY,
      ],
      ['padded with spaces', gemini, [`x-goog-api-key:    ${ADMIN_KEY}   `], GEMINI_BODY],
      [
        'as x-toolmask-token on a model route',
        gemini,
        [`x-toolmask-token: ${ADMIN_KEY}`],
        GEMINI_BODY,
      ],
    ];
    const mark = world.provider.requests.length;
    await refusedCases(
      world,
      evidence,
      cases,
      (answer) => answer.status >= 400 && answer.status < 500,
    );
    const saw = providerSaw(world, mark, ADMIN_KEY);
    evidence.check(saw.length === 0, `the provider saw the admin key ${saw.length} times`);
  },
};

const wrongProvider = {
  title: 'a virtual key on the OpenAI, Anthropic, Code Assist and Vertex routes',
  property:
    "the team's Gemini key goes to the Gemini API only: a virtual key on another API's route is refused (403 WRONG_PROVIDER) and nothing is forwarded",
  async run(world, evidence) {
    const alice = world.keys.alice;
    const routes = [
      ['OpenAI, Bearer', OPENAI, { authorization: `Bearer ${alice}` }, CHAT],
      ['Anthropic, x-api-key', ANTHROPIC, { 'x-api-key': alice }, MESSAGES],
      [
        'Code Assist, Bearer',
        '/code-assist/v1internal:generateContent',
        { authorization: `Bearer ${alice}` },
        JSON.stringify({ model: 'gemini-2.5-flash', request: JSON.parse(GEMINI_BODY) }),
      ],
      [
        'Vertex, Bearer',
        '/vertex/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
        { authorization: `Bearer ${alice}` },
        GEMINI_BODY,
      ],
      [
        'Vertex, x-goog-api-key',
        '/vertex/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
        { 'x-goog-api-key': alice },
        GEMINI_BODY,
      ],
    ];
    for (const [what, path, headers, body] of routes) {
      const mark = world.provider.requests.length;
      const answer = await call(`${world.r2.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      const forwarded = providerSince(world, mark);
      evidence.check(
        answer.status === 403 && forwarded.length === 0,
        `${what}: ${answer.status} ${answer.text.slice(0, 90).replace(/\s+/g, ' ')}; forwarded ${forwarded.length}`,
      );
    }
    const misplaced = world.provider.requests.filter(
      (request) => request.key === TEAM_GEMINI_KEY && !/^\/v1beta\//.test(request.path),
    );
    evidence.check(
      misplaced.length === 0,
      `the team's Gemini key reached another API's path ${misplaced.length} times in the whole run`,
    );
  },
};

export default [repeatedAuthorization, ambiguousKeys, adminNeverForwarded, wrongProvider];
