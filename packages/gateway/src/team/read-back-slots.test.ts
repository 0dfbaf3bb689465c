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
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import type { SharedOutputStore } from '../state/stores.js';
import {
  gatewayFixture,
  post,
  shellHistory,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import { memoryTeamStores } from '../test-utils/memory-team-stores.js';
import { READ_BACKS_PER_OWNER } from './read-back-slots.js';

const cleanups = cleanUpAfterEach();
const GEMINI = '/v1beta/models/gemini-2.5-flash:generateContent';
const ALICE = { 'x-goog-api-key': 'alice-provider-key' };
const BOB = { 'x-goog-api-key': 'bob-provider-key' };

/**
 * The store's reads under `holding.folder` (once set), kept waiting until `release()`, and
 * counted.
 */
function heldReads(outputs: SharedOutputStore) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
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
      try {
        await gate;
        return await outputs.read(relativePath);
      } finally {
        counts.now--;
      }
    },
  };
  return { store, counts, holding, release };
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

describe('read-backs on a team replica (finding 8)', () => {
  it("limits each owner's reads in flight; another owner's read goes through", async () => {
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    const upstream = await startFakeUpstream(() => geminiAnswer([{ text: 'ok' }]));
    cleanups.push(() => upstream.close());
    const stores = memoryTeamStores();
    const held = heldReads(stores.outputs);
    const running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { gemini: upstream.url },
      stores: { conversations: stores.conversations, usage: stores.usage },
      team: {
        outputs: held.store,
        proofs: stores.proofs,
        cookieSecret: async () => 'team-cookie-secret',
        adminKey: 'the-admin-key',
      },
    });
    cleanups.push(() => running.close());
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
