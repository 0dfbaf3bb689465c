/**
 * What a stranger can send to take a replica down (finding 1, and the bounds every HTTP server
 * owes): a model name of megabytes, a header of a megabyte, bodies past the limits, JSON nested a
 * million deep, slow-loris connections and thousands of idle ones. Each must leave the replica
 * standing, its `/metrics` small, and Alice served.
 */
import * as net from 'node:net';
import { call, raw } from './lib/http.mjs';
import { checkStillServes, metricsText, served } from './lib/probes.mjs';
import { statusCounts, sleep } from './lib/verdict.mjs';
import { BOB_PROVIDER_KEY, rssMb } from './lib/world.mjs';

const RSS_BOUND_MB = 500;
const OPENAI_PATH = '/openai/v1/chat/completions';

function chat(model, text = 'hello') {
  return JSON.stringify({ model, messages: [{ role: 'user', content: text }] });
}

/** `count` requests, `parallel` at a time, each made by `make(index)`; their statuses. */
async function flood(count, parallel, make) {
  const statuses = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const index = next++;
        statuses.push((await make(index)).status);
      }
    }),
  );
  return statuses;
}

const hugeModelName = {
  title: 'a 4 MB model name, from a proven key and from made-up keys',
  property:
    'a stranger cannot crash a replica or bloat /metrics with model names: it stays up, /metrics answers 200 under 1 MB with at most 33 model labels, RSS under 500 MB',
  async run(world, evidence, { quick }) {
    const replica = world.r1;
    const count = quick ? 4 : 12;
    const proof = await call(`${replica.url}${OPENAI_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${BOB_PROVIDER_KEY}` },
      body: chat('gpt-5', 'proof'),
    });
    evidence.note(`Bob's own provider key proves itself: ${proof.status}`);
    const name = (index) => `m${index}-${'x'.repeat(4 * 1024 * 1024)}`;
    const proven = await flood(count, 2, (index) =>
      call(`${replica.url}${OPENAI_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${BOB_PROVIDER_KEY}`,
        },
        body: chat(name(index)),
      }),
    );
    const strangers = await flood(count, 2, (index) =>
      call(`${replica.url}${OPENAI_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer sk-made-up-${index}`,
        },
        body: chat(name(index + count)),
      }),
    );
    // And 60 short made-up names: the label limit.
    const short = await flood(60, 4, (index) =>
      call(`${replica.url}${OPENAI_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${BOB_PROVIDER_KEY}`,
        },
        body: chat(`made-up-model-${index}`),
      }),
    );
    evidence.note(
      `${count} × 4 MB names with Bob's key: ${statusCounts(proven)}; ${count} with made-up keys: ${statusCounts(strangers)}; 60 short made-up names: ${statusCounts(short)}`,
    );
    const metrics = await metricsText(replica);
    const labels = new Set([...metrics.text.matchAll(/model="([^"]*)"/g)].map((match) => match[1]));
    evidence.check(
      metrics.status === 200 && metrics.text.length < 1024 * 1024,
      `/metrics ${metrics.status}, ${(metrics.text.length / 1024).toFixed(0)} kB`,
    );
    evidence.check(labels.size <= 33, `${labels.size} model labels at /metrics (bound 33)`);
    evidence.check(
      replica.peakRssMb < RSS_BOUND_MB,
      `${replica.name} peak RSS ${replica.peakRssMb.toFixed(0)} MB (bound ${RSS_BOUND_MB})`,
    );
    await checkStillServes(world, replica, evidence);
  },
};

const hugeHeaders = {
  title: 'a 1 MB header, 5,000 headers, a 64 kB request line',
  property: 'a huge header is refused (431/400) and bounded: the replica stays up and serves Alice',
  async run(world, evidence) {
    const replica = world.r1;
    const head = (extra, path = '/gemini/v1beta/models/m:generateContent') =>
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 2\r\n${extra}\r\n{}`;
    const big = await raw(replica.port, head(`x-goog-api-key: ${'k'.repeat(1024 * 1024)}\r\n`));
    const many = await raw(
      replica.port,
      head(Array.from({ length: 5_000 }, (_, i) => `x-h${i}: v\r\n`).join('')),
    );
    const line = await raw(replica.port, head('', `/gemini/${'a'.repeat(64 * 1024)}`));
    for (const [what, answer] of [
      ['1 MB header', big],
      ['5,000 headers', many],
      ['64 kB path', line],
    ]) {
      evidence.check(
        answer.status === 431 || answer.status === 400 || answer.status === 414,
        `${what}: ${answer.status || 'connection closed'} in ${answer.ms} ms`,
      );
    }
    await checkStillServes(world, replica, evidence);
  },
};

const hugeBodies = {
  title: 'bodies past the limit: 200 MB declared, 100 MB chunked, parallel 40 MB bodies',
  property:
    'a body past --max-body-mb is refused (413) without being held whole; parallel big bodies are held to the in-flight budget (503): RSS under 500 MB, the replica stands',
  async run(world, evidence, { quick }) {
    const replica = world.r2;
    const path = '/gemini/v1beta/models/m:generateContent';
    const declared = await raw(
      replica.port,
      (socket) => {
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-goog-api-key: made-up\r\ncontent-type: application/json\r\ncontent-length: ${200 * 1024 * 1024}\r\n\r\n`,
        );
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 200 && !socket.destroyed) {
            sent += 1;
            if (!socket.write(chunk)) return void socket.once('drain', pump);
          }
        };
        pump();
      },
      { timeoutMs: 60_000 },
    );
    evidence.check(
      declared.status === 413,
      `200 MB declared: ${declared.status} in ${declared.ms} ms`,
    );
    const chunked = await raw(
      replica.port,
      (socket) => {
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-goog-api-key: made-up\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
        );
        const chunk = Buffer.concat([
          Buffer.from(`100000\r\n`),
          Buffer.alloc(0x100000, 0x20),
          Buffer.from('\r\n'),
        ]);
        let sent = 0;
        const pump = () => {
          while (sent < 100 && !socket.destroyed) {
            sent += 1;
            if (!socket.write(chunk)) return void socket.once('drain', pump);
          }
        };
        pump();
      },
      { timeoutMs: 60_000 },
    );
    evidence.check(chunked.status === 413, `100 MB chunked: ${chunked.status} in ${chunked.ms} ms`);
    const parallel = quick ? 4 : 8;
    const size = (quick ? 20 : 40) * 1024 * 1024;
    const body = JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: 'x'.repeat(size) }] }],
    });
    const statuses = await Promise.all(
      Array.from({ length: parallel }, (_, index) =>
        call(`${replica.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-goog-api-key': `made-up-${index}` },
          body,
          timeoutMs: 90_000,
        }).then((answer) => answer.status),
      ),
    );
    evidence.note(
      `${parallel} parallel bodies of ${size >> 20} MB, made-up keys: ${statusCounts(statuses)}`,
    );
    evidence.check(
      statuses.every((status) => status === 401 || status === 503 || status === 413),
      "each answered: the provider's 401, or 503 past the in-flight budget",
    );
    evidence.check(
      replica.peakRssMb < RSS_BOUND_MB,
      `${replica.name} peak RSS ${replica.peakRssMb.toFixed(0)} MB (bound ${RSS_BOUND_MB})`,
    );
    await checkStillServes(world, replica, evidence);
  },
};

function nested(depth, open, close, inner = '0') {
  return open.repeat(depth) + inner + close.repeat(depth);
}

const deepJson = {
  title: 'JSON nested a million deep: in a tool output, as the body, as an object chain',
  property:
    'deep JSON cannot crash a replica (no stack overflow): each request is answered and the replica stands',
  async run(world, evidence, { quick }) {
    const replica = world.r1;
    const depth = quick ? 200_000 : 1_000_000;
    const inOutput = `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"id":"d1","name":"run_shell_command","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"id":"d1","name":"run_shell_command","response":{"output":${nested(depth, '[', ']')}}}}]}]}`;
    const bodies = [
      ['deep array in a tool output', inOutput],
      ['deep array as the body', nested(depth, '[', ']')],
      ['deep object chain', nested(depth, '{"a":', '}', '1')],
      ['unclosed deep array', '['.repeat(depth)],
    ];
    const path = '/gemini/v1beta/models/gemini-2.5-flash:generateContent';
    for (const [what, body] of bodies) {
      for (const [who, key] of [
        ['Alice', world.keys.alice],
        ['a made-up key', 'made-up-deep'],
      ]) {
        const answer = await call(`${replica.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
          body,
          timeoutMs: 60_000,
        });
        evidence.check(
          answer.status > 0 && answer.status < 500,
          `${what} (${(body.length / 1e6).toFixed(1)} MB) as ${who}: ${answer.status} in ${answer.ms} ms`,
        );
      }
    }
    await checkStillServes(world, replica, evidence);
  },
};

/** Opens `count` sockets to `port`; each gets `start(socket)` once connected. */
async function openSockets(port, count, start = () => undefined) {
  const sockets = [];
  let closedByServer = 0;
  for (let index = 0; index < count; index++) {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('close', () => (closedByServer += socket.ownClose ? 0 : 1));
    socket.on('connect', () => start(socket));
    sockets.push(socket);
    if (index % 100 === 99) await sleep(20);
  }
  return {
    sockets,
    closedByServer: () => closedByServer,
    end() {
      for (const socket of sockets) {
        socket.ownClose = true;
        socket.destroy();
      }
    },
  };
}

const slowLoris = {
  title: 'slow-loris: hundreds of requests whose headers (or body) trickle in a byte a second',
  property:
    'a slow-loris holds no one else up: Alice is served within 3 s while the slow connections are open, and the replica stands',
  async run(world, evidence, { quick }) {
    const replica = world.r2;
    const count = quick ? 150 : 400;
    const seconds = quick ? 4 : 10;
    const timers = [];
    const opened = Date.now();
    const headers = await openSockets(replica.port, count, (socket) => {
      socket.write('POST /gemini/v1beta/models/m:generateContent HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      let n = 0;
      timers.push(
        setInterval(() => !socket.destroyed && socket.write(`x-slow-${n++}: a\r\n`), 1_000),
      );
    });
    const bodies = await openSockets(replica.port, count, (socket) => {
      socket.write(
        'POST /gemini/v1beta/models/m:generateContent HTTP/1.1\r\nHost: 127.0.0.1\r\nx-goog-api-key: made-up\r\ncontent-length: 1000000\r\n\r\n{',
      );
      timers.push(setInterval(() => !socket.destroyed && socket.write(' '), 1_000));
    });
    await sleep(1_000);
    const during = [];
    for (let probe = 0; probe < 3; probe++) {
      during.push(await served(world, replica));
      await sleep((seconds * 1000) / 3);
    }
    for (const answer of during) {
      evidence.check(
        answer.status === 200 && answer.ms < 3_000,
        `Alice during ${count * 2} slow connections: ${answer.status} in ${answer.ms} ms`,
      );
    }
    // A team replica lets a connection go 10 s after it began when its headers are not all in
    // (headersTimeout, checked every second); a slow body has the 5-minute request limit.
    const deadline = opened + 16_000;
    while (headers.closedByServer() < count && Date.now() < deadline) await sleep(250);
    evidence.note(
      `${((Date.now() - opened) / 1000).toFixed(1)} s after they were opened the replica had closed ${headers.closedByServer()} of ${count} slow-header and ${bodies.closedByServer()} slow-body connections (headers limit 10 s; request limit 5 min)`,
    );
    timers.forEach(clearInterval);
    headers.end();
    bodies.end();
    await checkStillServes(world, replica, evidence);
  },
};

const manyConnections = {
  title: 'thousands of idle connections at once',
  property:
    'many connections hold no one else up: Alice is served within 3 s while they are open, RSS stays under 500 MB',
  async run(world, evidence, { quick }) {
    const replica = world.r1;
    const count = quick ? 1_000 : 4_000;
    const before = rssMb(replica.pid);
    const idle = await openSockets(replica.port, count);
    await sleep(1_000);
    const alice = await served(world, replica);
    const during = rssMb(replica.pid);
    evidence.check(
      alice.status === 200 && alice.ms < 3_000,
      `Alice with ${count} idle connections open: ${alice.status} in ${alice.ms} ms`,
    );
    evidence.check(
      (during ?? 0) < RSS_BOUND_MB,
      `RSS ${before?.toFixed(0)} MB before, ${during?.toFixed(0)} MB with them open`,
    );
    evidence.note(`${idle.closedByServer()} of them closed by the replica within 1 s`);
    idle.end();
    await checkStillServes(world, replica, evidence);
  },
};

export default [hugeModelName, hugeHeaders, hugeBodies, deepJson, slowLoris, manyConnections];
