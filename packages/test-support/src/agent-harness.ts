/**
 * Drives a real gemini-cli-core `Config` + `GeminiClient` against the fake Gemini server:
 * isolated temp folders (TMPDIR, GEMINI_CLI_HOME, a workspace), a host Config built the way a
 * headless host builds it, and a host loop that replays recorded sessions.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  ApprovalMode,
  AuthType,
  Config,
  GeminiEventType,
  type ConfigParameters,
  type Part,
  type ServerGeminiStreamEvent,
  type ToolCallRequestInfo,
} from '@google/gemini-cli-core';
import type { FakeGeminiServer } from './fake-gemini-server.js';
import type { HostStep, ReplayScript } from './traces.js';

/** The system temp folder when this module loaded (before any test moved TMPDIR). */
const BASE_TMPDIR = os.tmpdir();

export interface TestEnv {
  root: string;
  /** GEMINI_CLI_HOME: user settings live in `<home>/.gemini/settings.json`. */
  home: string;
  /** TMPDIR. */
  tmp: string;
  /** The project folder (targetDir, cwd). */
  workspace: string;
  /** Configs made for this env (`createHostConfig`); `restore()` disposes them. */
  readonly configs: Config[];
  /**
   * Disposes the Configs (core leaves a listener per client on its process-wide event emitter
   * otherwise, and a test file that makes a dozen Configs trips Node's leak warning), puts the
   * environment variables back and removes the folders.
   */
  restore(): Promise<void>;
}

/** Fresh folders; points TMPDIR and GEMINI_CLI_HOME at them until `restore()`. */
export function setUpTestEnv(label = 'toolmask-e2e'): TestEnv {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(BASE_TMPDIR, `${label}-`)));
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  const workspace = path.join(root, 'workspace');
  for (const dir of [home, tmp, workspace]) fs.mkdirSync(dir, { recursive: true });
  const saved = { TMPDIR: process.env['TMPDIR'], GEMINI_CLI_HOME: process.env['GEMINI_CLI_HOME'] };
  process.env['TMPDIR'] = tmp;
  process.env['GEMINI_CLI_HOME'] = home;
  const configs: Config[] = [];
  return {
    root,
    home,
    tmp,
    workspace,
    configs,
    async restore() {
      for (const config of configs.splice(0)) await config.dispose().catch(() => undefined);
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await fs.promises.rm(root, { recursive: true, force: true });
    },
  };
}

export function writeSettings(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** `contextManagement` params that switch core's own masking pass off (thresholds never reached). */
/**
 * Small thresholds so a few synthetic outputs are enough to trigger a pass; the `floor` warm rule,
 * as such short sessions cannot pay a warm break back under `pay-back` (the default).
 */
export const SMALL_THRESHOLDS = {
  toolProtectionThreshold: 2_000,
  minPrunableTokensThreshold: 1_000,
  warmRule: 'floor' as const,
};

export const CORE_MASKING_OFF: ConfigParameters['contextManagement'] = {
  tools: {
    outputMasking: {
      protectionThresholdTokens: Number.MAX_SAFE_INTEGER,
      minPrunableThresholdTokens: Number.MAX_SAFE_INTEGER,
      protectLatestTurn: true,
    },
    distillation: { maxOutputTokens: 10_000, summarizationThresholdTokens: 20_000 },
  },
};

export interface HostConfigOptions {
  sessionId?: string;
  /** Extra constructor parameters (override the defaults below). */
  params?: Partial<ConfigParameters>;
}

/** A host Config as a headless host builds it, authenticated against the fake server. */
export async function createHostConfig(
  env: TestEnv,
  server: FakeGeminiServer,
  options: HostConfigOptions = {},
): Promise<Config> {
  const config = new Config({
    sessionId: options.sessionId ?? randomUUID(),
    targetDir: env.workspace,
    cwd: env.workspace,
    debugMode: false,
    model: 'gemini-2.5-flash',
    interactive: false,
    usageStatisticsEnabled: false,
    maxAttempts: 1,
    disableLoopDetection: true,
    approvalMode: ApprovalMode.YOLO,
    // GrepTool straight away: core would look for ripgrep and warn on every Config without it.
    useRipgrep: false,
    ...options.params,
  });
  env.configs.push(config);
  await config.initialize();
  await config.refreshAuth(AuthType.USE_GEMINI, 'fake-api-key', server.baseUrl);
  return config;
}

export interface TurnOutcome {
  calls: ToolCallRequestInfo[];
  events: ServerGeminiStreamEvent[];
}

/** Sends one message and drains the stream; an Error event becomes a thrown error. */
export async function sendAndCollect(
  config: Config,
  request: Part[],
  promptId: string,
  signal: AbortSignal = new AbortController().signal,
): Promise<TurnOutcome> {
  const client = config.getGeminiClient();
  const calls: ToolCallRequestInfo[] = [];
  const events: ServerGeminiStreamEvent[] = [];
  for await (const event of client.sendMessageStream(request, signal, promptId)) {
    events.push(event);
    if (event.type === GeminiEventType.ToolCallRequest) calls.push(event.value);
    if (event.type === GeminiEventType.Error) {
      throw new Error(`model request failed: ${JSON.stringify(event.value.error)}`);
    }
  }
  return { calls, events };
}

/** Core prefixes call ids with `<tool>__`; the trace has the bare id. */
function traceIdOf(call: ToolCallRequestInfo): string {
  const prefix = `${call.name}__`;
  return call.callId.startsWith(prefix) ? call.callId.slice(prefix.length) : call.callId;
}

function answerParts(step: HostStep, pending: ToolCallRequestInfo[]): Part[] {
  const byTraceId = new Map(pending.map((call) => [traceIdOf(call), call]));
  const parts: Part[] = step.answers.map((answer, index) => {
    const call = byTraceId.get(answer.callId) ?? pending[index];
    if (!call) throw new Error(`${step.session}: no pending call for ${answer.callId}`);
    return { functionResponse: { id: call.callId, name: call.name, response: answer.response } };
  });
  for (const text of step.text) parts.push({ text });
  return parts;
}

/**
 * What gemini-cli's UI does once tools complete: record them on the chat (the recording keeps
 * a model turn's text as its message and its calls, with their results, as tool call records).
 */
export function recordToolCalls(
  config: Config,
  calls: readonly ToolCallRequestInfo[],
  responseParts: readonly Part[],
): void {
  const completed = calls.map((request) => ({
    status: 'success',
    request,
    response: {
      callId: request.callId,
      responseParts: responseParts.filter((part) => part.functionResponse?.id === request.callId),
      resultDisplay: undefined,
      error: undefined,
      errorType: undefined,
    },
  }));
  const chat = config.getGeminiClient().getChat();
  chat.recordCompletedToolCalls(
    config.getActiveModel(),
    completed as unknown as Parameters<typeof chat.recordCompletedToolCalls>[1],
  );
}

export interface ReplayOptions {
  /** Called after each step's stream is drained. */
  afterStep?: (index: number, step: HostStep, outcome: TurnOutcome) => void | Promise<void>;
  /** Answers tool calls some other way (e.g. with real tools); default: the recorded outputs. */
  answer?: (step: HostStep, pending: ToolCallRequestInfo[]) => Promise<Part[]> | Part[];
}

/** The host loop: sends each step of the script and answers the calls of each model turn. */
export async function replay(
  config: Config,
  script: ReplayScript,
  options: ReplayOptions = {},
): Promise<void> {
  let promptId = '';
  let pending: ToolCallRequestInfo[] = [];
  for (const [index, step] of script.steps.entries()) {
    let request: Part[];
    if (step.kind === 'prompt') {
      promptId = `${config.getSessionId()}########${index}`;
      request = step.text.map((text) => ({ text }));
    } else {
      request = options.answer ? await options.answer(step, pending) : answerParts(step, pending);
      recordToolCalls(config, pending, request);
    }
    const outcome = await sendAndCollect(config, request, promptId);
    pending = outcome.calls;
    await options.afterStep?.(index, step, outcome);
  }
}
