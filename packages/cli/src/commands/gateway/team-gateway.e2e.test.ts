/**
 * A team gateway end to end, as a team would run it: three `toolmask gateway --store redis://...`
 * processes behind a real HAProxy (round robin, no stickiness, docs/team/haproxy.cfg), a real
 * `redis-server`, and a recorded session (../shared/traces) sent by one person with a virtual
 * key. One replica is killed in the middle of a request and started again; the client retries,
 * as clients do. The upstream bytes must be those one gateway sends; an output masked through one
 * replica is read back over `/mcp` through another; a second person's key is refused; and Redis
 * stopped for a while loses no turn.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import type { Content } from '@toolmask/core';
import {
  PrefixCache,
  geminiAnswer,
  startFakeUpstream,
  type FakeUpstream,
} from '@toolmask/test-support/fake-upstream';
import { haproxyAvailable, startHaproxy } from '@toolmask/test-support/haproxy';
import {
  redisAvailable,
  redisServerPath,
  startRedisServer,
} from '@toolmask/test-support/redis-server';
import { TRACES_SKIP_MESSAGE, loadTraceSession, tracesDir } from '@toolmask/test-support/traces';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { freePort } from '@toolmask/test-support/loopback-servers';

const CLI = fileURLToPath(new URL('../../../dist/index.js', import.meta.url));
const TRACE = 'mini-swe-agent-gemini3pro/django__django-11087';
const MODEL_PATH = '/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse';
const PROVIDER_KEY = 'the-teams-real-provider-key';
const ADMIN_KEY = 'the-admin-key';

const traces = tracesDir();
if (!traces) console.warn(`[toolmask] team gateway e2e ${TRACES_SKIP_MESSAGE}`);
const runs =
  traces !== undefined &&
  redisAvailable('team gateway e2e') &&
  haproxyAvailable('team gateway e2e');

const cleanups = cleanUpAfterEach();

interface Replica {
  name: string;
  port: number;
  url: string;
  process?: ChildProcess;
}

/** Starts `toolmask gateway` for a replica; resolves once it prints where it listens. */
async function startReplica(
  replica: Replica,
  args: { store: string; upstream: string; root: string },
): Promise<void> {
  const stateDir = path.join(args.root, replica.name);
  const child = spawn(
    process.execPath,
    [
      CLI,
      'gateway',
      '--store',
      args.store,
      '--port',
      String(replica.port),
      '--state-dir',
      stateDir,
      '--upstream',
      args.upstream,
      '--settings',
      path.join(args.root, 'settings.json'),
      '--provider-key-env',
      'TEAM_PROVIDER_KEY',
      '--admin-key-env',
      'TEAM_ADMIN_KEY',
      '--instance',
      replica.name,
    ],
    {
      env: {
        ...process.env,
        HOME: args.root,
        TEAM_PROVIDER_KEY: PROVIDER_KEY,
        TEAM_ADMIN_KEY: ADMIN_KEY,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  replica.process = child;
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await new Promise<void>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`replica exited ${code}: ${stderr}`)));
  });
}

async function stopReplica(replica: Replica, signal: NodeJS.Signals): Promise<void> {
  const child = replica.process;
  replica.process = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}

/** The session's requests: the history before each recorded model turn. */
function requestsOf(contents: readonly Content[]): Content[][] {
  const requests: Content[][] = [];
  contents.forEach((content, index) => {
    if (index > 0 && content.role === 'model') requests.push(contents.slice(0, index));
  });
  return requests;
}

/** One model request as a client sends it, retried (as clients do) when the gateway fails. */
async function send(url: string, contents: Content[], key: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await fetch(`${url}${MODEL_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
        body: JSON.stringify({ contents }),
      });
      await answer.text();
      if (answer.status < 500 || attempt >= 5) return answer.status;
    } catch (error) {
      if (attempt >= 5) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Sent {
  replica: number;
  body: string;
}

/** Upstreams, one per replica (so a test knows which replica sent what), sharing one cache. */
async function upstreamsFor(
  count: number,
  sent: Sent[],
  hold?: (index: number, replica: number) => Promise<void> | undefined,
): Promise<FakeUpstream[]> {
  const cache = new PrefixCache();
  const upstreams: FakeUpstream[] = [];
  for (let replica = 0; replica < count; replica++) {
    const upstream = await startFakeUpstream(async (request) => {
      expect(request.headers['x-goog-api-key']).toBe(PROVIDER_KEY);
      const index = sent.push({ replica, body: request.raw.toString('utf8') }) - 1;
      await hold?.(index, replica);
      const contents = ((request.json as { contents?: unknown[] })?.contents ?? []) as unknown[];
      return geminiAnswer([{ text: 'ok' }], cache.usage(JSON.stringify(contents[0]), contents));
    });
    cleanups.push(() => upstream.close());
    upstreams.push(upstream);
  }
  return upstreams;
}

async function teamRoot(): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-team-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  await fs.writeFile(
    path.join(root, 'settings.json'),
    JSON.stringify({
      experimental: {
        // A short session: the floor warm rule masks in it (the rule is not the subject).
        toolOutputMasking: {
          toolProtectionThreshold: 8_000,
          minPrunableTokensThreshold: 8_000,
          warmRule: 'floor',
        },
      },
    }),
  );
  return root;
}

/** The virtual key `toolmask keys create` prints. */
async function createKey(store: string, name: string): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'keys', 'create', '--store', store, '--name', name]);
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
  return stdout.trim();
}

/** Copies a virtual key's two Redis entries from database `from` to `to` (redis-cli's COPY). */
async function copyKey(redisUrl: string, key: string, from: number, to: number): Promise<void> {
  const sha = createHash('sha256').update(key, 'utf8').digest('hex');
  const redisCli = path.join(path.dirname(redisServerPath()!), 'redis-cli');
  for (const name of [`toolmask:{vkeys}:key:${sha}`, 'toolmask:{vkeys}:names']) {
    const child = spawn(redisCli, ['-u', `${redisUrl}/${from}`, 'COPY', name, name, 'DB', `${to}`]);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('1');
  }
}

type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

async function readBack(url: string, key: string, file: string): Promise<TextResult> {
  const client = new Client({ name: 'toolmask-e2e', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { 'x-api-key': key } },
    }),
  );
  try {
    return (await client.callTool({
      name: 'read_tool_output',
      arguments: { file, limit: 20 },
    })) as TextResult;
  } finally {
    await client.close();
  }
}

describe.skipIf(!runs)('a team gateway: three replicas behind HAProxy, state in Redis', () => {
  it('sends what one gateway sends through a replica killed mid-request, reads back anywhere, keeps owners apart, and survives Redis stopping', async (test) => {
    const session = loadTraceSession(TRACE);
    const requests = requestsOf(session.contents);
    const redis = await startRedisServer();
    cleanups.push(() => redis.close());

    // Alice's one virtual key, in both databases: her owner names the key (a name made again is
    // someone new), so one gateway and the team see the same person only with the same key.
    const aliceKey = await createKey(`${redis.url}/0`, 'alice');
    await copyKey(redis.url, aliceKey, 0, 1);

    // One gateway alone: the bytes to match (its own Redis database).
    const alone: Sent[] = [];
    {
      const root = await teamRoot();
      const store = `${redis.url}/1`;
      const key = aliceKey;
      const [upstream] = await upstreamsFor(1, alone);
      const replica: Replica = { name: 'alone', port: await freePort(), url: '' };
      replica.url = `http://127.0.0.1:${replica.port}`;
      await startReplica(replica, { store, upstream: upstream!.url, root });
      cleanups.push(() => stopReplica(replica, 'SIGTERM'));
      for (const contents of requests) expect(await send(replica.url, contents, key)).toBe(200);
      await stopReplica(replica, 'SIGTERM');
    }
    expect(alone.some((sent) => sent.body.includes('tool_output_masked'))).toBe(true);

    // Three replicas behind HAProxy.
    const root = await teamRoot();
    const store = `${redis.url}/0`;
    const killAt = Math.floor(requests.length / 2);
    let held: { replica: number; release: () => void } | undefined;
    let heldNow: (() => void) | undefined;
    const heldReached = new Promise<void>((resolve) => (heldNow = resolve));
    const sent: Sent[] = [];
    const upstreams = await upstreamsFor(3, sent, (index, replica) => {
      // The first upstream request of the middle turn never gets its answer: its replica dies.
      if (index !== killAt || held) return undefined;
      return new Promise<void>((release) => {
        held = { replica, release };
        heldNow?.();
      });
    });
    const replicas: Replica[] = [];
    for (let index = 0; index < 3; index++) {
      const replica: Replica = { name: `replica-${index}`, port: await freePort(), url: '' };
      replica.url = `http://127.0.0.1:${replica.port}`;
      await startReplica(replica, { store, upstream: upstreams[index]!.url, root });
      cleanups.push(() => stopReplica(replica, 'SIGTERM'));
      replicas.push(replica);
    }
    const haproxy = await startHaproxy({
      backends: replicas.map((replica) => ({ name: replica.name, port: replica.port })),
      test,
    });

    for (let index = 0; index < requests.length; index++) {
      if (index !== killAt) {
        expect(await send(haproxy.url, requests[index]!, aliceKey)).toBe(200);
        continue;
      }
      const answered = send(haproxy.url, requests[index]!, aliceKey);
      await heldReached;
      const victim = replicas[held!.replica]!;
      await stopReplica(victim, 'SIGKILL');
      held!.release();
      // The client's retry lands on a live replica.
      expect(await answered).toBe(200);
      await startReplica(victim, { store, upstream: upstreams[held!.replica]!.url, root });
    }

    // The killed request went out once from the dead replica and once on the retry, the same
    // bytes; without it, the upstream saw exactly what it saw from one gateway.
    expect(sent[killAt + 1]!.body).toBe(sent[killAt]!.body);
    const team = sent.filter((_, index) => index !== killAt).map((entry) => entry.body);
    expect(team.length).toBe(alone.length);
    for (let index = 0; index < team.length; index++) {
      expect(team[index], `request ${index + 1}`).toBe(alone[index]!.body);
    }
    // Every replica served part of the session.
    expect(new Set(sent.map((entry) => entry.replica)).size).toBe(3);

    // Read back an output masked by one replica through each of the others, and through HAProxy.
    const last = sent.at(-1)!;
    const file = JSON.parse(`"${/file=\\"([^\\]+)\\"/.exec(last.body)![1]!}"`) as string;
    const maskedBy = sent.find((entry) => entry.body.includes(file))!.replica;
    for (const [index, replica] of replicas.entries()) {
      if (index === maskedBy) continue;
      const read = await readBack(replica.url, aliceKey, file);
      expect(read.isError, read.content[0]?.text).toBeFalsy();
      expect(read.content[0]!.text.length).toBeGreaterThan(100);
    }
    expect((await readBack(haproxy.url, aliceKey, file)).isError).toBeFalsy();
    expect((await readBack(haproxy.url, ADMIN_KEY, file)).isError).toBeFalsy();

    // A second person's key is refused, with their provider key or a virtual key of their own.
    const bobKey = await createKey(store, 'bob');
    for (const key of [bobKey, 'bobs-own-provider-key']) {
      const refused = await readBack(haproxy.url, key, file);
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toMatch(/another person/);
    }
    const bobSessions = await fetch(`${haproxy.url}/api/sessions`, {
      headers: { 'x-toolmask-token': bobKey },
    });
    expect(((await bobSessions.json()) as { sessions: unknown[] }).sessions).toEqual([]);

    // Redis stopped for a while: every turn still answered.
    const more = requestsOf(session.contents).slice(-4);
    await redis.stop({ keepData: true });
    for (const contents of more) expect(await send(haproxy.url, contents, aliceKey)).toBe(200);
    await redis.restart();
    // Back: a replica catches up and masking goes on.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const contents of more) expect(await send(haproxy.url, contents, aliceKey)).toBe(200);
    expect(sent.at(-1)!.body).toContain('tool_output_masked');

    // Redis frozen (a slow store: connections open, nothing answered): each turn is answered, held
    // up at most by the commands' time limits.
    redis.pause();
    try {
      for (const contents of more.slice(0, 2)) {
        const started = Date.now();
        expect(await send(haproxy.url, contents, aliceKey)).toBe(200);
        expect(Date.now() - started).toBeLessThan(5_000);
      }
    } finally {
      redis.resume();
    }
    // A team's /metrics answers the admin key only (issue 33, finding 13).
    const metrics = await (
      await fetch(`${replicas[0]!.url}/metrics`, { headers: { 'x-toolmask-token': ADMIN_KEY } })
    ).text();
    expect(metrics).toMatch(/toolmask_gateway_store_failures_total\{[^}]*instance="replica-0"/);
  }, 240_000);
});
