/**
 * MCP tool arguments a client chooses: wrong types, huge strings, extreme offsets and limits,
 * catastrophic and invalid patterns, unknown tools and methods, a batch of a thousand calls, and
 * params nested deep. Each must be answered in bounded time, and the replica must stand.
 */
import { mcp, tool } from './lib/http.mjs';
import { bobSession, checkStillServes } from './lib/probes.mjs';

const BOUND_MS = 10_000;

const mcpArguments = {
  title: 'hostile MCP tool arguments, methods and batches',
  property:
    'MCP tool arguments are bounded: every hostile call is answered (an error the model reads, or a JSON-RPC error) within 10 s, never a 5xx, and the replica stands',
  async run(world, evidence) {
    const [file] = await bobSession(world);
    const bob = world.keys.bob;
    const url = world.r1.url;
    const calls = [
      ['file of 1 MB', 'read_tool_output', { file: 'a'.repeat(1024 * 1024) }],
      ['file a number', 'read_tool_output', { file: 123 }],
      ['file null', 'read_tool_output', { file: null }],
      ['file an array', 'read_tool_output', { file: [file] }],
      ['no arguments', 'read_tool_output', undefined],
      ['offset 1e15', 'read_tool_output', { file, offset: 1e15 }],
      ['limit 1e9', 'read_tool_output', { file, limit: 1e9 }],
      ['offset -1', 'read_tool_output', { file, offset: -1 }],
      ['limit 0.5', 'read_tool_output', { file, limit: 0.5 }],
      ['pattern (a+)+$ on his output', 'read_tool_output', { file, pattern: '(a+)+$' }],
      ['pattern (x+x+)+y', 'read_tool_output', { file, pattern: '(x+x+)+y' }],
      ['pattern of 100 kB', 'read_tool_output', { file, pattern: 'a'.repeat(100_000) }],
      ['an invalid pattern', 'read_tool_output', { file, pattern: '([' }],
      ['search: a query of 1 MB', 'search_tool_outputs', { query: 'q'.repeat(1024 * 1024) }],
      ['search: regex (a|a)*b', 'search_tool_outputs', { query: '(a|a)*b', regex: true }],
      ['search: regex (.*){20}x', 'search_tool_outputs', { query: '(.*){20}x', regex: true }],
      ['search: limit 1e9', 'search_tool_outputs', { query: 'line', limit: 1e9 }],
      ['an unknown tool', 'drop_tables', { file }],
      ['a tool name of 100 kB', 'r'.repeat(100_000), {}],
    ];
    for (const [what, name, args] of calls) {
      const answer = await tool(url, bob, name, args, { timeoutMs: 30_000 });
      evidence.check(
        answer.status > 0 && answer.status < 500 && answer.ms < BOUND_MS,
        `${what}: ${answer.status} in ${answer.ms} ms, ${answer.text.length} characters${answer.ok ? '' : ` (${answer.text.slice(0, 60).replace(/\s+/g, ' ')})`}`,
      );
    }
    const batch = JSON.stringify(
      Array.from({ length: 1000 }, (_, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'read_tool_output', arguments: { file, pattern: '(a+)+$' } },
      })),
    );
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_tool_output","arguments":{"file":${'['.repeat(200_000)}${']'.repeat(200_000)}}}}`;
    for (const [what, method, body] of [
      ['resources/list', 'resources/list', undefined],
      ['prompts/get', 'prompts/get', undefined],
      ['a made-up method', 'x/'.repeat(1000), undefined],
      ['a batch of 1,000 pattern reads', undefined, batch],
      ['arguments nested 200,000 deep', undefined, deep],
      ['not JSON', undefined, '{"jsonrpc":'],
    ]) {
      const answer = await mcp(url, { 'x-api-key': bob }, method, {}, { body, timeoutMs: 60_000 });
      if (Array.isArray(answer.rpc)) {
        const texts = answer.rpc.map((entry) => entry.result?.content?.[0]?.text ?? '');
        evidence.note(
          `${what}: ${texts.filter((text) => /too many reads/.test(text)).length} of ${texts.length} refused by the read slots`,
        );
      }
      evidence.check(
        answer.status > 0 && answer.status < 500 && answer.ms < BOUND_MS,
        `${what}: ${answer.status} in ${answer.ms} ms (${(answer.rpc?.error?.message ?? answer.text).slice(0, 60).replace(/\s+/g, ' ')})`,
      );
    }
    await checkStillServes(world, world.r1, evidence);
  },
};

export default [mcpArguments];
