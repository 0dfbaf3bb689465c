/**
 * End to end, with the real gemini-cli-core client: `Config` + `GeminiClient` + `Scheduler` talk to
 * a loopback server speaking the Gemini API (`@toolmask/test-support/fake-gemini-server`). The
 * server replays recorded sessions from ../shared/traces (their function calls, in order); the host
 * loop answers each call with the recorded output. Everything is asserted on what the server
 * received.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  GeminiClient,
  Scheduler,
  convertSessionToClientHistory,
  loadConversationRecord,
  type Config,
  type Part,
  type ToolCallRequestInfo,
} from '@google/gemini-cli-core';
import {
  startFakeGeminiServer,
  type FakeGeminiServer,
} from '@toolmask/test-support/fake-gemini-server';
import {
  TRACES_SKIP_MESSAGE,
  buildReplayScript,
  loadTraceSessions,
  toolOutputChars,
  tracesDir,
  type ReplayScript,
} from '@toolmask/test-support/traces';
import {
  CORE_MASKING_OFF,
  createHostConfig,
  replay,
  sendAndCollect,
  setUpTestEnv,
  writeSettings,
  type TestEnv,
} from '@toolmask/test-support/agent-harness';
import {
  contentsOf,
  maskedFileOf,
  pairingProblems,
  sentResponses,
  sizeSummary,
  type SizeSummary,
} from '@toolmask/test-support/request-checks';
import { DEFAULT_TOOL_OUTPUT_MASKING_CONFIG } from '../config/toolOutputMaskingSettings.js';
import { estimateFunctionResponseTokens } from '../utils/tokenCalculation.js';
import type { SettingsFileError } from '../config/settingsFile.js';
import {
  installToolOutputMasking,
  type MaskingPass,
  type ToolOutputMaskingInstallation,
} from './installToolOutputMasking.js';

/**
 * Five sessions one after another (shell-only mini-swe-agent and SWE-agent with read_file /
 * list_directory / replace): ~450k characters of tool output, 122 calls — well past the default
 * 50k-token protection window plus the 30k-token batch.
 */
const SESSIONS = [
  'swe-agent-renox134/deepseek_deepseek-v3.2__pylint-dev__pylint-6386',
  'swe-agent-renox134/qwen_qwen3-coder__pytest-dev__pytest-5787',
  'mini-swe-agent-gemini3pro/pylint-dev__pylint-7277',
  'mini-swe-agent-gemini3pro/astropy__astropy-14369',
  'swe-agent-renox134/qwen_qwen3-coder__pylint-dev__pylint-4661',
];

const TRACES = tracesDir();
if (!TRACES) console.warn(`toolOutputMasking.e2e: ${TRACES_SKIP_MESSAGE}`);

/** Core's `<tool>__` prefix removed: the trace's own call id. */
function traceId(name: string, id: string): string {
  return id.startsWith(`${name}__`) ? id.slice(name.length + 2) : id;
}

interface Run {
  env: TestEnv;
  server: FakeGeminiServer;
  config: Config;
  installation?: ToolOutputMaskingInstallation;
  passes: MaskingPass[];
  settingsErrors: SettingsFileError[];
  summary: SizeSummary;
  /** The chat recording file: size and number of whole-conversation checkpoints. */
  recording: { bytes: number; checkpoints: number };
}

function recordingStats(config: Config): Run['recording'] {
  const file = config.getGeminiClient().getChatRecordingService()?.getConversationFilePath();
  if (!file || !fs.existsSync(file)) return { bytes: 0, checkpoints: 0 };
  const text = fs.readFileSync(file, 'utf8');
  const checkpoints = text
    .split('\n')
    .filter((line) => line.startsWith('{"$set":') && line.includes('"messages":')).length;
  return { bytes: Buffer.byteLength(text), checkpoints };
}

async function runReplay(
  script: ReplayScript,
  options: {
    install: boolean;
    workspaceSettings?: string;
    userSettings?: string;
    keepAlive?: boolean;
  },
): Promise<Run> {
  const env = setUpTestEnv();
  if (options.workspaceSettings !== undefined) {
    writeSettings(path.join(env.workspace, '.gemini', 'settings.json'), options.workspaceSettings);
  }
  if (options.userSettings !== undefined) {
    writeSettings(path.join(env.home, '.gemini', 'settings.json'), options.userSettings);
  }
  const server = await startFakeGeminiServer({ script: script.modelTurns });
  // Core's own pass is off in both runs (constructor thresholds), so the baseline is "no masking".
  const config = await createHostConfig(env, server, {
    params: { contextManagement: CORE_MASKING_OFF },
  });
  const passes: MaskingPass[] = [];
  const settingsErrors: SettingsFileError[] = [];
  const installation = options.install
    ? installToolOutputMasking(config, {
        onPass: (pass) => passes.push(pass),
        onSettingsError: (error) => settingsErrors.push(error),
      })
    : undefined;
  await replay(config, script);
  const run: Run = {
    env,
    server,
    config,
    installation,
    passes,
    settingsErrors,
    summary: sizeSummary(server.modelRequests()),
    recording: recordingStats(config),
  };
  if (!options.keepAlive) await closeRun(run);
  return run;
}

async function closeRun(run: Run): Promise<void> {
  run.installation?.uninstall();
  await run.server.close();
  await run.env.restore();
}

function maskedCount(run: Run): number {
  return run.passes.reduce((sum, pass) => sum + pass.result.maskedCount, 0);
}

describe.skipIf(!TRACES)(
  `toolmask inside the real GeminiClient ${TRACES ? '' : `(${TRACES_SKIP_MESSAGE})`}`,
  () => {
    let script: ReplayScript;
    let without: Run;
    let withMask: Run;

    beforeAll(async () => {
      // Core writes debug notes (routing, policy) to the console.
      vi.spyOn(console, 'log').mockImplementation(() => undefined);
      vi.spyOn(console, 'debug').mockImplementation(() => undefined);
      script = buildReplayScript(loadTraceSessions(SESSIONS));
      without = await runReplay(script, { install: false });
      withMask = await runReplay(script, { install: true, keepAlive: true });
      const outputChars = toolOutputChars(loadTraceSessions(SESSIONS));
      console.info(
        `toolmask e2e request sizes (${SESSIONS.length} sessions, ${script.outputs.size} tool outputs, ${outputChars} chars of output):\n` +
          `  without toolmask: ${JSON.stringify(without.summary)}\n` +
          `  with toolmask:    ${JSON.stringify(withMask.summary)}\n` +
          `  passes that masked: ${withMask.passes.filter((p) => p.result.maskedCount > 0).length}, outputs masked: ${maskedCount(withMask)}`,
      );
    });

    afterAll(async () => {
      if (withMask) await closeRun(withMask);
      vi.restoreAllMocks();
    });

    test('without toolmask (core masking off) every output arrives whole and the requests grow with every output', () => {
      const requests = without.server.modelRequests();
      expect(requests.length).toBe(script.steps.length);
      for (const [index, request] of requests.entries()) {
        for (const sent of sentResponses(contentsOf(request)))
          expect(sent.maskedFile).toBeUndefined();
        // Each request that carries new outputs is larger than the one before. (A new text prompt
        // may be slightly smaller: core stops adding synthetic thought signatures to the calls of
        // the previous loop.)
        if (index > 0 && script.steps[index]!.kind === 'answers') {
          expect(request.bytes).toBeGreaterThan(requests[index - 1]!.bytes);
        }
      }
      expect(without.summary.lastBytes).toBeGreaterThan(
        without.summary.firstBytes + toolOutputChars(loadTraceSessions(SESSIONS)),
      );
    });

    test('with toolmask older outputs arrive as snippets and the requests stop growing with them', () => {
      const requests = withMask.server.modelRequests();
      expect(requests.length).toBe(script.steps.length);
      const last = contentsOf(requests.at(-1)!);
      const masked = sentResponses(last).filter((sent) => sent.maskedFile);
      expect(masked.length).toBeGreaterThan(10);
      expect(masked.length).toBe(maskedCount(withMask));
      // Masking happened in a few batches, each making the next request smaller than the last one.
      const shrinking = requests.filter((r, i) => i > 0 && r.bytes < requests[i - 1]!.bytes);
      expect(shrinking.length).toBeGreaterThanOrEqual(1);
      expect(withMask.summary.lastBytes).toBeLessThan(without.summary.lastBytes * 0.8);
      expect(withMask.summary.totalBytes).toBeLessThan(without.summary.totalBytes);
    });

    test('the newest outputs within the protection budget arrive whole, older ones first to go', () => {
      const contents = contentsOf(withMask.server.modelRequests().at(-1)!);
      // The request's own responses (the last entry) are the latest turn: protected.
      const history = sentResponses(contents).filter((s) => s.contentIndex < contents.length - 1);
      const newestFirst = [...history].reverse();
      // An output the session has since replaced (read again, edited, run again) is masked
      // inside the window too, and its snippet says so (services/supersededOutputs.ts).
      const superseded = (sent: (typeof history)[number]) =>
        sent.maskedFile !== undefined &&
        /\nSuperseded: [^\n]+\n/.test(String(sent.response['output']));
      let budget = DEFAULT_TOOL_OUTPUT_MASKING_CONFIG.toolProtectionThreshold;
      let protectedCount = 0;
      for (const sent of newestFirst) {
        const original = script.outputs.get(traceId(sent.name, sent.id));
        expect(original).toBeDefined();
        const tokens = estimateFunctionResponseTokens(original!.response);
        if (tokens > budget) break;
        budget -= tokens;
        protectedCount++;
        if (superseded(sent)) continue;
        expect(sent.maskedFile, `${sent.id} is inside the protection window`).toBeUndefined();
        expect(sent.response).toEqual(original!.response);
      }
      expect(history.filter(superseded).length).toBeGreaterThan(0);
      expect(protectedCount).toBeGreaterThan(3);
      for (const sent of sentResponses(contents).filter(
        (s) => s.contentIndex === contents.length - 1,
      )) {
        expect(sent.maskedFile).toBeUndefined();
      }
      // Every masked output is older than every protected one.
      const oldestProtected = newestFirst[protectedCount - 1]!;
      for (const sent of history.filter((s) => s.maskedFile && !superseded(s))) {
        expect(sent.contentIndex).toBeLessThan(oldestProtected.contentIndex);
      }
    });

    test('every functionResponse still follows its functionCall with the same id, in every request', () => {
      for (const request of withMask.server.modelRequests()) {
        expect(pairingProblems(contentsOf(request))).toEqual([]);
      }
      // Masked parts keep their id and name.
      const last = contentsOf(withMask.server.modelRequests().at(-1)!);
      for (const sent of sentResponses(last).filter((s) => s.maskedFile)) {
        expect(script.outputs.get(traceId(sent.name, sent.id))?.name).toBe(sent.name);
        expect(Object.keys(sent.response)).toEqual(['output']);
      }
    });

    test('each offloaded file holds exactly the original output', () => {
      const tempDir = withMask.config.storage.getProjectTempDir();
      const seen = new Set<string>();
      for (const request of withMask.server.modelRequests()) {
        for (const sent of sentResponses(contentsOf(request))) {
          if (!sent.maskedFile || seen.has(sent.maskedFile)) continue;
          seen.add(sent.maskedFile);
          const original = script.outputs.get(traceId(sent.name, sent.id))!;
          expect(
            sent.maskedFile.startsWith(
              path.join(tempDir, 'tool-outputs', `session-${withMask.config.getSessionId()}`),
            ),
          ).toBe(true);
          expect(fs.readFileSync(sent.maskedFile, 'utf8')).toBe(original.response['output']);
        }
      }
      expect(seen.size).toBe(maskedCount(withMask));
    });

    test('write-back keeps the turn ids and leaves the chat recording alone', () => {
      const masking = withMask.passes.filter((pass) => pass.result.maskedCount > 0);
      for (const pass of masking) {
        expect(pass.writeBack.written).toBe(true);
        expect(pass.writeBack.partsReplaced).toBe(
          pass.result.maskedCount - pass.requestPartsMasked,
        );
        expect(pass.writeBack.refused + pass.writeBack.missed).toBe(0);
      }
      // Passes that masked nothing wrote nothing.
      expect(withMask.passes.filter((p) => p.writeBack.written)).toHaveLength(masking.length);

      const chat = withMask.config.getGeminiClient().getChat();
      const recording = chat.getChatRecordingService().getConversation();
      expect(recording).not.toBeNull();
      const recorded = new Map(recording!.messages.map((m) => [m.id, m]));
      let maskedTurnParts = 0;
      for (const turn of chat.agentHistory.get()) {
        // Every live turn keeps the id it was recorded under.
        const message = recorded.get(turn.id);
        expect(message, `turn ${turn.id} is in the recording`).toBeDefined();
        for (const part of turn.content.parts ?? []) {
          const fr = part.functionResponse;
          if (!maskedFileOf((fr?.response as { output?: unknown } | undefined)?.output)) continue;
          maskedTurnParts++;
          // The recording keeps the output as the tool returned it.
          const original = script.outputs.get(traceId(fr!.name!, fr!.id!))!;
          expect(message!.content).toContainEqual({
            functionResponse: { id: fr!.id, name: fr!.name, response: original.response },
          });
        }
      }
      expect(maskedTurnParts).toBe(maskedCount(withMask));
      expect(recording!.messages.length).toBe(chat.agentHistory.get().length);
      // No churn: no extra checkpoint of the whole conversation, about the baseline's size.
      expect(withMask.recording.checkpoints).toBe(without.recording.checkpoints);
      expect(Math.abs(withMask.recording.bytes - without.recording.bytes)).toBeLessThan(
        without.recording.bytes * 0.01,
      );
    });

    test('a resumed session gets every output back as a functionResponse with its id, and is masked again', async () => {
      const { config, server } = withMask;
      const chat = config.getGeminiClient().getChat();
      const file = chat.getChatRecordingService().getConversationFilePath();
      expect(file).toBeTruthy();
      // What gemini-cli does on --resume: load the recording from disk, rebuild the client history.
      const conversation = await loadConversationRecord(file!);
      const resumed = convertSessionToClientHistory(conversation!.messages);
      const resumedParts = resumed.flatMap((turn) => turn.content.parts ?? []);
      const callIds = new Set(resumedParts.map((part) => part.functionCall?.id));
      let responses = 0;
      for (const part of resumedParts) {
        const fr = part.functionResponse;
        if (!fr) continue;
        responses++;
        expect(callIds.has(fr.id)).toBe(true);
        expect(fr.response).toEqual(script.outputs.get(traceId(fr.name!, fr.id!))!.response);
      }
      expect(responses).toBeGreaterThanOrEqual(script.outputs.size);

      // A client resumed from it (created after installation) is masked again before its first
      // request, to the same content-addressed files.
      const before = new Map(
        sentResponses(contentsOf(server.modelRequests().at(-1)!))
          .filter((s) => s.maskedFile)
          .map((s) => [s.id, s.maskedFile]),
      );
      const client = new GeminiClient(config);
      await client.resumeChat(resumed, { conversation: conversation!, filePath: file! });
      for await (const event of client.sendMessageStream(
        [{ text: 'Where were we?' }],
        new AbortController().signal,
        'resumed-1',
      )) {
        expect(event.type).not.toBe('error');
      }
      const after = sentResponses(contentsOf(server.modelRequests().at(-1)!));
      for (const [id, maskedFile] of before) {
        const copies = after.filter((s) => s.id === id);
        expect(copies.length).toBeGreaterThan(0);
        for (const copy of copies) expect(copy.maskedFile).toBe(maskedFile);
      }
      client.dispose();
    });

    test("a read_file request for a snippet's path, run through core's Scheduler, returns the full output", async () => {
      const { server, config } = withMask;
      const last = contentsOf(server.modelRequests().at(-1)!);
      const target = sentResponses(last).find((s) => {
        const original = script.outputs.get(traceId(s.name, s.id));
        const text = String(original?.response['output'] ?? '');
        // read_file pages at 2,000 lines of 2,000 characters: pick an output it returns in one go.
        return (
          s.maskedFile &&
          text.split('\n').length < 2000 &&
          text.split('\n').every((line) => line.length < 2000)
        );
      });
      expect(target?.maskedFile).toBeDefined();
      const original = String(
        script.outputs.get(traceId(target!.name, target!.id))!.response['output'],
      );

      server.enqueue({
        parts: [
          { text: 'Let me read the full output.' },
          {
            functionCall: {
              id: 'recover-1',
              name: 'read_file',
              args: { file_path: target!.maskedFile },
            },
          },
        ],
      });
      const promptId = `${config.getSessionId()}########recover`;
      const first = await sendAndCollect(
        config,
        [{ text: 'Show me the full output again.' }],
        promptId,
      );
      expect(first.calls.map((c) => c.name)).toEqual(['read_file']);

      const scheduler = new Scheduler({
        context: config,
        messageBus: config.getMessageBus(),
        getPreferredEditor: () => undefined,
        schedulerId: 'e2e-recovery',
      });
      const completed = await scheduler.schedule(
        first.calls as ToolCallRequestInfo[],
        new AbortController().signal,
      );
      expect(completed.map((c) => c.status)).toEqual(['success']);
      const parts: Part[] = completed.flatMap((c) => c.response.responseParts);
      const output = (parts[0]?.functionResponse?.response as { output?: string }).output;
      expect(output).toBe(original);

      await sendAndCollect(config, parts, promptId);
      const received = contentsOf(server.modelRequests().at(-1)!);
      const answer = sentResponses(received).at(-1)!;
      expect(answer.name).toBe('read_file');
      expect(answer.output).toBe(original);
    });

    test('enabled: false in the workspace settings.json turns toolmask off', async () => {
      const run = await runReplay(script, {
        install: true,
        workspaceSettings:
          '{\n  // JSONC, as gemini-cli allows\n  "experimental": { "toolOutputMasking": { "enabled": false } }\n}\n',
        // The user file says on; the workspace file wins.
        userSettings: '{ "experimental": { "toolOutputMasking": { "enabled": true } } }',
      });
      expect(run.settingsErrors).toEqual([]);
      expect(run.passes).toEqual([]);
      for (const request of run.server.modelRequests()) {
        expect(sentResponses(contentsOf(request)).some((s) => s.maskedFile)).toBe(false);
      }
      // Byte for byte the baseline, but for the settings file in the workspace listing.
      const offset = run.summary.firstBytes - without.summary.firstBytes;
      expect(run.server.modelRequests().map((r) => r.bytes - offset)).toEqual(
        without.server.modelRequests().map((r) => r.bytes),
      );
    });

    test('a broken settings.json is reported with its file and key, and the turn goes on', async () => {
      const run = await runReplay(script, {
        install: true,
        workspaceSettings: '{ "experimental": { "toolOutputMasking": { "enabled": true, } ',
        userSettings:
          '{ "experimental": { "toolOutputMasking": { "toolProtectionThreshold": "lots" } } }',
      });
      const workspaceFile = path.join(run.env.workspace, '.gemini', 'settings.json');
      const userFile = path.join(run.env.home, '.gemini', 'settings.json');
      expect(run.settingsErrors.map((e) => [e.file, e.key])).toEqual([
        [userFile, 'experimental.toolOutputMasking.toolProtectionThreshold'],
        [workspaceFile, 'experimental.toolOutputMasking'],
      ]);
      expect(run.settingsErrors[0]!.message).toContain(userFile);
      expect(run.settingsErrors[0]!.message).toContain('toolProtectionThreshold');
      expect(run.settingsErrors[1]!.message).toContain(workspaceFile);
      // Reported once, not on every request.
      expect(run.settingsErrors).toHaveLength(2);
      // Every turn was answered, and masking went on with the defaults.
      expect(run.server.modelRequests()).toHaveLength(script.steps.length);
      // (Counts can differ by an output at the margin: snippet estimates include temp paths.)
      const masking = (r: Run) =>
        r.passes.slice(0, script.steps.length).map((p) => p.result.maskedCount > 0);
      expect(masking(run)).toEqual(masking(withMask));
    });
  },
);
