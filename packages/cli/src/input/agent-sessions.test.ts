/**
 * The readers of the agents' own session files, on fixtures made from what the real binaries
 * wrote (claude 2.1.328, codex 0.169.0, opencode 1.18.33 against scripted fakes; trimmed and
 * anonymised) and on small hand-written files for what those runs did not show (images,
 * thinking, subagents, compaction).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from './input-error.js';
import { loadSessionFile } from './load-session-file.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const data = path.join(here, 'test-data');
const CLAUDE = path.join(
  data,
  'claude-code/-home-user-project/3b34d922-868b-4f70-bc9e-4cc596316023.jsonl',
);
const CODEX = path.join(
  data,
  'codex/2026/12/01/rollout-2026-12-01T17-02-36-01a2328e-e95e-7681-9868-639bd6f96ef3.jsonl',
);
const OPENCODE = path.join(data, 'opencode/ses_dcd710ef6ffeaMpKfk0H4IRlPM.json');

const scratch: string[] = [];
afterEach(async () => {
  for (const folder of scratch.splice(0)) await fs.rm(folder, { recursive: true, force: true });
});

async function writeLines(name: string, records: unknown[]): Promise<string> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-agent-sessions-'));
  scratch.push(folder);
  const file = path.join(folder, name);
  await fs.writeFile(file, records.map((record) => JSON.stringify(record)).join('\n') + '\n');
  return file;
}

const roles = (contents: readonly { role?: string }[]) => contents.map((content) => content.role);

describe('Claude Code transcripts', () => {
  it('reads the recorded session: prompt, merged answers, paired results, usage', async () => {
    const [task, ...rest] = await loadSessionFile(CLAUDE);
    expect(rest).toHaveLength(0);
    expect(task!.format).toBe('claude-code');
    expect(task!.provider).toBe('anthropic');
    // system prompt, prompt, answer (text + 2 calls), 2 results, answer (Read), result, answer
    expect(roles(task!.contents)).toEqual([
      'user',
      'user',
      'model',
      'user',
      'model',
      'user',
      'model',
    ]);
    expect(task!.contents[0]!.parts![0]!.text).toContain('You are a coding agent');
    const answer = task!.contents[2]!.parts!;
    expect(answer.map((part) => part.text ?? part.functionCall?.name)).toEqual([
      'Let me print them.',
      'Bash',
      'Bash',
    ]);
    expect(task!.contents[3]!.parts!.map((part) => part.functionResponse)).toEqual([
      { id: 'toolu_01', name: 'Bash', response: { output: '1\n2\n3\n4\n5' } },
      { id: 'toolu_02', name: 'Bash', response: { output: 'hello' } },
    ]);
    expect(task!.contents[5]!.parts![0]!.functionResponse).toMatchObject({
      id: 'toolu_03',
      name: 'Read',
    });
    // One usage per answer (its blocks share it): input + cache reads + cache writes.
    expect(task!.recordedUsage).toEqual([
      undefined,
      undefined,
      { promptTokens: 903, cachedTokens: 0, cacheWriteTokens: 900 },
      undefined,
      { promptTokens: 10_703, cachedTokens: 9_800, cacheWriteTokens: 900 },
      undefined,
      { promptTokens: 11_103, cachedTokens: 10_200, cacheWriteTokens: 900 },
    ]);
    expect(task!.startedAt).toBe(Date.parse('2026-12-01T17:02:35.355Z'));
    expect(task!.updatedAt).toBeGreaterThan(task!.startedAt!);
    expect(task!.warnings).toEqual([]);
  });

  it('keeps images, leaves out thinking, subagents and made-up answers, splits at compaction', async () => {
    const base = { sessionId: 's1', timestamp: '2026-11-02T10:00:00.000Z' };
    const png = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' };
    const file = await writeLines('s1.jsonl', [
      { type: 'summary', summary: 'old', leafUuid: 'x' },
      {
        ...base,
        type: 'user',
        message: {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', source: png },
          ],
        },
      },
      {
        ...base,
        type: 'assistant',
        message: {
          id: 'm1',
          model: 'claude',
          content: [{ type: 'thinking', thinking: '', signature: 'sig' }],
          usage: { input_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 100 },
        },
      },
      {
        ...base,
        type: 'assistant',
        message: {
          id: 'm1',
          model: 'claude',
          content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'a.png' } }],
        },
      },
      {
        ...base,
        isSidechain: true,
        type: 'user',
        message: { role: 'user', content: 'subagent prompt' },
      },
      {
        ...base,
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [
                { type: 'text', text: 'an image' },
                { type: 'image', source: png },
              ],
            },
          ],
        },
      },
      {
        ...base,
        type: 'assistant',
        message: { id: 'e1', model: '<synthetic>', content: [{ type: 'text', text: 'API Error' }] },
      },
      { ...base, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted' },
      {
        ...base,
        type: 'user',
        isCompactSummary: true,
        message: { role: 'user', content: 'Summary of the work so far' },
      },
      {
        ...base,
        type: 'assistant',
        message: { id: 'm2', model: 'claude', content: [{ type: 'text', text: 'Going on.' }] },
      },
    ]);
    const tasks = await loadSessionFile(file);
    expect(tasks.map((task) => task.label)).toEqual(['s1#1', 's1#2']);
    const [before, after] = tasks;
    expect(before!.contents).toEqual([
      {
        role: 'user',
        parts: [{ text: 'look' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
      },
      {
        role: 'model',
        parts: [{ functionCall: { id: 't1', name: 'Read', args: { file_path: 'a.png' } } }],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 't1', name: 'Read', response: { output: 'an image' } } },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
    ]);
    expect(before!.recordedUsage?.[1]).toEqual({
      promptTokens: 105,
      cachedTokens: 0,
      cacheWriteTokens: 100,
    });
    expect(after!.contents).toEqual([
      { role: 'user', parts: [{ text: 'Summary of the work so far' }] },
      { role: 'model', parts: [{ text: 'Going on.' }] },
    ]);
  });
});

describe('Codex session files', () => {
  it('reads the recorded rollout: instructions, calls paired by call_id, token usage records', async () => {
    const [task] = await loadSessionFile(CODEX);
    expect(task!.format).toBe('codex');
    expect(task!.provider).toBe('openai');
    // instructions, developer, environment, prompt, call, output, call, output, answer
    expect(roles(task!.contents)).toEqual([
      'user',
      'user',
      'user',
      'user',
      'model',
      'user',
      'model',
      'user',
      'model',
    ]);
    expect(task!.contents[0]!.parts![0]!.text).toContain('coding agent');
    expect(task!.contents[4]!.parts![0]!.functionCall).toEqual({
      id: 'call_0',
      name: 'exec_command',
      args: { cmd: 'seq 1 5' },
    });
    expect(task!.contents[5]!.parts![0]!.functionResponse).toMatchObject({
      id: 'call_0',
      name: 'exec_command',
    });
    expect(String(task!.contents[5]!.parts![0]!.functionResponse!.response!['output'])).toContain(
      'Output:\n1\n2\n3\n4\n5',
    );
    expect(task!.recordedUsage?.filter(Boolean)).toEqual([
      { promptTokens: 6_000, cachedTokens: 0 },
      { promptTokens: 6_300, cachedTokens: 6_050 },
      { promptTokens: 6_600, cachedTokens: 6_300 },
    ]);
  });

  it("keeps a tool search's output (its loaded tools, no text) as its call's empty result", async () => {
    const at = (type: string, payload: unknown) => ({
      timestamp: '2026-11-02T10:00:00Z',
      type,
      payload,
    });
    const file = await writeLines('rollout-search.jsonl', [
      at('session_meta', { id: 's' }),
      at('response_item', { type: 'message', role: 'user', content: 'deploy it' }),
      at('response_item', {
        type: 'tool_search_call',
        call_id: 'ts1',
        execution: 'client',
        arguments: { query: 'deploy' },
      }),
      at('response_item', {
        type: 'tool_search_output',
        call_id: 'ts1',
        execution: 'client',
        status: 'completed',
        tools: [{ type: 'function', name: 'deploy', parameters: {} }],
      }),
      at('response_item', { type: 'message', role: 'assistant', content: 'Deployed.' }),
    ]);
    const [task] = await loadSessionFile(file);
    expect(roles(task!.contents)).toEqual(['user', 'user', 'model']);
    expect(task!.contents[1]!.parts).toEqual([
      { functionResponse: { id: 'ts1', name: 'unknown', response: { output: '' } } },
    ]);
  });

  it('falls back on token_count events, reads custom tools, images and compaction', async () => {
    const at = (type: string, payload: unknown) => ({
      timestamp: '2026-11-02T10:00:00Z',
      type,
      payload,
    });
    const count = (input: number, cached: number) =>
      at('event_msg', {
        type: 'token_count',
        info: { last_token_usage: { input_tokens: input, cached_input_tokens: cached } },
      });
    const file = await writeLines('rollout-x.jsonl', [
      at('session_meta', { id: 'x', instructions: 'Be brief.' }),
      at('response_item', {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'fix it' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
        ],
      }),
      at('response_item', { type: 'reasoning', encrypted_content: 'opaque' }),
      at('response_item', {
        type: 'custom_tool_call',
        call_id: 'c1',
        name: 'apply_patch',
        input: '*** Begin Patch',
      }),
      count(50, 0),
      at('response_item', { type: 'custom_tool_call_output', call_id: 'c1', output: 'Done' }),
      count(50, 0),
      at('compacted', {
        message: 'summary',
        replacement_history: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'summary' }] },
        ],
      }),
      at('response_item', {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'ok' }],
      }),
      count(70, 60),
    ]);
    const [first, second] = await loadSessionFile(file);
    expect(first!.contents).toEqual([
      { role: 'user', parts: [{ text: 'Be brief.' }] },
      {
        role: 'user',
        parts: [{ text: 'fix it' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }],
      },
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'c1', name: 'apply_patch', args: { input: '*** Begin Patch' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'c1', name: 'apply_patch', response: { output: 'Done' } } },
        ],
      },
    ]);
    // The repeated event after the output is not a second answer's usage.
    expect(first!.recordedUsage).toEqual([
      undefined,
      undefined,
      { promptTokens: 50, cachedTokens: 0 },
      undefined,
    ]);
    expect(second!.contents.map((content) => content.parts![0]!.text)).toEqual([
      'Be brief.',
      'summary',
      'ok',
    ]);
    expect(second!.recordedUsage?.[2]).toEqual({ promptTokens: 70, cachedTokens: 60 });
  });
});

describe('OpenCode session exports', () => {
  it('reads `opencode export`: one answer per step, results after it, usage with cache reads', async () => {
    const [task] = await loadSessionFile(OPENCODE);
    expect(task!.format).toBe('opencode');
    expect(task!.provider).toBe('openai');
    expect(roles(task!.contents)).toEqual(['user', 'model', 'user', 'model', 'user', 'model']);
    expect(task!.contents[2]!.parts![0]!.functionResponse).toEqual({
      id: 'call_0',
      name: 'bash',
      response: { output: '1\n2\n3\n4\n5\n' },
    });
    expect(task!.recordedUsage?.filter(Boolean)).toEqual([
      { promptTokens: 2_444, cachedTokens: 0, cacheWriteTokens: 0 },
      { promptTokens: 2_505, cachedTokens: 2_444, cacheWriteTokens: 0 },
      { promptTokens: 2_565, cachedTokens: 2_505, cacheWriteTokens: 0 },
    ]);
  });
});

describe('telling the formats apart', () => {
  it('names the file and what was expected when a JSON Lines file is none of them', async () => {
    const file = await writeLines('events.jsonl', [{ level: 'info', msg: 'started' }]);
    const error = await loadSessionFile(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toBe(
      `${file}: not a session: expected a Claude Code transcript, a Codex session file, a qwen-code or gemini-cli chat recording (JSON Lines)`,
    );
    expect((error as InputError).kind).toBe('not-a-session');
  });

  it('reads by content, whatever the name', async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-agent-sessions-'));
    scratch.push(folder);
    const renamed = path.join(folder, 'notes.json');
    await fs.copyFile(CLAUDE, renamed);
    expect((await loadSessionFile(renamed))[0]!.format).toBe('claude-code');
  });

  it('rejects a damaged line in the middle, skips a torn last line with a warning', async () => {
    const good = { type: 'user', sessionId: 's', message: { role: 'user', content: 'hi' } };
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-agent-sessions-'));
    scratch.push(folder);
    const torn = path.join(folder, 'torn.jsonl');
    await fs.writeFile(torn, `${JSON.stringify(good)}\n{"type":"assis`);
    expect((await loadSessionFile(torn))[0]!.warnings).toEqual([
      'line 2 is cut off and was skipped',
    ]);
    const damaged = path.join(folder, 'damaged.jsonl');
    await fs.writeFile(damaged, `${JSON.stringify(good)}\n{oops\n${JSON.stringify(good)}\n`);
    await expect(loadSessionFile(damaged)).rejects.toThrow(`${damaged}: line 2 is not valid JSON`);
  });
});
