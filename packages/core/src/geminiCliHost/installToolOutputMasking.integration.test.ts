/**
 * The install hook with the real gemini-cli-core client and a fake Gemini server, on synthetic
 * outputs (no recorded traces needed): what is patched and restored, which requests the pass
 * runs before, the cache-cold signal, failures that must not break a turn, the pending-request
 * guard and core's own pass staying off.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, test, vi } from 'vitest';
import { GeminiClient, type Config, type Part } from '@google/gemini-cli-core';
import { ExperimentFlags } from '@google/gemini-cli-core/dist/src/code_assist/experiments/flagNames.js';
import {
  shellCallTurn,
  startFakeGeminiServer,
  type FakeGeminiServer,
  type FakeModelTurn,
} from '@toolmask/test-support/fake-gemini-server';
import {
  CORE_MASKING_OFF,
  SMALL_THRESHOLDS,
  createHostConfig,
  sendAndCollect,
  setUpTestEnv,
  type TestEnv,
} from '@toolmask/test-support/agent-harness';
import { contentsOf, pairingProblems, sentResponses } from '@toolmask/test-support/request-checks';
import { CORE_MASKING_NEVER } from './coreMasking.js';
import {
  getToolOutputMaskingInstallation,
  installToolOutputMasking,
  type InstallToolOutputMaskingOptions,
  type MaskingPass,
} from './installToolOutputMasking.js';
import type { ToolOutputMaskingService } from '../services/toolOutputMaskingService.js';

const SMALL = SMALL_THRESHOLDS;

function output(index: number, chars = 12_000): string {
  const line = `output ${index}: ${'x'.repeat(60)}\n`;
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}

const callTurn = (index: number) => shellCallTurn(index, `cat file-${index}.log`);

function answer(callId: string, text: string): Part[] {
  return [
    { functionResponse: { id: callId, name: 'run_shell_command', response: { output: text } } },
  ];
}

let env: TestEnv;
let server: FakeGeminiServer;
const opened: Config[] = [];

beforeAll(() => {
  // Core writes debug notes (routing, policy) to the console.
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'debug').mockImplementation(() => undefined);
});

afterAll(() => {
  vi.restoreAllMocks();
});

async function setUp(
  script: FakeModelTurn[] = [],
  params: Parameters<typeof createHostConfig>[2] = {
    params: { contextManagement: CORE_MASKING_OFF },
  },
): Promise<Config> {
  env = setUpTestEnv('toolmask-install');
  server = await startFakeGeminiServer({ script });
  const config = await createHostConfig(env, server, params);
  opened.push(config);
  return config;
}

afterEach(async () => {
  for (const config of opened.splice(0)) getToolOutputMaskingInstallation(config)?.uninstall();
  await server?.close();
  await env?.restore();
});

/** One prompt, then `calls` tool rounds answered with `outputs(i)`. */
async function agentLoop(
  config: Config,
  calls: number,
  outputs: (index: number) => string = (i) => output(i),
  promptId = 'prompt-1',
): Promise<void> {
  let pending = (await sendAndCollect(config, [{ text: 'go' }], promptId)).calls;
  for (let i = 0; i < calls; i++) {
    const call = pending[0];
    if (!call) throw new Error(`no call at round ${i}`);
    pending = (await sendAndCollect(config, answer(call.callId, outputs(i)), promptId)).calls;
  }
}

function install(config: Config, options: InstallToolOutputMaskingOptions = {}) {
  const passes: MaskingPass[] = [];
  const installation = installToolOutputMasking(config, {
    settings: SMALL,
    readSettingsFiles: false,
    onPass: (pass) => passes.push(pass),
    ...options,
  });
  return { installation, passes };
}

describe('install and uninstall', () => {
  test('patches GeminiClient.prototype while installed and restores it, reference-counted', async () => {
    const first = await setUp();
    const second = await createHostConfig(env, server, {});
    opened.push(second);
    const originalSend = GeminiClient.prototype.sendMessageStream;
    const a = installToolOutputMasking(first);
    const patched = GeminiClient.prototype.sendMessageStream;
    expect(patched).not.toBe(originalSend);
    const b = installToolOutputMasking(second);
    expect(GeminiClient.prototype.sendMessageStream).toBe(patched);
    a.uninstall();
    expect(GeminiClient.prototype.sendMessageStream).toBe(patched);
    b.uninstall();
    expect(GeminiClient.prototype.sendMessageStream).toBe(originalSend);
    b.uninstall(); // idempotent
    expect(a.installed).toBe(false);
  });

  test('a second install on the same Config is refused with a clear error; after uninstall it works', async () => {
    const config = await setUp();
    const installation = installToolOutputMasking(config);
    expect(() => installToolOutputMasking(config)).toThrow(/already installed/);
    installation.uninstall();
    expect(() => installToolOutputMasking(config).uninstall()).not.toThrow();
  });

  test("core's own thresholds are out of reach while installed and restored afterwards", async () => {
    const config = await setUp([], {});
    const before = { ...config.getContextManagementConfig().tools.outputMasking };
    const installation = installToolOutputMasking(config);
    expect(await config.getToolOutputMaskingConfig()).toMatchObject({
      protectionThresholdTokens: CORE_MASKING_NEVER,
      minPrunableThresholdTokens: CORE_MASKING_NEVER,
    });
    installation.uninstall();
    expect(config.getContextManagementConfig().tools.outputMasking).toEqual(before);
  });

  test('invalid explicit settings are refused at install time, naming the key', async () => {
    const config = await setUp();
    expect(() =>
      installToolOutputMasking(config, {
        settings: { toolProtectionThreshold: -5 } as never,
      }),
    ).toThrow(/toolProtectionThreshold/);
    expect(getToolOutputMaskingInstallation(config)).toBeUndefined();
  });
});

describe('the pass before every model request', () => {
  test('runs before each request and masks older outputs; pairs stay intact', async () => {
    const config = await setUp([1, 2, 3, 4, 5, 6].map(callTurn));
    const { passes } = install(config);
    await agentLoop(config, 6);
    expect(passes).toHaveLength(server.modelRequests().length);
    const last = contentsOf(server.modelRequests().at(-1)!);
    expect(sentResponses(last).filter((s) => s.maskedFile).length).toBeGreaterThan(0);
    for (const request of server.modelRequests())
      expect(pairingProblems(contentsOf(request))).toEqual([]);
  });

  test("covers core's own recursive call (next-speaker continuation) and clients created after install", async () => {
    let nextSpeakerChecks = 0;
    env = setUpTestEnv('toolmask-install');
    server = await startFakeGeminiServer({
      script: [callTurn(1), { parts: [{ text: 'Half done' }] }, { parts: [{ text: 'All done' }] }],
      responder: (request) => {
        if (request.action !== 'generateContent') return undefined;
        nextSpeakerChecks++;
        const speaker = nextSpeakerChecks === 1 ? 'model' : 'user';
        return { parts: [{ text: JSON.stringify({ reasoning: 'test', next_speaker: speaker }) }] };
      },
    });
    const config = await createHostConfig(env, server, {
      params: { contextManagement: CORE_MASKING_OFF, skipNextSpeakerCheck: false },
    });
    opened.push(config);
    const { passes } = install(config);

    // A client the host creates after installation.
    const client = new GeminiClient(config);
    await client.initialize();
    const promptIds: string[] = [];
    const drain = async (request: Part[]) => {
      const calls = [];
      for await (const event of client.sendMessageStream(
        request,
        new AbortController().signal,
        'p-1',
      )) {
        if (event.type === 'tool_call_request') calls.push(event.value);
      }
      return calls;
    };
    const calls = await drain([{ text: 'go' }]);
    await drain(answer(calls[0]!.callId, output(1)));
    for (const pass of passes) promptIds.push(pass.promptId);

    // go, the answer, and core's own "Please continue." after the first check said "model".
    const streamed = server.modelRequests();
    expect(streamed).toHaveLength(3);
    const lastUser = contentsOf(streamed[2]!).at(-1);
    expect(lastUser?.parts?.[0]?.text).toBe('Please continue.');
    expect(passes).toHaveLength(3);
    expect(promptIds).toEqual(['p-1', 'p-1', 'p-1']);
  });

  test('clients of another Config are passed straight through', async () => {
    const config = await setUp([1, 2, 3, 4, 5, 6].map(callTurn));
    const other = await createHostConfig(env, server, {
      params: { contextManagement: CORE_MASKING_OFF },
    });
    opened.push(other);
    const { passes } = install(other);
    await agentLoop(config, 6);
    expect(passes).toHaveLength(0);
    for (const request of server.modelRequests()) {
      expect(sentResponses(contentsOf(request)).some((s) => s.maskedFile)).toBe(false);
    }
  });

  test('a new text prompt after the idle gap is marked cache-cold; answers and quick prompts are not', async () => {
    const config = await setUp([callTurn(1), { parts: [{ text: 'ok' }] }]);
    let now = 1_000_000;
    const { passes } = install(config, { _internal: { now: () => now }, idleGapMs: 60_000 });
    await agentLoop(config, 1); // prompt, answer
    now += 30_000;
    await sendAndCollect(config, [{ text: 'quick follow-up' }], 'prompt-2');
    now += 61_000;
    await sendAndCollect(config, [{ text: 'back after a break' }], 'prompt-3');
    expect(passes.map((p) => p.cacheLikelyCold)).toEqual([false, false, false, true]);
  });
});

describe('failures never break a turn', () => {
  test('a pass that throws: the request goes out unmasked', async () => {
    const config = await setUp([1, 2, 3].map(callTurn));
    const debug: string[] = [];
    const broken = {
      mask: async () => {
        throw new Error('boom');
      },
    } as unknown as ToolOutputMaskingService;
    install(config, { service: broken, _internal: { debug: (m) => debug.push(m) } });
    await agentLoop(config, 3);
    expect(server.modelRequests()).toHaveLength(4);
    expect(debug.some((line) => line.includes('boom'))).toBe(true);
  });

  test('a throwing debug sink and an error that cannot be printed never reach the turn', async () => {
    const config = await setUp([1, 2, 3].map(callTurn));
    const broken = {
      mask: async () => {
        // String(Object.create(null)) throws: describing this error must not.
        throw Object.create(null);
      },
    } as unknown as ToolOutputMaskingService;
    let debugCalls = 0;
    install(config, {
      service: broken,
      _internal: {
        debug: () => {
          debugCalls++;
          throw new Error('the debug sink fails');
        },
      },
    });
    await agentLoop(config, 3);
    expect(server.modelRequests()).toHaveLength(4);
    expect(debugCalls).toBeGreaterThan(0);
  });

  test('an unwritable output folder: outputs stay whole, failures reported, turns go on', async () => {
    const config = await setUp([1, 2, 3, 4, 5, 6].map(callTurn));
    // A file where the tool-outputs folder should be: every save fails (even as root).
    const tempDir = config.storage.getProjectTempDir();
    fs.mkdirSync(tempDir, { recursive: true });
    fs.writeFileSync(path.join(tempDir, 'tool-outputs'), 'in the way');
    const { passes } = install(config);
    await agentLoop(config, 6);
    expect(server.modelRequests()).toHaveLength(7);
    expect(passes.some((p) => p.result.failures.length > 0)).toBe(true);
    for (const request of server.modelRequests()) {
      expect(sentResponses(contentsOf(request)).some((s) => s.maskedFile)).toBe(false);
    }
  });
});

test('a giant newest output is offloaded before it is ever sent', async () => {
  const config = await setUp([callTurn(1)]);
  const { passes } = install(config, { settings: { ...SMALL, maxOutputTokens: 1_000 } });
  const giant = output(1, 60_000);
  await agentLoop(config, 1, () => giant);
  const sent = sentResponses(contentsOf(server.modelRequests().at(-1)!));
  expect(sent).toHaveLength(1);
  expect(sent[0]!.maskedFile).toBeDefined();
  expect(fs.readFileSync(sent[0]!.maskedFile!, 'utf8')).toBe(giant);
  expect(passes.at(-1)?.requestPartsMasked).toBe(1);
  // The history core keeps holds the snippet too (the request is recorded as sent).
  const history = config.getGeminiClient().getHistory();
  const recorded = history.flatMap((c) => c.parts ?? []).find((p) => p.functionResponse);
  expect((recorded?.functionResponse?.response as { output: string }).output).toMatch(
    /^<tool_output_masked /,
  );
});

describe("core's own masking pass", () => {
  const flags = {
    experimentIds: [],
    flags: {
      [ExperimentFlags.MASKING_PROTECTION_THRESHOLD]: { intValue: '2000' },
      [ExperimentFlags.MASKING_PRUNABLE_THRESHOLD]: { intValue: '1000' },
    },
  };
  /** Core's own snippet: `<tool_output_masked>` without attributes. */
  const coreMasked = (config: Config) =>
    server
      .modelRequests()
      .some((r) =>
        sentResponses(contentsOf(r)).some((s) => s.output?.startsWith('<tool_output_masked>')),
      ) || fs.existsSync(path.join(config.storage.getProjectTempDir(), 'tool-outputs'));

  test('runs when remote experiment flags lower its thresholds (control)', async () => {
    const config = await setUp([1, 2, 3, 4, 5, 6].map(callTurn));
    config.setExperiments(flags);
    await agentLoop(config, 6);
    expect(coreMasked(config)).toBe(true);
  });

  test('stays off while toolmask is installed, even under those flags', async () => {
    const config = await setUp([1, 2, 3, 4, 5, 6].map(callTurn));
    config.setExperiments(flags);
    // toolmask itself off too, so any masking would be core's.
    install(config, { settings: { enabled: false } });
    await agentLoop(config, 6);
    expect(coreMasked(config)).toBe(false);
  });
});
