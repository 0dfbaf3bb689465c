/**
 * What a conversation keeps between requests is only a cache: once it lets it go (the registry's
 * memory bound), nothing of the last request's history may stay reachable, or the bound bounds
 * nothing. Checked with the garbage collector itself.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { resolveToolOutputMaskingConfigForModel } from '@toolmask/core/settings';
import { createFileToolOutputStore } from '@toolmask/core/storage';
import type { Content } from '@toolmask/core';
import { describe, expect, it } from 'vitest';
import { Conversation } from './conversation.js';
import { LOCAL_SYNC } from './conversation-sync.js';
import type { PrepareOptions } from './prepared-request.js';
import { GEMINI_API_PROTOCOL } from '../protocols/gemini/index.js';
import { OPENAI_CHAT_PROTOCOL } from '../protocols/openai-chat/index.js';
import type { ConversationStore } from '../state/stores.js';
import { stubConversationStore } from '../test-utils/stub-conversation-store.js';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';

const cleanups = cleanUpAfterEach();

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const memoryStore = (): ConversationStore => stubConversationStore();

/** A conversation, and the options of its requests (the settings are a request's). */
function conversation(
  stateDir: string,
  settings: Record<string, unknown> = {},
  store: ConversationStore = memoryStore(),
): Conversation & { requestOptions: PrepareOptions } {
  const kept = new Conversation({
    id: 'c0ffee00',
    host: {
      getSessionId: () => 'c0ffee00',
      storage: { getProjectTempDir: () => stateDir },
    },
    store,
    sync: LOCAL_SYNC,
    outputs: createFileToolOutputStore(),
    readToolName: 'read_tool_output',
    now: () => 0,
    telemetry: () => undefined,
    debug: () => undefined,
  });
  const config = resolveToolOutputMaskingConfigForModel(undefined, { enabled: true, ...settings });
  return Object.assign(kept, { requestOptions: { config } });
}

/** A history with one tool output, too small to mask, so the pass only measures it. */
function history(): Content[] {
  return [
    { role: 'user', parts: [{ text: 'list the files' }] },
    { role: 'model', parts: [{ functionCall: { name: 'ls', id: 'call-1', args: {} } }] },
    {
      role: 'user',
      parts: [{ functionResponse: { name: 'ls', id: 'call-1', response: { output: 'a\nb\n' } } }],
    },
    { role: 'model', parts: [{ text: 'two files' }] },
    { role: 'user', parts: [{ text: 'thanks' }] },
  ];
}

/** A session of `steps` shell calls with outputs large enough to mask. */
function shellHistory(steps: number): unknown[] {
  const contents: unknown[] = [{ role: 'user', parts: [{ text: 'build it' }] }];
  for (let step = 0; step < steps; step++) {
    contents.push(
      { role: 'model', parts: [{ functionCall: { id: `c${step}`, name: 'run_shell_command' } }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: `c${step}`,
              name: 'run_shell_command',
              response: { output: `line ${step}\n`.repeat(2_000) },
            },
          },
        ],
      },
    );
  }
  return contents;
}

/** Whether `collected()` turns true within a few collections (the callback runs in a task). */
async function collectedSoon(collected: () => boolean): Promise<boolean> {
  for (let attempt = 0; attempt < 20 && !collected(); attempt++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return collected();
}

// Any batch masks (the warm rule is not the subject; these sessions cannot pay a break back).
const MASKING_SOON = {
  toolProtectionThreshold: 2_000,
  minPrunableTokensThreshold: 1_000,
  warmRule: 'floor' as const,
};

describe('Conversation.releaseHistory', () => {
  it('leaves nothing of the last history reachable', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-memory-'));
    cleanups.push(() => fs.promises.rm(stateDir, { recursive: true, force: true }));
    const kept = conversation(stateDir);
    let collected = false;
    const watch = new FinalizationRegistry(() => (collected = true));
    // Nothing of the request leaves this function but the watch on its tool output.
    const send = async () => {
      const incoming = history();
      const prepared = await kept.exclusive(() =>
        kept.prepareInTurn(incoming, kept.requestOptions),
      );
      expect(prepared.result.maskedCount).toBe(0);
      watch.register(incoming[2]!.parts![0]!.functionResponse!.response as object, 'output');
    };
    await send();
    kept.releaseHistory();
    expect(await collectedSoon(() => collected)).toBe(true);
  });

  it('keeps what was sent for a masked output, not its whole text, while it keeps the history', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-memory-'));
    cleanups.push(() => fs.promises.rm(stateDir, { recursive: true, force: true }));
    const kept = conversation(stateDir, MASKING_SOON);
    const reader = kept.bodies.reader(GEMINI_API_PROTOCOL.codec);
    const contents = shellHistory(4);
    let collected = false;
    const watch = new FinalizationRegistry(() => (collected = true));
    // One request as the handler makes it; only the body sent leaves this function.
    const send = async (watchFirstOutput: boolean) => {
      const decoded = (await reader.read(Buffer.from(JSON.stringify({ contents })), 'm'))!;
      const prepared = await kept.prepareInTurn(decoded.contents, {
        ...kept.requestOptions,
        keptAsSent: true,
      });
      const body = (await decoded.write(prepared.contents)).toString('utf8');
      // After the send, as forward-exchange.ts does (run-pass.ts `settleAfterSend`).
      await decoded.settle();
      await kept.writeDecisions();
      if (watchFirstOutput) {
        watch.register(decoded.contents[2]!.parts![0]!.functionResponse!.response as object, '');
      }
      return body;
    };
    const first = await send(true);
    expect(first).toContain('<tool_output_masked');
    // Let go as soon as the request that masked it is written and sent.
    expect(await collectedSoon(() => collected)).toBe(true);
    contents.push(
      { role: 'model', parts: [{ text: 'built' }] },
      { role: 'user', parts: [{ text: 'ok' }] },
    );
    // The next request resends the output whole; it goes out as the same snippet.
    const second = await send(false);
    const snippet = /<tool_output_masked[^"]*"[^"]*"[^"]*"[^"]*"[^"]*"[^"]*">/.exec(first)?.[0];
    expect(snippet && second.includes(snippet)).toBe(true);
    expect(kept.retainedBytes).toBeLessThan(second.length + 1);
  });

  it('OpenAI: parallel tool results masked as one turn are let go as soon as they are written', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-memory-'));
    cleanups.push(() => fs.promises.rm(stateDir, { recursive: true, force: true }));
    const kept = conversation(stateDir, MASKING_SOON);
    const reader = kept.bodies.reader(OPENAI_CHAT_PROTOCOL.codec);
    const call = (id: string) => ({
      id,
      type: 'function',
      function: { name: 'run_shell_command', arguments: '{}' },
    });
    // In each turn the first result is too small to mask: the turn stays known by it.
    const output = (id: string, lines = 4_000) => ({
      role: 'tool',
      tool_call_id: id,
      content: `${id}\n`.repeat(lines),
    });
    const messages = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'build it' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      output('a', 1),
      output('b'),
      { role: 'assistant', content: null, tool_calls: [call('c'), call('d')] },
      output('c', 1),
      output('d'),
      { role: 'assistant', content: 'built' },
      { role: 'user', content: 'and now?' },
    ];
    let collected = false;
    const watch = new FinalizationRegistry(() => (collected = true));
    const send = async () => {
      const decoded = (await reader.read(
        Buffer.from(JSON.stringify({ model: 'q', messages })),
        '',
      ))!;
      const prepared = await kept.prepareInTurn(decoded.contents, {
        ...kept.requestOptions,
        keptAsSent: true,
      });
      const body = (await decoded.write(prepared.contents)).toString('utf8');
      watch.register(decoded.contents[4] as object, '');
      return body;
    };
    const body = await kept.exclusive(send);
    expect(body).toContain('<tool_output_masked');
    expect(body).not.toContain('b\nb\nb\n');
    expect(await collectedSoon(() => collected)).toBe(true);
  });

  it('asked for during a pass (another request trimming memory), waits for the pass to end', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-memory-'));
    cleanups.push(() => fs.promises.rm(stateDir, { recursive: true, force: true }));
    let saved = () => undefined as void;
    const saving = new Promise<void>((resolve) => (saved = resolve));
    let appending = () => undefined as void;
    const appendStarted = new Promise<void>((resolve) => (appending = resolve));
    const kept = conversation(stateDir, MASKING_SOON, {
      ...memoryStore(),
      // The pass's store takes its time to load: the window another request trims in (its
      // decisions are appended after the send: durable-decisions.ts).
      load: async () => {
        appending();
        await saving;
        return { decisions: [] };
      },
    });
    const reader = kept.bodies.reader(GEMINI_API_PROTOCOL.codec);
    // Spacing a serializer would not write: only an element kept as its own bytes keeps it.
    const raw = Buffer.from(
      JSON.stringify({ contents: shellHistory(4) }).replaceAll('"parts":[', '"parts": ['),
    );
    const sending = kept.exclusive(async () => {
      const decoded = (await reader.read(raw, 'm'))!;
      const prepared = await kept.prepareInTurn(decoded.contents, kept.requestOptions);
      return (await decoded.write(prepared.contents)).toString('utf8');
    });
    await appendStarted;
    kept.releaseHistory();
    saved();
    const body = await sending;
    expect(body).toContain('<tool_output_masked');
    // The elements the pass left alone are their own bytes, spacing included.
    expect(body.startsWith('{"contents":[{"role":"user","parts": [{"text":"build it"}]}')).toBe(
      true,
    );
    expect(kept.retainedBytes).toBe(0);
  });
});
