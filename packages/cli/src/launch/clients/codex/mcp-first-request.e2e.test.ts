/**
 * The read-back tool is in codex's first request (issue 34): the real `codex` (0.169.0) with the
 * launcher's `-c` overrides (`codexOverrides`) against one loopback fake that is both the
 * gateway's Responses front (`/openai/responses`) and its MCP endpoint (`/mcp`), whose tools/list
 * answers only once the first model request has arrived (or after 5 s). An optional MCP server
 * is not waited for: its tools would join the second or third request, which changes the tools
 * block, early in the prompt, and re-bills the whole prompt (measured on
 * `net-billing.e2e.test.ts` under load: 136,112 tokens against 124,690 for the same run
 * otherwise). `required = true` makes codex wait for the server.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { responsesAnswer, toolOutputsOf } from '@toolmask/test-support/fake-openai-responses';
import { startFakeUpstream, type UpstreamReply } from '@toolmask/test-support/fake-upstream';
import { CODEX_TOKEN_VARIABLE, codexOverrides } from './launch.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const BIN = path.join(repo, 'node_modules/.bin');
const CALLS = 3;
const HOLD_MS = 5_000;

function toolNames(body: unknown): string[] {
  const tools = (body as { tools?: { name?: string; type?: string }[] }).tools ?? [];
  return tools.map((tool) => tool.name ?? tool.type ?? '');
}

describe.skipIf(!existsSync(path.join(BIN, 'codex')))('toolmask codex: the MCP tools', () => {
  it('are in the first request, however late the MCP server lists them', async () => {
    let firstRequest: () => void = () => {};
    const modelAsked = new Promise<void>((resolve) => (firstRequest = resolve));
    const upstream = await startFakeUpstream(async (request): Promise<UpstreamReply> => {
      if (request.path === '/mcp') {
        if (request.method !== 'POST') return { status: 405, text: '' };
        const message = request.json as { id?: number; method?: string; params?: unknown };
        if (message.id === undefined) return { status: 202, text: '' };
        const answer = (result: unknown) => ({
          json: { jsonrpc: '2.0', id: message.id, result },
        });
        if (message.method === 'initialize') {
          const { protocolVersion } = message.params as { protocolVersion: string };
          return answer({
            protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'toolmask', version: '1' },
          });
        }
        if (message.method === 'tools/list') {
          await Promise.race([modelAsked, new Promise((resolve) => setTimeout(resolve, HOLD_MS))]);
          return answer({
            tools: [
              {
                name: 'read_tool_output',
                description: 'Reads a masked output back.',
                inputSchema: { type: 'object', properties: {} },
              },
            ],
          });
        }
        return answer({});
      }
      if (request.path !== '/openai/responses') return { json: { object: 'list', data: [] } };
      firstRequest();
      const step = toolOutputsOf(request.json).length;
      return step < CALLS
        ? responsesAnswer([
            {
              functionCall: {
                callId: `call_${step}`,
                name: 'exec_command',
                arguments: { cmd: 'true' },
              },
            },
          ])
        : responsesAnswer([{ text: 'done' }]);
    });
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-codex-mcp-'));
    try {
      await fs.mkdir(path.join(home, '.codex'));
      await fs.writeFile(
        path.join(home, '.codex', 'config.toml'),
        'model = "gpt-5-codex"\n[model_providers.fake]\nname = "Fake"\nenv_key = "FAKE_KEY"\n',
      );
      const overrides = codexOverrides(
        {
          upstreams: {},
          provider: 'fake',
          upstream: 'http://127.0.0.1:9/v1',
          azure: false,
          routingArgs: [],
          shellExclude: [],
          args: [],
          ownTitle: false,
        },
        upstream.url,
      );
      const child = spawn(
        path.join(BIN, 'codex'),
        ['--no-daemon', ...overrides, 'exec', '--skip-git-repo-check', 'hi'],
        {
          cwd: home,
          env: {
            PATH: process.env['PATH'] ?? '/usr/bin:/bin',
            HOME: home,
            FAKE_KEY: 'fake-key',
            [CODEX_TOKEN_VARIABLE]: 'secret',
            NO_COLOR: '1',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code, stderr).toBe(0);
      const requests = upstream.matching(/^\/openai\/responses$/);
      expect(requests).toHaveLength(CALLS + 1);
      // Every request declares the same tools, the read-back tool's namespace among them.
      for (const request of requests) {
        expect(toolNames(request.json)).toEqual(toolNames(requests[0]!.json));
      }
      expect(toolNames(requests[0]!.json)).toContain('mcp__toolmask');
    } finally {
      await upstream.close();
      await fs.rm(home, { recursive: true, force: true });
    }
  }, 120_000);
});
