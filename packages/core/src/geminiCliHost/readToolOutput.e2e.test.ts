/**
 * The read-back tool end to end, with the real gemini-cli-core client: `installToolOutputMasking`
 * registers `read_tool_output`; the fake model calls it with the path from a masked snippet; core's
 * real `Scheduler` runs it (policy check included: the Config is NOT in YOLO mode); the next
 * request the server receives carries exactly the requested lines.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  ApprovalMode,
  Scheduler,
  type Config,
  type Part,
  type ToolCallRequestInfo,
} from '@google/gemini-cli-core';
import {
  shellCallTurn,
  startFakeGeminiServer,
  type FakeGeminiServer,
  type FakeModelTurn,
  type RecordedRequest,
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
import { READ_TOOL_OUTPUT_POLICY_SOURCE, ReadToolOutputTool } from './readToolOutputTool.js';
import {
  installToolOutputMasking,
  type MaskingPass,
  type ToolOutputMaskingInstallation,
} from './installToolOutputMasking.js';

const SMALL = SMALL_THRESHOLDS;

/** A build log of `count` numbered lines; every 50th line reports an error. */
function buildLog(index: number, count = 400): string {
  return Array.from(
    { length: count },
    (_, i) =>
      `[log ${index}] line ${i + 1}: ${i % 50 === 49 ? `ERROR test_${i + 1} failed` : `compiled unit_${i + 1}.o`}`,
  ).join('\n');
}

const shellCall = (index: number) => shellCallTurn(index, `make target-${index}`);

function readCall(id: string, args: Record<string, unknown>): FakeModelTurn {
  return { parts: [{ functionCall: { id, name: 'read_tool_output', args } }] };
}

function declaredTools(request: RecordedRequest): string[] {
  const tools = (request.body['tools'] ?? []) as Array<{
    functionDeclarations?: Array<{ name?: string }>;
  }>;
  return tools.flatMap((tool) => (tool.functionDeclarations ?? []).map((d) => d.name ?? ''));
}

let env: TestEnv;
let server: FakeGeminiServer;
let config: Config;
let installation: ToolOutputMaskingInstallation;
const passes: MaskingPass[] = [];
const notices: string[] = [];
const logs = new Map<string, string>();
let scheduler: Scheduler;

/** The model's calls of one turn, run by core's Scheduler; returns the response parts. */
async function runTools(calls: ToolCallRequestInfo[]): Promise<Part[]> {
  const completed = await scheduler.schedule(calls, new AbortController().signal);
  return completed.flatMap((call) => call.response.responseParts);
}

/** Sends a prompt that makes the fake model call read_tool_output; runs it; sends the answer. */
async function readBack(args: Record<string, unknown>, promptId: string) {
  server.enqueue(readCall(`read-${promptId}`, args));
  const first = await sendAndCollect(config, [{ text: `read back (${promptId})` }], promptId);
  expect(first.calls.map((call) => call.name)).toEqual(['read_tool_output']);
  const parts = await runTools(first.calls);
  await sendAndCollect(config, parts, promptId);
  const received = server.modelRequests().at(-1)!;
  const answer = sentResponses(contentsOf(received)).at(-1)!;
  expect(answer.name).toBe('read_tool_output');
  return { parts, answer, received };
}

let snippetFile = '';
let snippetIndex = 0;

beforeAll(async () => {
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'debug').mockImplementation(() => undefined);
  env = setUpTestEnv('toolmask-readback');
  server = await startFakeGeminiServer({ script: [1, 2, 3, 4, 5, 6].map(shellCall) });
  // Default approval mode, non-interactive: an unknown tool would be denied by core's policy.
  config = await createHostConfig(env, server, {
    params: { contextManagement: CORE_MASKING_OFF, approvalMode: ApprovalMode.DEFAULT },
  });
  installation = installToolOutputMasking(config, {
    settings: SMALL,
    readSettingsFiles: false,
    onPass: (pass) => passes.push(pass),
    onNotice: (line) => notices.push(line),
  });
  await installation.ready;
  scheduler = new Scheduler({
    context: config,
    messageBus: config.getMessageBus(),
    getPreferredEditor: () => undefined,
    schedulerId: 'readback-e2e',
  });

  // Six shell outputs of 400 lines each, answered by the host: the older ones get masked.
  let pending = (await sendAndCollect(config, [{ text: 'build everything' }], 'p-build')).calls;
  for (let index = 1; index <= 6; index++) {
    const call = pending[0]!;
    const log = buildLog(index);
    logs.set(call.callId, log);
    pending = (
      await sendAndCollect(
        config,
        [
          {
            functionResponse: {
              id: call.callId,
              name: call.name,
              response: { output: log },
            },
          },
        ],
        'p-build',
      )
    ).calls;
  }
  const last = contentsOf(server.modelRequests().at(-1)!);
  const masked = sentResponses(last).find((sent) => sent.maskedFile);
  snippetFile = masked!.maskedFile!;
  // The file holds exactly one of the outputs the host sent.
  snippetIndex = [...logs.values()].indexOf(fs.readFileSync(snippetFile, 'utf8')) + 1;
  console.info(`read_tool_output e2e: a masked snippet as the model sees it:\n${masked!.output}`);
});

afterAll(async () => {
  installation?.uninstall();
  await server?.close();
  await env?.restore();
  vi.restoreAllMocks();
});

test('the tools are declared to the model, and the snippet names both', () => {
  for (const request of server.modelRequests()) {
    expect(declaredTools(request)).toContain('read_tool_output');
    expect(declaredTools(request)).toContain('search_tool_outputs');
  }
  const last = contentsOf(server.modelRequests().at(-1)!);
  const masked = sentResponses(last).filter((sent) => sent.maskedFile);
  expect(masked.length).toBeGreaterThan(0);
  for (const sent of masked) {
    expect(sent.output).toContain(
      '\nFull output: read_tool_output(file, offset, limit, pattern) or search_tool_outputs(query).\n',
    );
  }
  expect(snippetIndex).toBeGreaterThan(0);
});

test('the person gets one notice line per masking pass', () => {
  const masking = passes.filter((pass) => pass.result.maskedCount > 0);
  expect(masking.length).toBeGreaterThan(0);
  expect(notices).toEqual(masking.map((pass) => pass.result.notice));
  const sessionFolder = path.join(
    config.storage.getProjectTempDir(),
    'tool-outputs',
    `session-${config.getSessionId()}`,
  );
  expect(notices[0]).toMatch(
    new RegExp(
      `^toolmask: masked \\d+ older tool outputs?, freed ~[\\d,]+ tokens; full outputs in ${sessionFolder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`,
    ),
  );
});

test('a read-back call with the path from a snippet returns exactly the requested lines', async () => {
  const { answer, received } = await readBack(
    { file: snippetFile, offset: 120, limit: 5 },
    'p-read-range',
  );
  const expected = buildLog(snippetIndex).split('\n').slice(119, 124);
  expect(answer.response).toEqual({
    output: `${expected.join('\n')}\n[read_tool_output: lines 120-124 of 400; call again with offset=125 for more]`,
  });
  expect(pairingProblems(contentsOf(received))).toEqual([]);
  console.info(
    `read_tool_output e2e: the request after the call ends with:\n${JSON.stringify(contentsOf(received).slice(-2), null, 2)}`,
  );
});

test('a pattern call returns the matching lines with numbers and context', async () => {
  const { answer } = await readBack(
    { file: snippetFile, pattern: 'ERROR', limit: 2 },
    'p-read-grep',
  );
  const log = buildLog(snippetIndex).split('\n');
  const output = String(answer.output);
  expect(output.split('\n').slice(0, 5)).toEqual([
    `48-${log[47]}`,
    `49-${log[48]}`,
    `50:${log[49]}`,
    `51-${log[50]}`,
    `52-${log[51]}`,
  ]);
  expect(output.split('\n').at(-1)).toBe(
    '[read_tool_output: 2 of 8 matching lines in lines 1-400 of 400; stopped at limit=2: call again with the same pattern and offset=103 for more]',
  );
});

test('a search call finds the line only a masked output holds, named as read_tool_output takes it', async () => {
  const query = `\\[log ${snippetIndex}\\] line 250:`;
  server.enqueue({
    parts: [
      {
        functionCall: {
          id: 'search-1',
          name: 'search_tool_outputs',
          args: { query, regex: true },
        },
      },
    ],
  });
  const first = await sendAndCollect(config, [{ text: 'find it' }], 'p-search');
  expect(first.calls.map((call) => call.name)).toEqual(['search_tool_outputs']);
  const parts = await runTools(first.calls);
  await sendAndCollect(config, parts, 'p-search');
  const received = server.modelRequests().at(-1)!;
  const answer = sentResponses(contentsOf(received)).at(-1)!;
  expect(answer.name).toBe('search_tool_outputs');
  const output = String(answer.output);
  const named = `${path.basename(path.dirname(snippetFile))}/${path.basename(snippetFile)}`;
  const line = buildLog(snippetIndex).split('\n')[249];
  expect(output).toContain(`\n${named}\n  249-`);
  expect(output).toContain(`\n  250:${line}\n`);
  expect(pairingProblems(contentsOf(received))).toEqual([]);
});

test('a path outside the session is refused with an error the model can act on; the turn goes on', async () => {
  const secret = path.join(env.workspace, 'secret.txt');
  fs.writeFileSync(secret, 'not for the model');
  const { answer } = await readBack({ file: secret }, 'p-read-outside');
  expect(Object.keys(answer.response)).toEqual(['error']);
  expect(String(answer.response['error'])).toMatch(
    /^read_tool_output: .*secret\.txt is not an offloaded tool output of this session: read_tool_output only reads files in .*session-/,
  );
  const traversal = await readBack(
    { file: `${path.dirname(snippetFile)}/../../../../workspace/secret.txt` },
    'p-read-dotdot',
  );
  expect(String(traversal.answer.response['error'])).toMatch(/"\.\." is not allowed/);
});

test('read-backs are never masked: the tool is exempt', () => {
  const last = contentsOf(server.modelRequests().at(-1)!);
  const reads = sentResponses(last).filter((sent) => sent.name === 'read_tool_output');
  expect(reads.length).toBe(4);
  for (const read of reads) expect(read.maskedFile).toBeUndefined();
});

describe('registration', () => {
  test('the tool is allowed by a toolmask policy rule in the default tier', () => {
    const rules = config
      .getPolicyEngine()
      .getRules()
      .filter((rule) => rule.toolName === 'read_tool_output');
    expect(rules).toMatchObject([
      { decision: 'allow', priority: 1.05, source: READ_TOOL_OUTPUT_POLICY_SOURCE },
    ]);
  });

  test('is registered again when the host replaces its tool registry', async () => {
    const registry = config.getToolRegistry();
    registry.unregisterTool('read_tool_output');
    server.enqueue({ parts: [{ text: 'ok' }] });
    await sendAndCollect(config, [{ text: 'still there?' }], 'p-again');
    expect(config.getToolRegistry().getTool('read_tool_output')).toBeDefined();
    expect(declaredTools(server.modelRequests().at(-1)!)).toContain('read_tool_output');
  });

  test("a host's own tool of that name is left in place (said once)", async () => {
    const other = await createHostConfig(env, server, {
      params: { contextManagement: CORE_MASKING_OFF },
    });
    const theirs = new ReadToolOutputTool(other.getMessageBus(), async () => ({
      projectTempDir: env.tmp,
      sessionId: 'theirs',
      allowOtherSessions: false,
    }));
    other.getToolRegistry().registerTool(theirs);
    const debug: string[] = [];
    const mine = installToolOutputMasking(other, {
      readSettingsFiles: false,
      _internal: { debug: (line) => debug.push(line) },
    });
    await mine.ready;
    server.enqueue({ parts: [{ text: 'a' }] }, { parts: [{ text: 'b' }] });
    await sendAndCollect(other, [{ text: 'one' }], 'p-theirs-1');
    await sendAndCollect(other, [{ text: 'two' }], 'p-theirs-2');
    expect(other.getToolRegistry().getTool('read_tool_output')).toBe(theirs);
    expect(debug.filter((line) => line.includes('registered already'))).toHaveLength(1);
    mine.uninstall();
    expect(other.getToolRegistry().getTool('read_tool_output')).toBe(theirs);
  });

  test('uninstall removes the tools, their rules and their declarations', async () => {
    installation.uninstall();
    for (const name of ['read_tool_output', 'search_tool_outputs']) {
      expect(config.getToolRegistry().getTool(name)).toBeUndefined();
      expect(
        config
          .getPolicyEngine()
          .getRules()
          .some((rule) => rule.toolName === name),
      ).toBe(false);
    }
    server.enqueue({ parts: [{ text: 'ok' }] });
    await sendAndCollect(config, [{ text: 'and now?' }], 'p-gone');
    expect(declaredTools(server.modelRequests().at(-1)!)).not.toContain('read_tool_output');
    expect(declaredTools(server.modelRequests().at(-1)!)).not.toContain('search_tool_outputs');
  });
});
