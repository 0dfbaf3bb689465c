/**
 * The guard for oversized outputs, session resume and retention, with the real gemini-cli-core
 * client against the fake Gemini server:
 * - a 24 MB output answered by the host is offloaded before it is ever sent (default settings:
 *   `maxOutputTokens` derived from the model's context window), the session goes on, and the
 *   model reads parts of it back; without the guard, core refuses the request (window overflow);
 * - a session recorded with masked parts in it (core syncs the live history into its recording)
 *   and resumed through core's own resume code keeps them as `functionResponse` parts with their
 *   ids, and they are not masked twice;
 * - retention runs in the background after install and removes only old session folders.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  GeminiClient,
  GeminiEventType,
  Scheduler,
  convertSessionToClientHistory,
  loadConversationRecord,
  tokenLimit,
  type Config,
  type Part,
} from '@google/gemini-cli-core';
import {
  startFakeGeminiServer,
  type FakeGeminiServer,
} from '@toolmask/test-support/fake-gemini-server';
import {
  CORE_MASKING_OFF,
  createHostConfig,
  recordToolCalls,
  sendAndCollect,
  setUpTestEnv,
  type TestEnv,
} from '@toolmask/test-support/agent-harness';
import { contentsOf, sentResponses } from '@toolmask/test-support/request-checks';
import { estimateTokenCountSync } from '../utils/tokenCalculation.js';
import { isMaskedResponse } from '../services/maskedSnippet.js';
import { DAY_MS } from '../storage/retention.js';
import {
  installToolOutputMasking,
  type InstallToolOutputMaskingOptions,
  type MaskingPass,
  type ToolOutputMaskingInstallation,
} from './installToolOutputMasking.js';

const MB = 1024 * 1024;

/** A 24 MB build log, generated once: 300,000+ numbered lines, an error every 100,000 lines. */
const GIANT = (() => {
  const block = Array.from(
    { length: 1_000 },
    (_, i) => `CC src/module_${i % 97}/unit_${i}.o -O2 -Wall -Werror -fPIC -Iinclude`,
  ).join('\n');
  const blocks: string[] = [];
  let size = 0;
  for (let index = 0; size < 24 * MB; index++) {
    const text = `[block ${index}] ${index % 100 === 50 ? 'ERROR: link failed\n' : ''}${block}`;
    blocks.push(text);
    size += text.length + 1;
  }
  return blocks.join('\n');
})();

const opened: Array<{ installation?: ToolOutputMaskingInstallation }> = [];
let env: TestEnv;
let server: FakeGeminiServer;

beforeAll(() => {
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'debug').mockImplementation(() => undefined);
});

afterAll(() => vi.restoreAllMocks());

afterEach(async () => {
  for (const run of opened.splice(0)) run.installation?.uninstall();
  await server?.close();
  await env?.restore();
});

function shellCall(id: string, command = 'make all'): { parts: Part[] } {
  return {
    parts: [{ functionCall: { id, name: 'run_shell_command', args: { command } } }],
  };
}

async function start(
  params: Parameters<typeof createHostConfig>[2] = {
    params: { contextManagement: CORE_MASKING_OFF },
  },
): Promise<Config> {
  env = setUpTestEnv('toolmask-guard');
  server = await startFakeGeminiServer();
  return createHostConfig(env, server, params);
}

function install(config: Config, options: InstallToolOutputMaskingOptions = {}) {
  const passes: MaskingPass[] = [];
  const notices: string[] = [];
  const installation = installToolOutputMasking(config, {
    readSettingsFiles: false,
    onPass: (pass) => passes.push(pass),
    onNotice: (line) => notices.push(line),
    ...options,
  });
  opened.push({ installation });
  return { installation, passes, notices };
}

/** Core keeps call ids as `<tool>__<id>` in its history and sends the model's own `<id>`. */
function bareId(name: string | undefined, id: string | undefined): string {
  const prefix = `${name ?? ''}__`;
  return id?.startsWith(prefix) ? id.slice(prefix.length) : (id ?? '');
}

function answer(callId: string, name: string, output: string): Part[] {
  return [{ functionResponse: { id: callId, name, response: { output } } }];
}

describe('the guard for oversized outputs', () => {
  test('a 24 MB output is offloaded before it is sent, with default settings; the session goes on', async () => {
    const config = await start();
    const { installation, passes, notices } = install(config);
    await installation.ready;
    // Default: a quarter of gemini-2.5-flash's 1,048,576-token window.
    const maskingConfig = await installation.host.getToolOutputMaskingConfig();
    expect(maskingConfig.maxOutputTokens).toBe(262_144);

    server.enqueue(shellCall('build-1', 'make 2>&1'));
    const first = await sendAndCollect(config, [{ text: 'build it' }], 'p-giant');
    const call = first.calls[0]!;
    expect(GIANT.length).toBeGreaterThan(24 * MB);
    await sendAndCollect(config, answer(call.callId, call.name, GIANT), 'p-giant');

    const sent = server.modelRequests().at(-1)!;
    // What the server received stays far under the window: the output arrived as a snippet.
    expect(sent.bytes).toBeLessThan(128 * 1024);
    expect(estimateTokenCountSync(contentsOf(sent).flatMap((c) => c.parts ?? []))).toBeLessThan(
      tokenLimit('gemini-2.5-flash') / 4,
    );
    const [response] = sentResponses(contentsOf(sent)).filter((s) => s.name === call.name);
    expect(response!.maskedFile).toBeDefined();
    expect(response!.output).toContain('[block 0] CC src/module_0/unit_0.o');
    expect(fs.readFileSync(response!.maskedFile!, 'utf8')).toBe(GIANT);
    expect(passes.at(-1)!.requestPartsMasked).toBe(1);
    console.info(
      `guard e2e: a ${Buffer.byteLength(GIANT)}-byte output; the request sent was ${sent.bytes} bytes; pass ${passes.at(-1)!.result.durationMs.toFixed(0)} ms\n${response!.output}`,
    );
    expect(passes.at(-1)!.result.offloaded[0]!.bytes).toBe(Buffer.byteLength(GIANT));
    expect(notices.at(-1)).toMatch(
      /^toolmask: offloaded 1 oversized tool output \(over 262,144 tokens\), freed ~[\d,]+ tokens; full outputs in \//,
    );

    // The next turn is fine, and the model can search the full log on disk.
    server.enqueue({
      parts: [
        {
          functionCall: {
            id: 'grep-1',
            name: 'read_tool_output',
            args: { file: response!.maskedFile, pattern: 'ERROR' },
          },
        },
      ],
    });
    const second = await sendAndCollect(config, [{ text: 'what failed?' }], 'p-after');
    const scheduler = new Scheduler({
      context: config,
      messageBus: config.getMessageBus(),
      getPreferredEditor: () => undefined,
      schedulerId: 'guard-e2e',
    });
    const completed = await scheduler.schedule(second.calls, new AbortController().signal);
    await sendAndCollect(
      config,
      completed.flatMap((c) => c.response.responseParts),
      'p-after',
    );
    const last = server.modelRequests().at(-1)!;
    expect(last.bytes).toBeLessThan(128 * 1024);
    const grep = sentResponses(contentsOf(last)).at(-1)!;
    expect(grep.name).toBe('read_tool_output');
    expect(grep.output).toMatch(/^\d+:\[block 50\] ERROR: link failed$/m);
    expect(grep.output?.split('\n').at(-1)).toMatch(/^\[read_tool_output: 4 of 4 matching lines/);
  });

  test('without the guard core refuses the request: the session is stuck (control)', async () => {
    const config = await start();
    install(config, { settings: { maxOutputTokens: 0 } });
    server.enqueue(shellCall('build-1'));
    const first = await sendAndCollect(config, [{ text: 'build it' }], 'p-giant');
    const call = first.calls[0]!;
    const before = server.modelRequests().length;
    const events = [];
    for await (const event of config
      .getGeminiClient()
      .sendMessageStream(
        answer(call.callId, call.name, GIANT),
        new AbortController().signal,
        'p-giant',
      )) {
      events.push(event);
    }
    expect(events.map((event) => event.type)).toContain(GeminiEventType.ContextWindowWillOverflow);
    expect(server.modelRequests()).toHaveLength(before);
  });

  test('the default follows the model: a quarter of a 256k-token window; a setting wins', async () => {
    const config = await start();
    const { installation } = install(config);
    await installation.ready;
    config.setActiveModel('gemma-4-31b-it');
    expect((await installation.host.getToolOutputMaskingConfig()).maxOutputTokens).toBe(64_000);
    installation.uninstall();
    const explicit = install(config, { settings: { maxOutputTokens: 5_000 } }).installation;
    await explicit.ready;
    expect((await explicit.host.getToolOutputMaskingConfig()).maxOutputTokens).toBe(5_000);
  });
});

describe('resume', () => {
  test('masked parts come back as functionResponse parts with their ids and are not masked twice', async () => {
    const config = await start();
    const sessionId = config.getSessionId();
    const settings = {
      toolProtectionThreshold: 2_000,
      minPrunableTokensThreshold: 1_000,
      maxOutputTokens: 20_000,
      // Masks the four older outputs at once (too short a session to pay a break back).
      warmRule: 'floor' as const,
    };
    const first = install(config, { settings });
    // Four older outputs (masked by the budget), then a big one (masked by the guard, in the request).
    const outputs = [1, 2, 3, 4].map((i) => `log ${i}\n${`line of output ${i}\n`.repeat(700)}`);
    const big = `big\n${'x'.repeat(120)}\n`.repeat(3_000);
    server.enqueue(...[1, 2, 3, 4, 5].map((i) => shellCall(`c-${i}`, `step ${i}`)));
    let pending = (await sendAndCollect(config, [{ text: 'go' }], 'p-1')).calls;
    for (const output of [...outputs, big]) {
      const call = pending[0]!;
      const parts = answer(call.callId, call.name, output);
      // What gemini-cli's UI does: the tool calls go into the recording with their full results.
      recordToolCalls(config, [call], parts);
      pending = (await sendAndCollect(config, parts, 'p-1')).calls;
    }
    const chat = config.getGeminiClient().getChat();
    // Core syncs the live (masked) history into its recording on its own occasions (a rolled-back
    // stream, compression); this is that sync.
    chat.getChatRecordingService().updateMessagesFromHistory(chat.agentHistory.get());
    const before = sentResponses(contentsOf(server.modelRequests().at(-1)!));
    const maskedBefore = new Map(
      before.filter((s) => s.maskedFile).map((s) => [bareId(s.name, s.id), s.output!] as const),
    );
    expect(maskedBefore.size).toBe(5);
    first.installation.uninstall();

    // --resume: a new Config for the same session, the recording loaded by core's own code.
    const file = chat.getChatRecordingService().getConversationFilePath()!;
    const conversation = (await loadConversationRecord(file))!;
    const resumed = convertSessionToClientHistory(conversation.messages);
    const contents = resumed.map((turn) => turn.content);
    // Every response answers a call of the model turn before it. (Core's resume yields each
    // response twice, from the tool-call record and from the request it recorded; both are kept
    // masked, and the client merges them into one user turn.)
    let calls = new Set<string>();
    for (const content of contents) {
      const parts = content.parts ?? [];
      if (content.role === 'model') calls = new Set(parts.map((p) => p.functionCall?.id ?? ''));
      for (const part of parts) {
        if (part.functionResponse) expect(calls.has(part.functionResponse.id!)).toBe(true);
      }
    }
    const resumedMasked = sentResponses(contents).filter((s) => s.maskedFile);
    expect(new Map(resumedMasked.map((s) => [bareId(s.name, s.id), s.output!]))).toEqual(
      maskedBefore,
    );
    for (const part of contents.flatMap((c) => c.parts ?? [])) {
      const fr = part.functionResponse;
      if (fr && maskedBefore.has(bareId(fr.name, fr.id))) {
        expect(fr.name).toBe('run_shell_command');
        expect(isMaskedResponse(fr.response)).toBe(true);
        expect(part.text).toBeUndefined();
      }
    }

    const resumedConfig = await createHostConfig(env, server, {
      sessionId,
      params: { contextManagement: CORE_MASKING_OFF },
    });
    const second = install(resumedConfig, { settings });
    const client = new GeminiClient(resumedConfig);
    await client.resumeChat(resumed, { conversation, filePath: file });
    const folder = path.dirname([...maskedBefore.values()][0]!.match(/file="([^"]+)"/)![1]!);
    const filesBefore = fs.readdirSync(folder).sort();
    server.enqueue({ parts: [{ text: 'We were building.' }] });
    for await (const event of client.sendMessageStream(
      [{ text: 'Where were we?' }],
      new AbortController().signal,
      'p-resumed',
    )) {
      expect(event.type).not.toBe(GeminiEventType.Error);
    }
    client.dispose();

    const after = sentResponses(contentsOf(server.modelRequests().at(-1)!));
    for (const [id, snippet] of maskedBefore) {
      const copies = after.filter((s) => bareId(s.name, s.id) === id);
      expect(copies.length).toBeGreaterThan(0);
      // Byte for byte the same snippet: not masked again, not nested.
      for (const copy of copies) expect(copy.output).toBe(snippet);
    }
    const pass = second.passes.at(-1)!;
    // The installation recorded the restored snippets as its own: they are not even counted.
    expect(pass.result.tokensBefore).toBe(0);
    for (const offloaded of pass.result.offloaded) {
      expect(maskedBefore.has(bareId(offloaded.toolName, offloaded.callId))).toBe(false);
    }
    expect(fs.readdirSync(folder).sort()).toEqual(filesBefore);
  });
});

describe('retention at install', () => {
  function oldSession(config: Config, id: string, days: number): string {
    const folder = path.join(config.storage.getProjectTempDir(), 'tool-outputs', `session-${id}`);
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, `run_shell_command_c-1_0123456789abcdef.txt`);
    fs.writeFileSync(file, `output of ${id}`);
    const time = (Date.now() - days * DAY_MS) / 1000;
    fs.utimesSync(file, time, time);
    fs.utimesSync(folder, time, time);
    return folder;
  }

  test('removes old session folders in the background, never the current one', async () => {
    const config = await start();
    const old = oldSession(config, 'old', 45);
    const recent = oldSession(config, 'recent', 3);
    // A resumed session's own folder can be old too.
    const current = oldSession(config, config.getSessionId(), 45);
    const { installation } = install(config, { settings: { retentionDays: 30 } });
    // Scheduled, not run: install returned at once and the first turn does not wait for it.
    expect(fs.existsSync(old)).toBe(true);
    const report = await installation.retention;
    expect(report?.removed.map((folder) => folder.path)).toEqual([old]);
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(recent)).toBe(true);
    expect(fs.existsSync(current)).toBe(true);
  });

  test("never removes a running session's folder, however long it was idle; a finished one ages from its last use (issue 15, item 7)", async () => {
    const config = await start();
    // Session A runs; its folder is 45 days unused (an idle session, a laptop asleep).
    const a = await createHostConfig(env, server, {
      params: { contextManagement: CORE_MASKING_OFF },
    });
    const folderA = oldSession(a, a.getSessionId(), 45);
    const installA = install(a, { retention: false, _internal: { heartbeatMs: 20 } }).installation;
    await new Promise((resolve) => setTimeout(resolve, 60));
    // Session B starts in the same project: its retention leaves A alone.
    const b = install(config, { settings: { retentionDays: 30 } }).installation;
    expect(await b.retention).toMatchObject({ removed: [], failed: [] });
    expect(fs.existsSync(folderA)).toBe(true);
    b.uninstall();
    // A ends: its folder now ages from its last use, 45 days ago.
    installA.uninstall();
    const c = install(config, { settings: { retentionDays: 30 } }).installation;
    expect((await c.retention)?.removed.map((folder) => folder.path)).toEqual([folderA]);
  });

  test('retentionDays 0 and retention: false keep everything', async () => {
    const config = await start();
    const old = oldSession(config, 'old', 400);
    const kept = install(config, { settings: { retentionDays: 0 } }).installation;
    expect(await kept.retention).toBeUndefined();
    kept.uninstall();
    const off = install(config, { retention: false }).installation;
    expect(await off.retention).toBeUndefined();
    expect(fs.existsSync(old)).toBe(true);
  });
});
