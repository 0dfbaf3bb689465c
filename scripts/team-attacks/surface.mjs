/**
 * What a replica shows to whoever reaches it (findings 6, 11, 12, 13): Host headers of a rebound
 * name, /metrics and /api/status, the dashboard's live feed, HAProxy's log, and the command lines
 * any local account can read.
 */
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import { startRedisServer } from '@toolmask/test-support/dist/redis-server.js';
import { call, raw } from './lib/http.mjs';
import { metricsText, providerSince, served } from './lib/probes.mjs';
import { sleep, statusCounts } from './lib/verdict.mjs';
import {
  ADMIN_KEY,
  ALICE_PROVIDER_KEY,
  BOB_PROVIDER_KEY,
  GEMINI_PATH,
  TEAM_GEMINI_KEY,
  keys,
  startReplica,
} from './lib/world.mjs';
import { shellHistory } from './lib/histories.mjs';

const hostHeaders = {
  title: 'DNS rebinding: Host headers of other names on a loopback replica',
  property:
    'Host header checks: a loopback replica answers only loopback names (403 otherwise, nothing forwarded or kept), on model routes, /mcp, /api and the page',
  async run(world, evidence) {
    const replica = world.r1;
    const port = replica.port;
    const hosts = [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1.nip.io:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1@evil.example:${port}`,
      `LOCALHOST.:${port}`,
      `0x7f000001:${port}`,
    ];
    const body = shellHistory('rebind', 1, 5);
    const mark = world.provider.requests.length;
    const statuses = [];
    for (const host of hosts) {
      for (const [method, path, extra, payload] of [
        [
          'POST',
          `/gemini${GEMINI_PATH}`,
          `x-goog-api-key: ${world.keys.alice}\r\ncontent-type: application/json\r\n`,
          body,
        ],
        [
          'POST',
          '/mcp',
          `x-api-key: ${world.keys.alice}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n`,
          '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        ],
        ['GET', '/api/sessions', `x-toolmask-token: ${world.keys.alice}\r\n`, ''],
        ['GET', `/?token=${world.keys.alice}`, '', ''],
      ]) {
        const answer = await raw(
          port,
          `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}content-length: ${Buffer.byteLength(payload)}\r\nconnection: close\r\n\r\n${payload}`,
        );
        statuses.push(answer.status);
        if (answer.status !== 403)
          evidence.check(false, `Host ${host} ${method} ${path.slice(0, 30)}: ${answer.status}`);
      }
    }
    const none = await raw(
      port,
      `GET /api/sessions HTTP/1.0\r\nx-toolmask-token: ${world.keys.alice}\r\n\r\n`,
    );
    evidence.check(
      none.status === 400 || none.status === 403,
      `no Host (HTTP/1.0): ${none.status}`,
    );
    const forwarded = providerSince(world, mark).length;
    evidence.check(
      statuses.every((status) => status === 403) && forwarded === 0,
      `${statuses.length} requests with ${hosts.length} foreign Host names: ${statusCounts(statuses)}; forwarded ${forwarded}`,
    );
  },
};

const malformedHosts = {
  title: 'Host values no browser sends: two Host lines, a bracketed loopback with a suffix',
  property:
    'a request with two Host lines is refused (400, RFC 9112 §3.2), and a Host that is not a loopback name is not taken for one; neither is reachable by DNS rebinding (a browser sends one valid Host), so a failure here is hygiene, not a hole',
  async run(world, evidence) {
    const port = world.r1.port;
    const token = `x-toolmask-token: ${world.keys.alice}\r\nconnection: close\r\n\r\n`;
    const twice = await raw(
      port,
      `GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: evil.example\r\n${token}`,
    );
    evidence.check(
      twice.status === 400 || twice.status === 403,
      `two Host lines (loopback first): ${twice.status}`,
    );
    for (const host of [`[::1].evil:${port}`, `[::1]evil.example`, `[::1]:${port}.evil`]) {
      const answer = await raw(port, `GET /api/sessions HTTP/1.1\r\nHost: ${host}\r\n${token}`);
      evidence.check(
        answer.status === 400 || answer.status === 403,
        `Host ${host}: ${answer.status}`,
      );
    }
  },
};

const metricsAndStatus = {
  title: '/metrics and /api/status as a stranger, a made-up key, Alice and the admin',
  property:
    "/metrics answers the admin key only; /api/status shows a non-admin no state folder, settings path, upstream URL or other people's counts",
  async run(world, evidence) {
    const replica = world.r2;
    for (const [who, key] of [
      ['no key', null],
      ['a made-up key', 'tmk_made_up_metrics'],
      ['a made-up provider key', 'sk-made-up-metrics'],
      ['Alice', world.keys.alice],
      ["Bob's provider key", BOB_PROVIDER_KEY],
    ]) {
      const metrics = await metricsText(replica, key);
      evidence.check(
        metrics.status === 401 || metrics.status === 403,
        `/metrics as ${who}: ${metrics.status}`,
      );
    }
    const admin = await metricsText(replica);
    evidence.check(admin.status === 200, `/metrics as the admin: ${admin.status}`);
    const leaks = [
      world.root,
      world.settingsFile,
      world.provider.url,
      'stateDir',
      'settingsPath',
      'conversationsInMemory',
    ];
    for (const [who, key] of [
      ['a made-up key', 'tmk_made_up_status'],
      ['a made-up provider key', 'sk-made-up-status'],
      ['Alice', world.keys.alice],
      ['Bob', world.keys.bob],
    ]) {
      const status = await call(`${replica.url}/api/status`, {
        headers: { 'x-toolmask-token': key },
      });
      const shown = leaks.filter((leak) => status.text.includes(leak));
      if (who === 'Alice' || who === 'Bob') {
        evidence.check(
          status.status === 200,
          `/api/status answers ${who}: ${status.status} ${status.status === 200 ? '' : status.text.slice(0, 100)}`,
        );
      }
      evidence.check(
        shown.length === 0,
        `/api/status as ${who}: ${status.status}${shown.length ? `, shows ${shown.join(', ')}` : ', nothing of the replica'}`,
      );
    }
  },
};

/** Opens `/api/events` as `key`; the status, and what arrives on it. */
function stream(port, key) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const opened = { socket, status: 0, text: '' };
    socket.on('connect', () =>
      socket.write(
        `GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nx-toolmask-token: ${key}\r\naccept: text/event-stream\r\n\r\n`,
      ),
    );
    socket.on('data', (chunk) => {
      opened.text += chunk.toString('utf8');
      if (!opened.status) {
        opened.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(opened.text)?.[1] ?? 0);
        resolve(opened);
      }
    });
    socket.on('error', () => resolve(opened));
    socket.on('close', () => resolve(opened));
  });
}

const liveFeed = {
  title:
    "the dashboard's live feed: 520 streams of made-up provider keys, 64 of made-up tmk_, Bob watching Alice",
  property:
    "strangers cannot fill the live feed or watch another's: made-up keys' streams leave Alice a stream (200), one viewer holds at most 4, and Bob's stream gets no event for Alice's request",
  async run(world, evidence) {
    const replica = world.r1;
    const opened = [];
    try {
      // Bob watches while Alice sends a request; Bob holds at most 4 streams.
      const alice = await stream(replica.port, world.keys.alice);
      opened.push(alice);
      const bobs = [];
      for (let i = 0; i < 5; i++) bobs.push(await stream(replica.port, world.keys.bob));
      opened.push(...bobs);
      const bobStatuses = bobs.map((s) => s.status);
      evidence.check(
        bobStatuses.slice(0, 4).every((status) => status === 200) && bobStatuses[4] === 503,
        `Bob's 5 streams, one after another: ${bobStatuses.join(' ')}`,
      );
      const watching = bobs[0];
      const before = { bob: watching.text.length, alice: alice.text.length };
      await served(world, replica);
      await sleep(1_500);
      const bobGot = watching.text.slice(before.bob);
      const aliceGot = alice.text.slice(before.alice);
      evidence.check(
        !/event: change/.test(bobGot),
        `Bob's stream after Alice's request: ${/event: change/.test(bobGot) ? 'a change event' : 'nothing'}`,
      );
      evidence.note(
        `Alice's own stream after her request: ${/event: change/.test(aliceGot) ? 'a change event' : 'nothing'}`,
      );
      for (const s of opened.splice(0)) s.socket.destroy();
      await sleep(300);
      // Strangers: made-up virtual keys, then made-up provider keys (4 streams each).
      const virtual = await Promise.all(
        Array.from({ length: 64 }, (_, i) => stream(replica.port, `tmk_feed_made_up_${i}`)),
      );
      opened.push(...virtual);
      const provider = [];
      for (let i = 0; i < 130; i++) {
        provider.push(
          ...(await Promise.all(
            Array.from({ length: 4 }, () => stream(replica.port, `sk-feed-made-up-${i}`)),
          )),
        );
      }
      opened.push(...provider);
      evidence.note(
        `64 made-up tmk_ streams: ${statusCounts(virtual.map((s) => s.status))}; 520 made-up provider-key streams (130 keys × 4): ${statusCounts(provider.map((s) => s.status))}`,
      );
      const late = await stream(replica.port, world.keys.alice);
      opened.push(late);
      evidence.check(
        late.status === 200,
        `Alice's stream after the strangers' streams: ${late.status}`,
      );
    } finally {
      for (const s of opened) s.socket.destroy();
    }
  },
};

const haproxyLog = {
  title: "HAProxy's log (the docs' configuration) after ?key=, /?token= and header keys",
  property:
    "no key is ever written to the balancer's log: virtual, admin and provider keys sent as ?key=, /?token=, Bearer and x-goog-api-key leave no trace",
  async run(world, evidence) {
    const url = world.haproxy.url;
    const body = shellHistory('logged', 1, 5);
    const post = (path, headers = {}) =>
      call(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    await post(`/gemini${GEMINI_PATH}?key=${world.keys.alice}`);
    await post(`/gemini${GEMINI_PATH}?key=${ALICE_PROVIDER_KEY}`);
    await post(`/gemini${GEMINI_PATH}`, { authorization: `Bearer ${world.keys.bob}` });
    await post(`/gemini${GEMINI_PATH}`, { 'x-goog-api-key': BOB_PROVIDER_KEY });
    await call(`${url}/?token=${ADMIN_KEY}`);
    await call(`${url}/?token=${world.keys.alice}`);
    await sleep(500);
    const log = world.haproxy.output();
    const secrets = [
      ["Alice's virtual key", world.keys.alice],
      ["Bob's virtual key", world.keys.bob],
      ['the admin key', ADMIN_KEY],
      ["Alice's provider key", ALICE_PROVIDER_KEY],
      ["Bob's provider key", BOB_PROVIDER_KEY],
      ["the team's key", TEAM_GEMINI_KEY],
    ];
    for (const [what, secret] of secrets) {
      const count = log.split(secret).length - 1;
      evidence.check(count === 0, `${what}: ${count} times in ${log.split('\n').length} log lines`);
    }
    evidence.check(log.includes('/gemini/v1beta/models'), 'the log does hold the requests (paths)');
  },
};

const commandLines = {
  title: 'command lines any local account reads (/proc/<pid>/cmdline), with a Redis password',
  property:
    "no secret is on a command line: the Redis password (from REDIS_PASSWORD / REDIS_PASSWORD_FILE), the admin key and the team key are in no replica's or `toolmask keys`'s arguments",
  async run(world, evidence) {
    const password = 'redis-password-3e9b1';
    const redis = await startRedisServer({ password });
    world.cleanups.push(() => redis.close());
    const store = `${redis.url}/0`;
    const file = `${world.root}/redis-password`;
    (await import('node:fs')).writeFileSync(file, `${password}\n`, { mode: 0o600 });
    const created = await keys(store, 'create', 'gina', { REDIS_PASSWORD_FILE: file });
    evidence.check(
      created.stdout.startsWith('tmk_') && !created.cmdline.includes(password),
      `toolmask keys create with REDIS_PASSWORD_FILE: a key, the password not in its arguments`,
    );
    const replica = await startReplica(world, 'r-password', {
      store,
      env: { REDIS_PASSWORD: password },
    });
    try {
      const sent = await served(world, replica, created.stdout);
      evidence.check(
        sent.status === 200,
        `a replica with REDIS_PASSWORD serves Gina: ${sent.status}`,
      );
      for (const each of world.replicas.filter((r) => r.alive())) {
        const cmdline = readFileSync(`/proc/${each.pid}/cmdline`, 'utf8').split('\0').join(' ');
        const found = [password, ADMIN_KEY, TEAM_GEMINI_KEY, world.keys.alice].filter((secret) =>
          cmdline.includes(secret),
        );
        evidence.check(
          found.length === 0,
          `${each.name}: ${found.length} secrets in /proc/${each.pid}/cmdline`,
        );
      }
    } finally {
      await replica.stop();
    }
  },
};

export default [hostHeaders, malformedHosts, metricsAndStatus, liveFeed, haproxyLog, commandLines];
