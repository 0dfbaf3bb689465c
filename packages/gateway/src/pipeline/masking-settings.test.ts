/**
 * The gateway's masking settings by core's one precedence rule, per request's client (issue 35,
 * item 10): a Claude Code request reads `~/.claude/toolmask.json` when it holds settings, a
 * request of a client without a file of its own (or of no known client) reads gemini's, and a
 * file given with `--settings` is read for every request.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import {
  ownerFetch,
  post,
  settled,
  shellOutput,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import { createMaskingSettingsSource } from './masking-settings.js';

const cleanups = cleanUpAfterEach();
const ignore = () => undefined;
const CLAUDE_AGENT = 'claude-cli/2.1.328 (external, cli)';
const GEMINI_AGENT = 'GeminiCLI-tui/0.61.0/gemini-2.5-flash (linux; x64; terminal)';

async function files() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-gateway-settings-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const gemini = path.join(root, '.gemini', 'settings.json');
  const claude = path.join(root, 'claude', 'toolmask.json');
  await fs.mkdir(path.dirname(gemini), { recursive: true });
  await fs.mkdir(path.dirname(claude), { recursive: true });
  await fs.writeFile(
    gemini,
    JSON.stringify({ experimental: { toolOutputMasking: { toolProtectionThreshold: 111 } } }),
  );
  return { root, gemini, claude, state: path.join(root, 'state') };
}

describe('the masking settings of a request, by its client', () => {
  it("the client's own file when it holds settings, else gemini's; a given file for all", async () => {
    const paths = await files();
    const source = createMaskingSettingsSource(
      { settingsFile: paths.gemini, clientSettingsFiles: { 'claude-code': paths.claude } },
      ignore,
      ignore,
    );
    // Given as the gateway's --settings: read for every client, the claude file ignored.
    await fs.writeFile(paths.claude, '{ "toolProtectionThreshold": 222 }');
    expect((await source.config(undefined, 'claude-code')).toolProtectionThreshold).toBe(111);
    expect(await source.fileFor('claude-code')).toBe(paths.gemini);

    const perClient = createMaskingSettingsSource(
      { clientSettingsFiles: { 'claude-code': paths.claude } },
      ignore,
      ignore,
    );
    const geminiDefault = perClient.file;
    expect((await perClient.config(undefined, 'claude-code')).toolProtectionThreshold).toBe(222);
    expect(await perClient.fileFor('claude-code')).toBe(paths.claude);
    expect(await perClient.fileFor('codex')).toBe(geminiDefault);
    expect(await perClient.fileFor('other')).toBe(geminiDefault);
    // Removed: the claude file no longer holds settings; gemini's (here: the defaults) applies.
    await fs.rm(paths.claude);
    expect((await perClient.config(undefined, 'claude-code')).toolProtectionThreshold).toBe(
      (await perClient.config(undefined, 'codex')).toolProtectionThreshold,
    );
  });

  it('resolves the configuration once per file change: the same frozen object until then', async () => {
    const paths = await files();
    const source = createMaskingSettingsSource(
      { settingsFile: undefined, clientSettingsFiles: { 'claude-code': paths.claude } },
      ignore,
      ignore,
    );
    await fs.writeFile(paths.claude, '{ "toolProtectionThreshold": 222 }');
    const first = await source.config(undefined, 'claude-code');
    expect(first.toolProtectionThreshold).toBe(222);
    expect(await source.config(undefined, 'claude-code')).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.exemptTools)).toBe(true);
    await fs.writeFile(paths.claude, '{ "toolProtectionThreshold": 3333 }');
    const changed = await source.config(undefined, 'claude-code');
    expect(changed).not.toBe(first);
    expect(changed.toolProtectionThreshold).toBe(3333);
    expect(await source.config(undefined, 'claude-code')).toBe(changed);
  });

  it("a standalone gateway masks a Claude Code request by ~/.claude/toolmask.json, a gemini-cli one by gemini's file", async () => {
    const paths = await files();
    // A single output over 100 tokens is offloaded at once; gemini's file keeps the defaults.
    await fs.writeFile(paths.claude, '{ "maxOutputTokens": 100 }');
    await fs.writeFile(paths.gemini, '{}');
    const upstream = await startFakeUpstream(async () => geminiAnswer([{ text: 'ok' }]));
    cleanups.push(() => upstream.close());
    const saved = process.env['GEMINI_CLI_HOME'];
    // gemini's user file is read from GEMINI_CLI_HOME when the gateway is made.
    process.env['GEMINI_CLI_HOME'] = paths.root;
    let running;
    try {
      running = await startTestGateway({
        stateDir: paths.state,
        upstreams: { gemini: upstream.url },
        clientSettingsFiles: { 'claude-code': paths.claude },
      });
    } finally {
      if (saved === undefined) delete process.env['GEMINI_CLI_HOME'];
      else process.env['GEMINI_CLI_HOME'] = saved;
    }
    cleanups.push(() => running.close());
    const url = `${running.url}/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`;
    for (const [agent, prompt] of [
      [CLAUDE_AGENT, 'from claude'],
      [GEMINI_AGENT, 'from gemini'],
    ] as const) {
      await post(
        url,
        {
          contents: [
            { role: 'user', parts: [{ text: prompt }] },
            { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'run_shell_command' } }] },
            {
              role: 'user',
              parts: [
                {
                  functionResponse: {
                    id: 'c1',
                    name: 'run_shell_command',
                    response: { output: shellOutput('c1', 2_000) },
                  },
                },
              ],
            },
          ],
        },
        { 'user-agent': agent },
      );
    }
    await settled(running);
    const sent = upstream.requests.map((request) => request.raw.toString('utf8'));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toContain('<tool_output_masked');
    expect(sent[1]).not.toContain('<tool_output_masked');
    // The dashboard names the file that applies to each client's sessions.
    const status = (await (await ownerFetch(running, `${running.url}/api/status`)).json()) as {
      settingsFiles: Record<string, string>;
    };
    expect(status.settingsFiles).toMatchObject({
      'claude-code': paths.claude,
      'gemini-cli': paths.gemini,
      codex: paths.gemini,
    });
  });
});
