/**
 * Real tools, end to end: the model (fake server) asks for `run_shell_command` and `read_file` on
 * a temp workspace; core's own `Scheduler` runs them; their responses go back through the real
 * client with toolmask installed. The path tool -> mask -> request is real; no recorded traces.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { Scheduler, type Config, type Part } from '@google/gemini-cli-core';
import {
  startFakeGeminiServer,
  type FakeGeminiServer,
  type FakeModelTurn,
} from '@toolmask/test-support/fake-gemini-server';
import {
  CORE_MASKING_OFF,
  createHostConfig,
  sendAndCollect,
  setUpTestEnv,
  type TestEnv,
} from '@toolmask/test-support/agent-harness';
import { contentsOf, pairingProblems, sentResponses } from '@toolmask/test-support/request-checks';
import { installToolOutputMasking, type MaskingPass } from './installToolOutputMasking.js';

let env: TestEnv;
let server: FakeGeminiServer;
let config: Config;
const passes: MaskingPass[] = [];

function call(id: string, name: string, args: Record<string, unknown>): FakeModelTurn {
  return { parts: [{ text: `running ${name}` }, { functionCall: { id, name, args } }] };
}

beforeAll(async () => {
  // Core writes debug notes (routing, policy) to the console.
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'debug').mockImplementation(() => undefined);
  env = setUpTestEnv('toolmask-tools');
  const log = Array.from(
    { length: 600 },
    (_, i) => `2026-01-01T00:00:${i % 60} INFO worker ${i} done`,
  );
  fs.writeFileSync(path.join(env.workspace, 'build.log'), `${log.join('\n')}\n`);
  fs.mkdirSync(path.join(env.workspace, 'src'));
  fs.writeFileSync(
    path.join(env.workspace, 'src', 'app.py'),
    Array.from(
      { length: 300 },
      (_, i) => `def handler_${i}(event):\n    return event + ${i}\n`,
    ).join(''),
  );
  server = await startFakeGeminiServer({
    script: [
      call('t1', 'run_shell_command', { command: 'seq 1 4000', description: 'numbers' }),
      call('t2', 'read_file', { file_path: path.join(env.workspace, 'build.log') }),
      call('t3', 'run_shell_command', { command: 'grep -n worker build.log | head -n 400' }),
      call('t4', 'read_file', { file_path: path.join(env.workspace, 'src', 'app.py') }),
      call('t5', 'run_shell_command', { command: 'echo done' }),
      { parts: [{ text: 'All checked.' }] },
    ],
  });
  config = await createHostConfig(env, server, {
    params: { contextManagement: CORE_MASKING_OFF },
  });
  installToolOutputMasking(config, {
    // The floor warm rule: masks in this short session (the rule is not the subject).
    settings: {
      toolProtectionThreshold: 2_000,
      minPrunableTokensThreshold: 1_000,
      warmRule: 'floor',
    },
    readSettingsFiles: false,
    onPass: (pass) => passes.push(pass),
  });

  const scheduler = new Scheduler({
    context: config,
    messageBus: config.getMessageBus(),
    getPreferredEditor: () => undefined,
    schedulerId: 'e2e-real-tools',
  });
  const signal = new AbortController().signal;
  let outcome = await sendAndCollect(config, [{ text: 'Check the build.' }], 'real-1', signal);
  while (outcome.calls.length > 0) {
    const completed = await scheduler.schedule(outcome.calls, signal);
    const parts: Part[] = completed.flatMap((c) => c.response.responseParts);
    outcome = await sendAndCollect(config, parts, 'real-1', signal);
  }
});

afterAll(async () => {
  await server.close();
  await env.restore();
  vi.restoreAllMocks();
});

test('real tool outputs are masked once old, and each file holds what the tool returned', () => {
  const requests = server.modelRequests();
  expect(requests).toHaveLength(6);
  // The first time each output was sent, whole: that is what the tool returned.
  // (Core sends call ids without its internal `<tool>__` prefix.)
  const firstSent = new Map<string, string>();
  const names: string[] = [];
  for (const request of requests) {
    for (const sent of sentResponses(contentsOf(request))) {
      if (!sent.maskedFile && sent.output !== undefined && !firstSent.has(sent.id)) {
        firstSent.set(sent.id, sent.output);
        names.push(sent.name);
      }
    }
  }
  expect([...firstSent.keys()]).toEqual(['t1', 't2', 't3', 't4', 't5']);
  expect(names).toEqual([
    'run_shell_command',
    'read_file',
    'run_shell_command',
    'read_file',
    'run_shell_command',
  ]);
  expect(firstSent.get('t1')).toContain('4000');

  const last = sentResponses(contentsOf(requests.at(-1)!));
  const masked = last.filter((s) => s.maskedFile);
  expect(masked.map((s) => s.id)).toContain('t1');
  // The `gemini` command wraps a shell output in `<untrusted_context>`: the wrapper is the
  // client's, not the command's, so the file leaves it out and its line N is the command's line N
  // (services/clientShellHeader.ts).
  const commandOutput = (text: string | undefined) =>
    text?.replace(/^<untrusted_context>\n/, '').replace(/\n<\/untrusted_context>$/, '');
  for (const sent of masked) {
    expect(fs.readFileSync(sent.maskedFile!, 'utf8')).toBe(commandOutput(firstSent.get(sent.id)));
  }
  // The newest output arrives whole.
  expect(last.at(-1)?.id).toBe('t5');
  expect(last.at(-1)?.maskedFile).toBeUndefined();
  for (const request of requests) expect(pairingProblems(contentsOf(request))).toEqual([]);
  expect(passes.some((p) => p.result.maskedCount > 0)).toBe(true);
});
