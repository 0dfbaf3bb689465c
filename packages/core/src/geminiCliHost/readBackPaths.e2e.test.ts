/**
 * What the model copies from a snippet always reads back, end to end with the real
 * gemini-cli-core client, core's Scheduler and the installed `read_tool_output` (issue 15):
 * - item 8: the `file="…"` attribute of a project whose folders hold `&`, `"`, `<`, spaces and
 *   non-ASCII characters, copied as written (entities and all) or decoded;
 * - item 3: after `config.rotateSessionId(...)` (core's fallback handler calls it on
 *   `retry_always`), the conversation's earlier outputs, by path and by call id.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ApprovalMode, Scheduler, type Config, type Part } from '@google/gemini-cli-core';
import {
  shellCallTurn,
  startFakeGeminiServer,
  type FakeGeminiServer,
} from '@toolmask/test-support/fake-gemini-server';
import {
  CORE_MASKING_OFF,
  SMALL_THRESHOLDS,
  createHostConfig,
  sendAndCollect,
  setUpTestEnv,
  type TestEnv,
} from '@toolmask/test-support/agent-harness';
import { contentsOf, sentResponses } from '@toolmask/test-support/request-checks';
import {
  installToolOutputMasking,
  type ToolOutputMaskingInstallation,
} from './installToolOutputMasking.js';

const buildLog = (index: number) =>
  Array.from({ length: 400 }, (_, i) => `[log ${index}] line ${i + 1}: compiled unit_${i}.o`).join(
    '\n',
  );

interface Session {
  env: TestEnv;
  server: FakeGeminiServer;
  config: Config;
  installation: ToolOutputMaskingInstallation;
  scheduler: Scheduler;
}

let session: Session | undefined;

afterEach(async () => {
  session?.installation.uninstall();
  await session?.server.close();
  await session?.env.restore();
  session = undefined;
  vi.restoreAllMocks();
});

async function start(label: string): Promise<Session> {
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'debug').mockImplementation(() => undefined);
  const env = setUpTestEnv(label);
  const server = await startFakeGeminiServer();
  const config = await createHostConfig(env, server, {
    params: { contextManagement: CORE_MASKING_OFF, approvalMode: ApprovalMode.DEFAULT },
  });
  const installation = installToolOutputMasking(config, {
    settings: SMALL_THRESHOLDS,
    readSettingsFiles: false,
  });
  await installation.ready;
  const scheduler = new Scheduler({
    context: config,
    messageBus: config.getMessageBus(),
    getPreferredEditor: () => undefined,
    schedulerId: `paths-${label}`,
  });
  session = { env, server, config, installation, scheduler };
  return session;
}

/** Six shell outputs answered by the host (ids `<prefix>-1..6`): the older ones get masked. */
async function build(s: Session, prefix: string): Promise<void> {
  s.server.enqueue(...[1, 2, 3, 4, 5, 6].map((i) => shellCallTurn(i, `make ${prefix}-${i}`)));
  let pending = (await sendAndCollect(s.config, [{ text: `build ${prefix}` }], prefix)).calls;
  for (let index = 1; index <= 6; index++) {
    const call = pending[0]!;
    const response = { output: buildLog(index) };
    const parts: Part[] = [{ functionResponse: { id: call.callId, name: call.name, response } }];
    pending = (await sendAndCollect(s.config, parts, prefix)).calls;
  }
}

/** The `file` attribute of each snippet in the last request, exactly as the model reads it. */
function attributesAsWritten(s: Session): Array<{ attribute: string; id: string }> {
  const last = contentsOf(s.server.modelRequests().at(-1)!);
  return sentResponses(last)
    .filter((sent) => sent.maskedFile)
    .map((sent) => ({
      attribute: /^<tool_output_masked [^\n]*\bfile="([^"\n]*)"/.exec(sent.output!)![1]!,
      id: sent.id,
    }));
}

/** The model calls read_tool_output with `args`; core's Scheduler runs it; returns its output. */
async function readBack(s: Session, args: Record<string, unknown>, promptId: string) {
  s.server.enqueue({
    parts: [{ functionCall: { id: `read-${promptId}`, name: 'read_tool_output', args } }],
  });
  const first = await sendAndCollect(s.config, [{ text: `read (${promptId})` }], promptId);
  const completed = await s.scheduler.schedule(first.calls, new AbortController().signal);
  const parts = completed.flatMap((call) => call.response.responseParts);
  await sendAndCollect(s.config, parts, promptId);
  const answer = sentResponses(contentsOf(s.server.modelRequests().at(-1)!)).at(-1)!;
  expect(answer.name).toBe('read_tool_output');
  return String(answer.response['output'] ?? answer.response['error']);
}

describe('item 8: the file attribute a model copies reads back', () => {
  test('in a project whose folders hold &, ", <, spaces and non-ASCII characters', async () => {
    const s = await start('toolmask-R&D "q" <x> é 😀');
    await build(s, 'p');
    const snippets = attributesAsWritten(s);
    expect(snippets.length).toBeGreaterThan(0);
    const { attribute } = snippets[0]!;
    // What needs no escaping is written as it is; only the quote is an entity.
    expect(attribute).toContain('R&D &quot;q&quot; <x> é 😀');
    const asWritten = await readBack(s, { file: attribute, offset: 2, limit: 1 }, 'written');
    expect(asWritten).toMatch(
      /^\[log \d\] line 2: compiled unit_1\.o\n\[read_tool_output: lines 2-2 of 400;/,
    );
    const decoded = attribute.replace(/&quot;/g, '"');
    const asDecoded = await readBack(s, { file: decoded, offset: 2, limit: 1 }, 'decoded');
    expect(asDecoded).toBe(asWritten);
  });
});

describe('item 3: outputs of the conversation stay readable after rotateSessionId', () => {
  test('by the path in the snippet and by call id, with new outputs in the new session', async () => {
    const s = await start('toolmask-rotate');
    await build(s, 'before');
    const before = attributesAsWritten(s);
    expect(before.length).toBeGreaterThan(0);
    const firstSession = s.config.getSessionId();
    s.config.rotateSessionId(`${firstSession}-rotated`);

    const byPath = await readBack(s, { file: before[0]!.attribute, limit: 1 }, 'after-path');
    expect(byPath).toMatch(
      /^\[log \d\] line 1: compiled unit_0\.o\n\[read_tool_output: lines 1-1 of 400;/,
    );
    const byCallId = await readBack(s, { file: before[0]!.id, limit: 1 }, 'after-id');
    expect(byCallId).toBe(byPath);

    await build(s, 'after');
    const after = attributesAsWritten(s).filter(({ attribute }) => attribute.includes('-rotated'));
    expect(after.length).toBeGreaterThan(0);
    expect(await readBack(s, { file: after[0]!.attribute, limit: 1 }, 'new')).toMatch(
      /^\[log \d\] line 1:/,
    );
    // Other sessions of the project stay closed.
    const other = before[0]!.attribute.replace(`session-${firstSession}`, 'session-someone-else');
    expect(await readBack(s, { file: other }, 'other')).toMatch(/belongs to another session/);
  });
});
