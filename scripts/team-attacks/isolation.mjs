/**
 * A valid user (Bob) against another (Alice): every way Bob, or a stranger, can name Alice's
 * outputs (their path as the snippet names it, and forms of it), search for them, reach them
 * through the dashboard's API, or make a replica mix his conversation with hers. Alice's outputs
 * carry the word ALICESECRET: an answer holding it is a leak.
 */
import { call, readOutput, tool } from './lib/http.mjs';
import { bobSession, sendAs, sessionIds } from './lib/probes.mjs';
import { statusCounts } from './lib/verdict.mjs';
import { ADMIN_KEY, BOB_PROVIDER_KEY } from './lib/world.mjs';
import { shellHistory, toolText } from './lib/histories.mjs';

const SECRET = 'ALICESECRET';
/** A line of Alice's output (a query or a path repeated in an error is not one). */
const LEAK = /ALICESECRET-\d+ line \d+/;
const PREFIX = '/toolmask-team/tool-outputs/';

/** Bob, his own provider key, strangers: everyone who is not Alice or the admin. */
function others(world) {
  const alice = world.keys.alice;
  return [
    ['Bob', world.keys.bob],
    ["Bob's provider key", BOB_PROVIDER_KEY],
    ['a made-up tmk_', 'tmk_0000000000000000000000000000'],
    [
      "Alice's key with one character changed",
      alice.slice(0, -1) + (alice.endsWith('a') ? 'b' : 'a'),
    ],
    ["Alice's key's first half", alice.slice(0, Math.floor(alice.length / 2))],
    ['no key', undefined],
  ];
}

/** Forms of one of Alice's paths a caller may try. */
function pathForms(file, bobFile) {
  const rest = file.slice(PREFIX.length);
  const [aliceSession, name] = rest.split('/');
  const bobSessionFolder = bobFile.slice(PREFIX.length).split('/')[0];
  return [
    file,
    `${file} `,
    file.replace(PREFIX, `${PREFIX}./`),
    file.replace(PREFIX, '/toolmask-team//tool-outputs//'),
    encodeURIComponent(file),
    file.toUpperCase(),
    `tool-outputs/${rest}`,
    rest,
    name,
    `${PREFIX}${bobSessionFolder}/../${aliceSession}/${name}`,
    `${PREFIX}${bobSessionFolder}/..%2f${aliceSession}/${name}`,
    file.replaceAll('/', '\\'),
    `file://${file}`,
    `${file}\u0000.txt`,
  ];
}

const readByPath = {
  title: "Bob and strangers read Alice's outputs by path over /mcp, on each replica and HAProxy",
  property:
    "Bob cannot read Alice's output by id or path: every form of her paths, on every replica, is refused and no answer holds her text",
  async run(world, evidence, { quick }) {
    const bobFiles = await bobSession(world);
    const files = quick ? world.aliceFiles.slice(0, 2) : world.aliceFiles;
    const targets = [world.r1, world.r2, world.haproxy];
    let attempts = 0;
    const leaks = [];
    const statuses = [];
    for (const target of targets) {
      for (const [who, key] of others(world)) {
        for (const file of files) {
          const forms = pathForms(file, bobFiles[0]);
          const answers = await Promise.all(
            forms.map((form) => readOutput(target.url, key, { file: form, pattern: SECRET })),
          );
          answers.forEach((answer, index) => {
            attempts += 1;
            statuses.push(answer.ok ? 'tool ok' : `${answer.status}`);
            if (LEAK.test(answer.text)) leaks.push(`${who} ${forms[index]}`);
          });
        }
      }
    }
    // The attack sees what a leak looks like: Alice reads her own.
    const own = await readOutput(world.r2.url, world.keys.alice, { file: world.aliceFiles[0] });
    evidence.check(own.ok && LEAK.test(own.text), `Alice reads her own output: ${own.ok}`);
    evidence.check(
      leaks.length === 0,
      `${attempts} attempts by 6 others on 3 targets with 14 forms of ${files.length} paths: ${leaks.length} answers held Alice's text${leaks.length ? `: ${leaks.slice(0, 3).join('; ')}` : ''}`,
    );
    evidence.note(`answers: ${statusCounts(statuses)}`);
  },
};

const searchHers = {
  title: "Bob and strangers search for Alice's outputs (search_tool_outputs)",
  property: "Bob cannot find Alice's outputs by search: no search answer holds her text",
  async run(world, evidence, { quick }) {
    const queries = [
      { query: SECRET },
      { query: 'ALICE.*line', regex: true },
      { query: '.', regex: true, limit: 1000 },
      { query: 'line 1:' },
      { query: '(?i)alicesecret', regex: true },
    ];
    let attempts = 0;
    const leaks = [];
    const targets = quick ? [world.haproxy] : [world.r1, world.r2, world.haproxy];
    for (const target of targets) {
      for (const [who, key] of others(world)) {
        for (const args of queries) {
          const answer = await tool(target.url, key, 'search_tool_outputs', args);
          attempts += 1;
          if (LEAK.test(answer.text)) leaks.push(`${who} ${JSON.stringify(args)}`);
        }
      }
    }
    const admin = await tool(world.r1.url, ADMIN_KEY, 'search_tool_outputs', { query: SECRET });
    evidence.check(LEAK.test(admin.text), `the admin's search finds Alice's outputs: ${admin.ok}`);
    evidence.check(
      leaks.length === 0,
      `${attempts} searches: ${leaks.length} held Alice's text${leaks.length ? `: ${leaks.slice(0, 3).join('; ')}` : ''}`,
    );
  },
};

const dashboardApi = {
  title: "Bob and strangers reach Alice's sessions and outputs through /api",
  property:
    "Bob cannot read Alice's sessions or outputs through the dashboard API, by session id, file or listing, with his key or his cookie",
  async run(world, evidence) {
    const url = world.haproxy.url;
    const [aliceSession] = await sessionIds(world.r1.url, world.keys.alice);
    evidence.check(aliceSession !== undefined, `Alice's session id: ${aliceSession}`);
    const listing = await call(`${url}/api/sessions/${aliceSession}/outputs`, {
      headers: { 'x-toolmask-token': world.keys.alice },
    });
    const names = [...listing.text.matchAll(/"file":"([^"]+)"/g)].map((match) => match[1]);
    evidence.check(
      listing.status === 200 && LEAK.test(listing.text) && names.length > 0,
      `Alice lists her own ${names.length} outputs, previews hold her text`,
    );
    const login = await call(`${url}/?token=${world.keys.bob}`);
    const bobCookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const paths = [
      '/api/sessions',
      '/api/timeline',
      '/api/summary',
      '/api/status',
      `/api/sessions/${aliceSession}`,
      `/api/sessions/${aliceSession}/outputs`,
      `/api/sessions/${aliceSession}?since=1`,
      `/api/sessions/${aliceSession.toUpperCase()}/outputs`,
      ...names.flatMap((file) => [
        `/api/outputs?session=${aliceSession}&file=${encodeURIComponent(file)}`,
        `/api/outputs?session=${aliceSession}&file=${encodeURIComponent(file)}&offset=1`,
        `/api/outputs?session=${aliceSession}&file=${encodeURIComponent(`../${aliceSession}/${file}`)}`,
      ]),
      ...world.aliceFiles.map(
        (file) => `/api/outputs?session=${aliceSession}&file=${encodeURIComponent(file)}`,
      ),
    ];
    const callers = [
      ['Bob', { 'x-toolmask-token': world.keys.bob }],
      ["Bob's cookie", { cookie: bobCookie }],
      ["Bob's provider key", { 'x-toolmask-token': BOB_PROVIDER_KEY }],
      ['a made-up key', { 'x-toolmask-token': 'tmk_made_up' }],
      ['no key', {}],
    ];
    const leaks = [];
    const errors = [];
    const statuses = [];
    for (const [who, headers] of callers) {
      for (const path of paths) {
        const answer = await call(`${url}${path}`, { headers });
        statuses.push(answer.status);
        const listed = path.endsWith('/sessions') && answer.text.includes(aliceSession);
        if (LEAK.test(answer.text) || listed) leaks.push(`${who} ${path} (${answer.status})`);
        if (answer.status >= 500) {
          errors.push(`${who} ${path}: ${answer.status} ${answer.text.slice(0, 100)}`);
        }
      }
    }
    evidence.check(
      leaks.length === 0,
      `${callers.length * paths.length} requests: ${leaks.length} leaked Alice's text or session${leaks.length ? `: ${leaks.slice(0, 3).join('; ')}` : ''}`,
    );
    if (errors.length > 0) {
      evidence.note(
        `${errors.length} server errors (no leak; see the session-id attack): ${errors[0]}`,
      );
    }
    evidence.note(`answers: ${statusCounts(statuses)}`);
  },
};

const sessionIdForms = {
  title: 'session ids and file names of every shape on /api, as Bob',
  property:
    'a session id or file a caller chooses never causes a server error: /api/sessions/<id>, /api/sessions/<id>/outputs and /api/outputs answer 4xx (or an empty 200) for ids in capitals, of 128 characters, with dots and dashes',
  async run(world, evidence) {
    const [aliceSession] = await sessionIds(world.r1.url, world.keys.alice);
    const ids = [
      aliceSession.toUpperCase(),
      aliceSession.slice(0, 31),
      `${aliceSession}0`,
      'a'.repeat(128),
      'Z'.repeat(32),
      'a.b',
      'a..b',
      'a-b_c',
      '0',
    ];
    const headers = { 'x-toolmask-token': world.keys.bob };
    for (const id of ids) {
      for (const path of [
        `/api/sessions/${id}`,
        `/api/sessions/${id}/outputs`,
        `/api/outputs?session=${id}&file=x.txt`,
      ]) {
        const answer = await call(`${world.r1.url}${path}`, { headers });
        if (answer.status >= 500) {
          evidence.check(
            false,
            `${path.replace(id, `<${id.length} chars: ${id.slice(0, 8)}…>`)}: ${answer.status} ${answer.text.slice(0, 140)}`,
          );
        }
      }
    }
    evidence.check(true, `${ids.length * 3} requests with ${ids.length} session ids`);
  },
};

const conversationCollision = {
  title: "Bob sends a conversation that starts as Alice's, with her session header",
  property:
    "Bob cannot make a replica mix his conversation with Alice's: the provider gets no text of hers in his requests, and her outputs stay unreadable to him",
  async run(world, evidence) {
    const [aliceSession] = await sessionIds(world.r1.url, world.keys.alice);
    // Alice's history, prompt and call ids alike, but with Bob's outputs.
    const contents = JSON.parse(shellHistory('alice', 10));
    for (const content of contents.contents) {
      for (const part of content.parts) {
        const response = part.functionResponse?.response;
        if (response) response.output = toolText(`BOBCOPY-${part.functionResponse.id}`);
      }
    }
    const body = JSON.stringify(contents);
    const sentCount = body.split(SECRET).length - 1;
    const leaks = [];
    for (const [replica, headers] of [
      [world.r1, {}],
      [world.r2, { 'x-toolmask-session': aliceSession ?? 'x' }],
      [world.r1, { 'x-toolmask-session': aliceSession ?? 'x' }],
    ]) {
      const sent = await sendAs(world, replica, world.keys.bob, body, headers);
      const upstream = sent.upstream?.raw.toString('utf8') ?? '';
      const count = upstream.split(SECRET).length - 1;
      if (sent.status !== 200 || count > sentCount) {
        leaks.push(
          `${replica.name} ${JSON.stringify(headers)}: ${sent.status}, ${count} of ${SECRET} (he sent ${sentCount})`,
        );
      }
      evidence.note(
        `${replica.name} ${Object.keys(headers).join('') || 'no header'}: ${sent.status}, ${(upstream.match(/tool_output_masked/g) ?? []).length} masked, ${count} × ${SECRET} upstream`,
      );
    }
    evidence.check(
      leaks.length === 0,
      `3 colliding requests: ${leaks.length} carried Alice's text${leaks.length ? `: ${leaks.join('; ')}` : ''}`,
    );
    const read = await readOutput(world.r1.url, world.keys.bob, { file: world.aliceFiles[0] });
    evidence.check(
      !LEAK.test(read.text),
      `Bob reads Alice's first path afterwards: ${read.ok ? 'answered' : 'refused'} (${read.text.slice(0, 80)})`,
    );
  },
};

export default [readByPath, searchHers, dashboardApi, sessionIdForms, conversationCollision];
