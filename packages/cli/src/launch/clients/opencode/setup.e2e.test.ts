/**
 * `toolmask setup opencode` with the real `opencode` binary (npm opencode-ai 1.18.33) in a fresh
 * home whose global config (`~/.config/opencode/opencode.json`) names an OpenAI-compatible
 * provider at a loopback fake of the chat completions API: after setup, `opencode mcp list`
 * connects to the gateway's MCP server, and a plain `opencode run` goes through a running gateway,
 * calls the read-back tool (`toolmask_read_tool_output`) and prints the fake's answer. `--undo`
 * then gives back the config byte for byte (it has its `$schema` line already, which opencode
 * would otherwise add). OPENCODE_DISABLE_MODELS_FETCH: without the network, opencode's fetch of
 * its model list costs about 30 s.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { opencodeOfflineEnv } from '@toolmask/test-support/opencode-env';
import { describe, expect, it } from 'vitest';
import { listenGateway } from '@toolmask/gateway';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  openAiAnswer,
  startFakeUpstream,
  type RecordedUpstreamRequest,
} from '@toolmask/test-support/fake-upstream';
import { setUpClient, undoClient } from '../../../test-data/client-setup.js';
import { opencodeClient } from './index.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const OPENCODE = path.join(repo, 'node_modules/.bin/opencode');
const FINAL = 'FINAL ANSWER: the tool answered.';
const READ_BACK = 'toolmask_read_tool_output';

const cleanups = cleanUpAfterEach();

function run(args: string[], env: Record<string, string>, cwd: string) {
  const child = spawn(OPENCODE, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

type Message = { role: string; content?: unknown };
const bodyOf = (request: RecordedUpstreamRequest) =>
  (request.json ?? {}) as { messages?: Message[]; tools?: Array<{ function?: { name?: string } }> };
const declaresReadBack = (request: RecordedUpstreamRequest) =>
  (bodyOf(request).tools ?? []).some((tool) => tool.function?.name === READ_BACK);

/** The title request answered with a title; the agent calls the read-back tool once, then answers. */
function respond(request: RecordedUpstreamRequest) {
  if (!declaresReadBack(request)) return openAiAnswer({ content: 'A title' });
  const answered = (bodyOf(request).messages ?? []).some((message) => message.role === 'tool');
  if (answered) return openAiAnswer({ content: FINAL });
  return openAiAnswer({
    toolCalls: [
      {
        id: 'call_0',
        name: READ_BACK,
        arguments: JSON.stringify({ file: 'no-such-output.txt', offset: 1, limit: 2 }),
      },
    ],
  });
}

describe.skipIf(!existsSync(OPENCODE))('toolmask setup opencode with the real opencode', () => {
  it('opencode sees the MCP server, goes through the gateway, calls the read-back tool; --undo puts back', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-setup-opencode-e2e-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    const stateDir = path.join(root, 'state');
    await fs.mkdir(project, { recursive: true });
    const upstream = await startFakeUpstream(respond);
    cleanups.push(() => upstream.close());
    const configFile = path.join(home, '.config', 'opencode', 'opencode.json');
    await fs.mkdir(path.dirname(configFile), { recursive: true });
    const ownConfig = `{
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake",
      "options": { "baseURL": "${upstream.url}/v1", "apiKey": "fake-key" },
      "models": { "m1": { "name": "m1" } }
    }
  },
  "model": "fake/m1"
}
`;
    await fs.writeFile(configFile, ownConfig);
    const maskingSettings = path.join(root, 'masking.json');
    await fs.writeFile(maskingSettings, '{}');
    const gateway = await listenGateway({
      port: 0,
      stateDir,
      settingsFile: maskingSettings,
      upstreams: { openai: `${upstream.url}/v1` },
    });
    cleanups.push(() => gateway.close());
    // The repository's binaries are not on PATH here: setup is run as a person would.
    const env = {
      ...opencodeOfflineEnv(home, project),
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    };
    await setUpClient(opencodeClient, {
      gatewayUrl: gateway.url,
      stateDir,
      env,
      gatewayUpstreams: { openai: `${upstream.url}/v1` },
    });

    const startedAt = performance.now();
    const list = await run(['mcp', 'list'], env, project);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/✓ toolmask.*connected/);

    const result = await run(['run', 'Read an output back.'], env, project);
    console.log(
      `opencode mcp list and run after setup: ${Math.round(performance.now() - startedAt)} ms`,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(FINAL);
    const main = upstream.requests.filter(declaresReadBack);
    expect(main.length).toBe(2);
    for (const request of upstream.requests) {
      expect(request.headers['authorization']).toBe('Bearer fake-key');
    }
    // The call reached the gateway's read-back tool (its own answer about the file).
    const toolMessage = bodyOf(main[1]!).messages!.find((message) => message.role === 'tool')!;
    expect(JSON.stringify(toolMessage.content)).toContain(
      'read_tool_output: no offloaded outputs exist',
    );
    expect((await fs.readdir(path.join(stateDir, 'usage'))).length).toBeGreaterThan(0);

    const undo = await undoClient(opencodeClient, stateDir);
    expect(undo.lines).toEqual([`${configFile}: put back exactly as it was before setup`]);
    expect(await fs.readFile(configFile, 'utf8')).toBe(ownConfig);
    expect(existsSync(`${configFile}.toolmask-backup`)).toBe(false);
  }, 120_000);
});
