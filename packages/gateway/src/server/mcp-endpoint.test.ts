/**
 * Read-back over MCP: an MCP client (the SDK's, as gemini-cli and qwen-code use) lists and calls
 * `read_tool_output` on a gateway that masked outputs, and gets the saved bytes back, bounded and
 * confined like the in-process tool.
 */
import { READ_TOOL_OUTPUT_TEXT, SEARCH_TOOL_OUTPUTS_TEXT } from '@toolmask/core/storage';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { shellCallingUpstream } from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  runGeminiClient,
  shellOutput,
  startTestGateway,
  ownerHeaders,
} from '../test-utils/gemini-client.js';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';

const cleanups = cleanUpAfterEach();

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'toolmask-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  cleanups.push(() => client.close());
  return client;
}

type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

/**
 * A gateway that masked old outputs of a six-call session (each output tagged by `tag(call id)`):
 * the gateway, the last request upstream, and the file its first snippet names.
 */
async function maskedSession(tag: (callId: string) => string) {
  const fixture = await gatewayFixture({
    toolProtectionThreshold: 8_000,
    minPrunableTokensThreshold: 8_000,
  });
  cleanups.push(fixture.cleanup);
  const upstream = await shellCallingUpstream(6);
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: upstream.url },
  });
  cleanups.push(() => running.close());
  await runGeminiClient({
    url: `${running.url}/v1beta/models/m:streamGenerateContent?alt=sse`,
    prompt: 'go',
    outputFor: (call) => ({ output: shellOutput(tag(call.id)) }),
    maxRequests: 10,
  });
  const last = upstream.requests.at(-1)!.raw.toString('utf8');
  const file = JSON.parse(`"${/file=\\"([^\\]+)\\"/.exec(last)![1]!}"`) as string;
  return { fixture, running, last, file };
}

describe('read_tool_output over MCP', () => {
  it('reads back the bytes of a masked output, by path and by call id; refuses outside files', async () => {
    const { fixture, running, file } = await maskedSession((id) => id);

    // Without the access secret, another local account gets nothing.
    await expect(connect(running.url)).rejects.toThrow(/401/);
    const client = await connect(running.url, ownerHeaders(running));
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toEqual([
      'read_tool_output',
      'search_tool_outputs',
    ]);
    expect(tools.tools[0]!.inputSchema.required).toEqual(['file']);
    // The model is told what core's own tool tells it (the pattern syntax included).
    expect(tools.tools[0]!.description).toBe(READ_TOOL_OUTPUT_TEXT.description);
    const properties = tools.tools[0]!.inputSchema.properties as Record<
      string,
      { description?: string }
    >;
    expect(properties['pattern']?.description).toBe(READ_TOOL_OUTPUT_TEXT.parameters.pattern);
    expect(properties['pattern']?.description).toContain('without lookaround or backreferences');

    const byPath = (await client.callTool({
      name: 'read_tool_output',
      arguments: { file, offset: 2, limit: 3 },
    })) as TextResult;
    expect(byPath.isError).toBeFalsy();
    const saved = await fs.readFile(file, 'utf8');
    expect(byPath.content[0]!.text.split('\n').slice(0, 3)).toEqual(saved.split('\n').slice(1, 4));
    expect(byPath.content[0]!.text).toMatch(
      /\[read_tool_output: lines 2-4 of 401; call again with offset=5 for more\]$/,
    );

    const callId = path.basename(file).split('.')[1]!;
    const byCallId = (await client.callTool({
      name: 'read_tool_output',
      // gemini-cli adds wait_for_previous to every MCP tool's arguments: it must be ignored.
      arguments: { file: callId, pattern: 'line 400:', wait_for_previous: false },
    })) as TextResult;
    expect(byCallId.isError).toBeFalsy();
    expect(byCallId.content[0]!.text).toContain('line 400: compiled unit_400.o');

    const outside = (await client.callTool({
      name: 'read_tool_output',
      arguments: { file: fixture.settingsFile },
    })) as TextResult;
    expect(outside.isError).toBe(true);
    expect(outside.content[0]!.text).toMatch(/^read_tool_output: .*only reads files in/);
  });

  it('GET and DELETE are 405; a token-protected gateway wants its token on /mcp', async () => {
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    const running = await startTestGateway({
      stateDir: fixture.stateDir,
      authToken: 'secret-token',
    });
    cleanups.push(() => running.close());
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(`${running.url}/mcp`, {
        method,
        headers: { 'x-toolmask-token': 'secret-token' },
      });
      expect(answer.status).toBe(405);
    }
    await expect(connect(running.url)).rejects.toThrow(/401/);
    const client = await connect(running.url, { authorization: 'Bearer secret-token' });
    expect((await client.listTools()).tools).toHaveLength(2);
  });
});

describe('search_tool_outputs over MCP', () => {
  it('finds a line only a masked output holds, names the file read_tool_output takes', async () => {
    // The output of the first call is masked in the last request: its line 123 is not in view.
    const { running, file, last } = await maskedSession((id) => `out-${id}`);
    const tag = /out-[^ ]+(?= line)/.exec(await fs.readFile(file, 'utf8'))![0];
    expect(last).not.toContain(`${tag} line 123: compiled unit_123.o`);

    const client = await connect(running.url, ownerHeaders(running));
    const tool = (await client.listTools()).tools.find((t) => t.name === 'search_tool_outputs')!;
    expect(tool.description).toBe(SEARCH_TOOL_OUTPUTS_TEXT.description);
    expect(tool.inputSchema.required).toEqual(['query']);
    const found = (await client.callTool({
      name: 'search_tool_outputs',
      arguments: { query: `${tag} unit_123.o` },
    })) as TextResult;
    expect(found.isError).toBeFalsy();
    const text = found.content[0]!.text;
    const named = `${path.basename(path.dirname(file))}/${path.basename(file)}`;
    // The line with both words ranks first, under its output's name, numbered as in the file.
    expect(text).toMatch(
      new RegExp(`lines with more of the words first\\):\\n\\n${named.replace(/\./g, '\\.')}\\n`),
    );
    expect(text).toContain(`  123:${tag} line 123: compiled unit_123.o`);
    // The name it gives is one read_tool_output takes.
    const read = (await client.callTool({
      name: 'read_tool_output',
      arguments: { file: named, offset: 123, limit: 1 },
    })) as TextResult;
    expect(read.content[0]!.text.split('\n')[0]).toBe(`${tag} line 123: compiled unit_123.o`);

    const hostile = (await client.callTool({
      name: 'search_tool_outputs',
      arguments: { query: 'x'.repeat(1 << 20) },
    })) as TextResult;
    expect(hostile.isError).toBe(true);
    expect(hostile.content[0]!.text).toMatch(
      /^search_tool_outputs: query "x+…" is longer than 500/,
    );
  });
});
