/**
 * `search_tool_outputs` on a team gateway (issue 32), on a real `redis-server`: two replicas share
 * it; Alice's outputs, masked through one, are found by her search through the other, and another
 * owner's search finds nothing of hers through either. The admin's search finds every owner's
 * through either, as the admin reads any output.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { redisAvailable, startRedisServer } from '@toolmask/test-support/redis-server';
import { post, shellHistory } from '../test-utils/gemini-client.js';
import { ADMIN_KEY, startTeamReplica } from '../test-utils/team-replica.js';

const cleanups = cleanUpAfterEach();
const GEMINI = '/v1beta/models/gemini-2.5-flash:generateContent';
const ALICE = { 'x-goog-api-key': 'alice-provider-key' };
const BOB = { 'x-goog-api-key': 'bob-provider-key' };
const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };

type TextResult = { isError?: boolean; content: Array<{ text: string }> };

async function mcp(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  cleanups.push(() => client.close());
  return client;
}

const search = async (url: string, headers: Record<string, string>, query: string) =>
  (await (
    await mcp(url, headers)
  ).callTool({
    name: 'search_tool_outputs',
    arguments: { query },
  })) as TextResult;

describe.runIf(redisAvailable('the team search test'))('search on a team gateway', () => {
  it("finds an owner's own outputs through any replica, and nothing of anyone else's", async () => {
    const redis = await startRedisServer();
    cleanups.push(() => redis.close());
    const upstream = await startFakeUpstream(() => geminiAnswer([{ text: 'ok' }]));
    cleanups.push(() => upstream.close());
    const replicas = [];
    for (let index = 0; index < 2; index++) {
      const { running } = await startTeamReplica({
        redisUrl: redis.url,
        upstreamUrl: upstream.url,
        cleanups,
        search: true,
      });
      replicas.push(running);
    }
    const [first, second] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    // Alice (proven by her first answer) masks outputs through the first replica; Bob too.
    for (const [headers, tag] of [
      [ALICE, 'alice'],
      [BOB, 'bob'],
    ] as const) {
      expect(
        (await post(`${first.url}${GEMINI}`, shellHistory(`${tag}-proof`, 1), headers)).status,
      ).toBe(200);
      expect((await post(`${first.url}${GEMINI}`, shellHistory(tag, 12), headers)).status).toBe(
        200,
      );
    }
    const masked = upstream.requests.at(-3)!.raw.toString('utf8');
    expect(masked).toContain('tool_output_masked');
    // A line of one of Alice's masked outputs: `alice-2 line 1500: compiled unit_1500.o`.
    const found = await search(second.url, ALICE, 'alice-2');
    expect(found.isError).toBeFalsy();
    expect(found.content[0]!.text).toMatch(/alice-2 line \d+: compiled/);
    // Named as a single gateway's search names it, and read back by that name through either.
    const name = /^(session-[0-9a-f]+\/\S+\.txt)$/m.exec(found.content[0]!.text)![1]!;
    for (const replica of replicas) {
      const read = (await (
        await mcp(replica.url, ALICE)
      ).callTool({
        name: 'read_tool_output',
        arguments: { file: name, limit: 2 },
      })) as TextResult;
      expect(read.isError).toBeFalsy();
      expect(read.content[0]!.text).toContain('alice-2 line 1: compiled');
      const refused = (await (
        await mcp(replica.url, BOB)
      ).callTool({
        name: 'read_tool_output',
        arguments: { file: name },
      })) as TextResult;
      expect(refused.content[0]!.text).toMatch(/another person/);
    }
    expect(found.content[0]!.text).not.toContain('read-back');
    for (const replica of replicas) {
      const bobs = await search(replica.url, BOB, 'alice-2');
      expect(bobs.content[0]!.text).not.toMatch(/alice-2 line/);
      // His own are found.
      expect((await search(replica.url, BOB, 'bob-3')).content[0]!.text).toMatch(/bob-3 line/);
      // The admin, who reads any output, finds both owners' through either replica.
      const admins = await search(replica.url, ADMIN, 'alice-2');
      expect(admins.isError).toBeFalsy();
      expect(admins.content[0]!.text).toMatch(/alice-2 line \d+: compiled/);
      expect((await search(replica.url, ADMIN, 'bob-3')).content[0]!.text).toMatch(
        /bob-3 line \d+: compiled/,
      );
      // And reads back what it found, by the name it was given.
      const adminName = /^(session-[0-9a-f]+\/\S+\.txt)$/m.exec(admins.content[0]!.text)![1]!;
      const adminRead = (await (
        await mcp(replica.url, ADMIN)
      ).callTool({
        name: 'read_tool_output',
        arguments: { file: adminName, limit: 1 },
      })) as TextResult;
      expect(adminRead.isError).toBeFalsy();
    }
    // The snippets name the search beside the read-back tool (this replica offers it).
    expect(masked).toContain('or mcp_toolmask_search_tool_outputs(query).');
  }, 60_000);
});
