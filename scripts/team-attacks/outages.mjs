/**
 * Redis faults a stranger can exploit or that must not cost more than docs/team.md says
 * (findings 7 and 9): a frozen Redis (SIGSTOP: connections open, nothing answered), and a flood of
 * made-up virtual keys just before Redis goes away. Each attack has its own Redis and replica.
 */
import * as net from 'node:net';
import { startRedisServer } from '@toolmask/test-support/dist/redis-server.js';
import { call, readOutput } from './lib/http.mjs';
import { sendAs } from './lib/probes.mjs';
import { statusCounts } from './lib/verdict.mjs';
import { filesIn, keys, startReplica } from './lib/world.mjs';
import { shellHistory } from './lib/histories.mjs';

async function ownTeam(world, name) {
  const redis = await startRedisServer();
  world.cleanups.push(() => redis.close());
  const store = `${redis.url}/0`;
  const replica = await startReplica(world, name, { store });
  return { redis, store, replica };
}

/**
 * `count` requests made by `make(index)`, pipelined on `connections` sockets (each writes all of
 * its requests at once): the statuses of the answers.
 */
function pipelined(port, count, connections, make) {
  const share = Math.ceil(count / connections);
  return Promise.all(
    Array.from({ length: connections }, (_, connection) => {
      const first = connection * share;
      const requests = Math.max(0, Math.min(share, count - first));
      return new Promise((resolve) => {
        const statuses = [];
        if (requests === 0) return resolve(statuses);
        const socket = net.connect(port, '127.0.0.1');
        let buffered = '';
        socket.on('connect', () => {
          let text = '';
          for (let index = first; index < first + requests; index++) text += make(index);
          socket.write(text);
        });
        socket.on('data', (chunk) => {
          buffered += chunk.toString('latin1');
          for (const match of buffered.matchAll(/HTTP\/1\.1 (\d{3})/g))
            statuses.push(Number(match[1]));
          buffered = buffered.slice(buffered.lastIndexOf('HTTP/1.1 ') + 12);
          if (statuses.length >= requests) socket.destroy();
        });
        socket.on('close', () => resolve(statuses));
        socket.on('error', () => resolve(statuses));
      });
    }),
  ).then((all) => all.flat());
}

const frozenRedis = {
  title: 'Redis frozen (SIGSTOP): a turn with new outputs, a read-back, a dashboard login',
  property:
    'a frozen Redis costs a request no more than the documented limits: a turn answered 200 within 2 s, a read-back answers the store error within 2 s, /?token= answers 503 (not 500)',
  async run(world, evidence) {
    const { redis, store, replica } = await ownTeam(world, 'r-frozen');
    const dave = (await keys(store, 'create', 'dave')).stdout;
    const erin = (await keys(store, 'create', 'erin')).stdout;
    let file;
    for (let turn = 0; turn < 2; turn++) {
      const sent = await sendAs(world, replica, dave, shellHistory('dave', 8));
      file = filesIn(sent.upstream?.raw.toString('utf8') ?? '')[0];
    }
    evidence.check(file !== undefined, `Dave's session masked an output: ${file !== undefined}`);
    redis.pause();
    try {
      const first = Date.now();
      const turn = await sendAs(world, replica, dave, shellHistory('dave-more', 8));
      const firstMs = Date.now() - first;
      evidence.check(
        turn.status === 200 && firstMs < 2_000,
        `the first turn with 8 new outputs once Redis froze: ${turn.status} in ${firstMs} ms (bound 2 s)`,
      );
      const timed = await call(`${replica.url}/healthz`);
      evidence.note(`/healthz meanwhile ${timed.status} in ${timed.ms} ms`);
      const started = Date.now();
      const again = await sendAs(world, replica, dave, shellHistory('dave-third', 8));
      const againMs = Date.now() - started;
      evidence.check(
        again.status === 200 && againMs < 2_000,
        `a second turn with new outputs: ${again.status} in ${againMs} ms (bound 2 s)`,
      );
      const read = await readOutput(replica.url, dave, { file, limit: 5 });
      evidence.check(
        !read.ok && read.ms < 2_000 && /did not answer/.test(read.text),
        `a read-back: ${read.ok ? 'answered' : read.text.slice(0, 80)} in ${read.ms} ms`,
      );
      const login = await call(`${replica.url}/?token=${erin}`);
      evidence.check(
        login.status === 503 && login.ms < 2_000,
        `/?token= with a key not seen before: ${login.status} in ${login.ms} ms`,
      );
    } finally {
      redis.resume();
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = await sendAs(world, replica, dave, shellHistory('dave', 8));
    evidence.check(
      after.status === 200,
      `after Redis thaws: ${after.status}, masked ${(after.upstream?.raw.toString('utf8').match(/tool_output_masked/g) ?? []).length}`,
    );
    await replica.stop();
  },
};

const madeUpKeysThenOutage = {
  title: '10,001 made-up tmk_ keys, then Redis stops',
  property:
    'made-up keys cannot push a person out of the lookup cache: after 10,001 of them and with Redis down, a person checked a moment ago is still served (200, not 503)',
  async run(world, evidence) {
    const { redis, store, replica } = await ownTeam(world, 'r-outage');
    const frank = (await keys(store, 'create', 'frank')).stdout;
    const first = await sendAs(world, replica, frank, shellHistory('frank', 2, 20));
    evidence.check(first.status === 200, `Frank's first request: ${first.status}`);
    const started = Date.now();
    const statuses = await pipelined(
      replica.port,
      10_001,
      16,
      (index) =>
        `GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nx-toolmask-token: tmk_madeup${String(index).padStart(8, '0')}aaaaaaaaaaaaaaaa\r\n\r\n`,
    );
    evidence.note(
      `10,001 made-up keys in ${((Date.now() - started) / 1000).toFixed(1)} s (HTTP pipelining, 16 connections): ${statusCounts(statuses)}`,
    );
    await redis.stop();
    const during = await sendAs(world, replica, frank, shellHistory('frank', 2, 20));
    evidence.check(during.status === 200, `Frank with Redis down: ${during.status}`);
    const stranger = await call(`${replica.url}/api/status`, {
      headers: { 'x-toolmask-token': 'tmk_another_madeup_key_0000000000' },
    });
    evidence.note(`a new made-up key with Redis down: ${stranger.status}`);
    await replica.stop();
  },
};

export default [frozenRedis, madeUpKeysThenOutage];
