/**
 * Read-backs on a team replica are limited per owner (issue 33, finding 8): one client's 40
 * parallel reads of its own output reach the shared store at most `READ_BACKS_PER_OWNER` at a
 * time, the rest are refused at once with an error the model reads, and another owner's read goes
 * through meanwhile.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import type { SharedOutputStore } from '../state/stores.js';
import { post, shellHistory } from '../test-utils/gemini-client.js';
import { startMemoryTeamReplica } from '../test-utils/team-replica.js';
import { READ_BACKS_PER_OWNER } from './read-back-slots.js';

const cleanups = cleanUpAfterEach();
const GEMINI = '/v1beta/models/gemini-2.5-flash:generateContent';
const ALICE = { 'x-goog-api-key': 'alice-provider-key' };
const BOB = { 'x-goog-api-key': 'bob-provider-key' };

/**
 * The store's reads under `holding.folder` (once set), kept waiting until `release()`, and
 * counted; `tooMany` resolves once more than `READ_BACKS_PER_OWNER` wait at once.
 */
function heldReads(outputs: SharedOutputStore) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let overflow!: () => void;
  const tooMany = new Promise<void>((resolve) => (overflow = resolve));
  const counts = { now: 0, most: 0 };
  const holding: { folder?: string } = {};
  const store: SharedOutputStore = {
    root: outputs.root,
    save: (...args) => outputs.save(...args),
    prune: (before) => outputs.prune(before),
    close: () => outputs.close(),
    async read(relativePath) {
      if (!holding.folder || !relativePath.includes(holding.folder)) {
        return outputs.read(relativePath);
      }
      counts.most = Math.max(counts.most, ++counts.now);
      if (counts.now > READ_BACKS_PER_OWNER) overflow();
      try {
        await gate;
        return await outputs.read(relativePath);
      } finally {
        counts.now--;
      }
    },
  };
  return { store, counts, holding, release, tooMany };
}

type TextResult = { isError?: boolean; content: Array<{ text: string }> };

async function mcp(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  cleanups.push(() => client.close());
  return client;
}

const read = (client: Client, file: string) =>
  client.callTool({
    name: 'read_tool_output',
    arguments: { file, limit: 3 },
  }) as Promise<TextResult>;

/** A team replica whose store holds reads of `held.holding.folder` until released. */
async function replicaWithHeldReads() {
  let held: ReturnType<typeof heldReads> | undefined;
  const { running, upstream } = await startMemoryTeamReplica(cleanups, (stores) => {
    held = heldReads(stores.outputs);
    return { outputs: held.store };
  });
  // Reads still held when a test fails end, so the gateway can close.
  cleanups.push(async () => held!.release());
  /** The file of one of the outputs `headers`' owner had masked (proven by a first answer). */
  const fileOf = async (headers: Record<string, string>, tag: string) => {
    expect(
      (await post(`${running.url}${GEMINI}`, shellHistory(`${tag}-proof`, 1), headers)).status,
    ).toBe(200);
    expect((await post(`${running.url}${GEMINI}`, shellHistory(tag, 12), headers)).status).toBe(
      200,
    );
    const masked = upstream.requests.at(-1)!.raw.toString('utf8');
    return JSON.parse(`"${/file=\\"([^\\]+)\\"/.exec(masked)![1]!}"`) as string;
  };
  return { running, held: held!, fileOf };
}

describe('read-backs on a team replica (finding 8)', () => {
  it("limits each owner's reads in flight; another owner's read goes through", async () => {
    const { running, held, fileOf } = await replicaWithHeldReads();
    const bobFile = await fileOf(BOB, 'bob');
    const aliceFile = await fileOf(ALICE, 'alice');
    // Bob's reads wait for the store until released.
    held.holding.folder = bobFile.split('/').at(-2)!;

    const bob = await mcp(running.url, BOB);
    const refused: TextResult[] = [];
    let allRefused!: () => void;
    const refusedAtOnce = new Promise<void>((resolve) => (allRefused = resolve));
    const bobReads = Array.from({ length: 40 }, () =>
      read(bob, bobFile).then((result) => {
        if (result.isError) refused.push(result);
        if (refused.length === 40 - READ_BACKS_PER_OWNER) allRefused();
        return result;
      }),
    );
    // Refused at once, while Bob's first reads still wait for the store.
    await refusedAtOnce;
    expect(held.counts.most).toBeLessThanOrEqual(READ_BACKS_PER_OWNER);
    expect(refused[0]!.content[0]!.text).toMatch(
      /too many reads of your outputs at once \(4 in flight on this gateway\): wait for one to finish, then retry/,
    );
    // Alice's read is not held up by Bob's.
    const alice = await read(await mcp(running.url, ALICE), aliceFile);
    expect(alice.isError).toBeFalsy();
    held.release();
    const done = await Promise.all(bobReads);
    expect(done.filter((result) => !result.isError)).toHaveLength(READ_BACKS_PER_OWNER);
    // Once they end, Bob reads again.
    expect((await read(bob, bobFile)).isError).toBeFalsy();
  });
});

/** `GET /api/outputs` of `file` (its session is its folder's), as `key`'s owner. */
async function dashboardRead(url: string, key: string, file: string): Promise<Response> {
  const session = /session-([^/]+)\//.exec(file)![1]!;
  const query = new URLSearchParams({ session, file });
  return fetch(`${url}/api/outputs?${query}`, { headers: { 'x-toolmask-token': key } });
}

describe("the dashboard's reads of outputs on a team replica", () => {
  it("take the owner's read-back slots: past them 429, and /mcp's reads are counted with them", async () => {
    const { running, held, fileOf } = await replicaWithHeldReads();
    const bobFile = await fileOf(BOB, 'bob');
    const aliceFile = await fileOf(ALICE, 'alice');
    held.holding.folder = bobFile.split('/').at(-2)!;
    const bobKey = BOB['x-goog-api-key'];

    // Bob's page asks for 6 reads at once: 4 reach the store, 2 are refused at once.
    const pending = Array.from({ length: 6 }, () => dashboardRead(running.url, bobKey, bobFile));
    const settled: Response[] = [];
    const twoAnswered = new Promise<Response[]>((resolve) => {
      for (const answer of pending) {
        void answer.then((response) => {
          settled.push(response);
          if (settled.length === 2) resolve(settled.slice());
        });
      }
    });
    // Either two answers come back while the store holds the rest, or a fifth read reaches it.
    const refused = await Promise.race([twoAnswered, held.tooMany.then(() => [])]);
    expect(held.counts.most).toBeLessThanOrEqual(READ_BACKS_PER_OWNER);
    expect(refused.map((response) => response.status)).toEqual([429, 429]);
    expect(refused[0]!.headers.get('retry-after')).toBe('1');
    expect(((await refused[0]!.json()) as { error: { message: string } }).error.message).toMatch(
      /too many reads of your outputs at once \(4 in flight/,
    );
    expect(held.counts.now).toBe(READ_BACKS_PER_OWNER);
    // His model's read-back finds his slots taken by the page's reads.
    const bobMcp = await read(await mcp(running.url, BOB), bobFile);
    expect(bobMcp.content[0]!.text).toMatch(/too many reads of your outputs at once/);
    // Alice's page reads meanwhile.
    const alice = await dashboardRead(running.url, ALICE['x-goog-api-key'], aliceFile);
    expect(alice.status).toBe(200);
    expect(((await alice.json()) as { text: string }).text).toContain('alice');
    held.release();
    const done = await Promise.all(pending);
    expect(done.filter((response) => response.status === 200)).toHaveLength(READ_BACKS_PER_OWNER);
    // Each read gave its slot back: Bob reads again.
    expect((await dashboardRead(running.url, bobKey, bobFile)).status).toBe(200);
    expect((await read(await mcp(running.url, BOB), bobFile)).isError).toBeFalsy();
  });
});
