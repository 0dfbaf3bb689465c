/**
 * The Messages codec on its own: a body as Claude Code 2.1.328 shapes it read to Contents and
 * written back, byte for byte where nothing is masked; tool results masked as strings and as
 * block lists; every other block and key kept; no cache breakpoint ever added.
 */
import { describe, expect, it } from 'vitest';
import type { Content } from '@toolmask/core';
import { decodeBody, decodeWhole } from '../../body/decode-body.js';
import { headBytes } from '../../body/element-reading.js';
import { IncrementalBody } from '../../body/incremental-body.js';
import { ANTHROPIC_MESSAGES_PROTOCOL } from './index.js';
import { CLAUDE_READ_TOOL_NAME } from './codec.js';
import { sessionOfUserId } from './session.js';

const codec = ANTHROPIC_MESSAGES_PROTOCOL.codec;
const SNIPPET = '<tool_output_masked lines="3">short</tool_output_masked>';
const EPHEMERAL = { type: 'ephemeral' };
const IMAGE = {
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
};

type Message = Record<string, unknown>;

/** A conversation as Claude Code sends it: reminders, a system entry, calls, results of each shape. */
function messages(): Message[] {
  return [
    {
      role: 'user',
      content: [
        { type: 'text', text: '<system-reminder>\nreminder\n</system-reminder>\n' },
        { type: 'text', text: 'build it' },
      ],
    },
    { role: 'system', content: '# Environment\nPrimary working directory: /w' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: '', signature: 'sig==' },
        { type: 'text', text: 'Running two commands.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'seq 1 3' } },
        { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: '/w/a.png' } },
      ],
    },
    {
      role: 'user',
      content: [
        { tool_use_id: 'toolu_1', type: 'tool_result', content: '1\n2\n3', is_error: false },
        {
          type: 'tool_result',
          tool_use_id: 'toolu_2',
          content: [
            { type: 'text', text: 'first chunk' },
            IMAGE,
            { type: 'text', text: 'second chunk', cache_control: EPHEMERAL },
          ],
        },
        { type: 'text', text: '<system-reminder>todo list</system-reminder>' },
      ],
    },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_3', name: 'Bash', input: { command: 'false' } }],
    },
    {
      role: 'user',
      content: [
        {
          tool_use_id: 'toolu_3',
          type: 'tool_result',
          content: 'Exit code 1',
          is_error: true,
          cache_control: EPHEMERAL,
        },
      ],
    },
  ];
}

function body(list: Message[] = messages()): Record<string, unknown> {
  return {
    model: 'claude-opus-5-5',
    messages: list,
    system: [
      { type: 'text', text: 'You are Claude Code.' },
      { type: 'text', text: 'Rules.', cache_control: EPHEMERAL },
    ],
    tools: [{ name: 'Bash', description: 'run', input_schema: { type: 'object' } }],
    metadata: {
      user_id: JSON.stringify({ device_id: 'd', account_uuid: '', session_id: 'session-1' }),
    },
    max_tokens: 32000,
    thinking: { type: 'adaptive' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    stream: true,
  };
}

/** `contents` with the output of tool call `id` replaced by the snippet (as the pass does it). */
function masked(contents: readonly Content[], id: string): { sent: Content[]; changed: number[] } {
  const changed: number[] = [];
  const sent = contents.map((content, index) => {
    if (!content.parts?.some((part) => part.functionResponse?.id === id)) return content;
    changed.push(index);
    return {
      ...content,
      parts: content.parts.map((part) =>
        part.functionResponse?.id === id
          ? { functionResponse: { ...part.functionResponse, response: { output: SNIPPET } } }
          : part,
      ),
    };
  });
  return { sent, changed };
}

const breakpoints = (text: string) => text.split('"cache_control"').length - 1;

async function decodeBoth(raw: Buffer) {
  const incremental = await decodeBody(new IncrementalBody(codec), raw, '');
  const whole = await decodeWhole(codec, raw, '');
  if (incremental.kind !== 'conversation' || whole.kind !== 'conversation') {
    throw new Error('not a conversation');
  }
  return { incremental, whole };
}

describe('the Anthropic Messages codec', () => {
  it('reads each message as one Content: results named by their tool_use, system entries kept apart', async () => {
    const { incremental, whole } = await decodeBoth(Buffer.from(JSON.stringify(body())));
    expect(incremental.contents).toEqual(whole.contents);
    const contents = whole.contents;
    expect(contents.map((content) => content.role)).toEqual([
      'user',
      'system',
      'model',
      'user',
      'model',
      'user',
    ]);
    expect(contents[2]!.parts).toEqual([
      { text: 'Running two commands.' },
      // The calls' inputs are their arguments (core's superseded outputs read them).
      { functionCall: { id: 'toolu_1', name: 'Bash', args: { command: 'seq 1 3' } } },
      { functionCall: { id: 'toolu_2', name: 'Read', args: { file_path: '/w/a.png' } } },
    ]);
    expect(contents[3]!.parts).toEqual([
      { functionResponse: { id: 'toolu_1', name: 'Bash', response: { output: '1\n2\n3' } } },
      {
        functionResponse: {
          id: 'toolu_2',
          name: 'Read',
          response: { output: 'first chunk\nsecond chunk' },
        },
      },
      { text: '<system-reminder>todo list</system-reminder>' },
    ]);
    expect(whole.unmaskable).toBe(0);
    expect(whole.description).toEqual({
      model: 'claude-opus-5-5',
      readToolName: CLAUDE_READ_TOOL_NAME,
    });
  });

  it('writes a body whose outputs were not masked back byte for byte', async () => {
    // Key order and spacing of the client's own (not what JSON.stringify of the codec would make).
    const raw = Buffer.from(JSON.stringify(body(), null, 1));
    const { incremental, whole } = await decodeBoth(raw);
    expect(await incremental.write(incremental.contents, [])).toBe(raw);
    expect(await whole.write(whole.contents, [])).toBe(raw);
  });

  it('masks a string result and a block-list result, keeping every other block and key', async () => {
    const raw = Buffer.from(JSON.stringify(body()));
    for (const read of ['incremental', 'whole'] as const) {
      const decoded = (await decodeBoth(raw))[read];
      // Both results are in one message: one changed entry.
      const first = masked(decoded.contents, 'toolu_1');
      const { sent, changed } = masked(first.sent, 'toolu_2');
      expect(changed).toEqual(first.changed);
      const written = (await decoded.write(sent, changed)).toString();
      const out = JSON.parse(written) as { messages: Message[] };
      const original = messages();
      // Only the masked results' content differs.
      expect(out.messages[3]).toEqual({
        role: 'user',
        content: [
          { tool_use_id: 'toolu_1', type: 'tool_result', content: SNIPPET, is_error: false },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            // The snippet in the first text block's place, the image kept, the dropped block's
            // breakpoint on the snippet's block.
            content: [{ type: 'text', text: SNIPPET, cache_control: EPHEMERAL }, IMAGE],
          },
          { type: 'text', text: '<system-reminder>todo list</system-reminder>' },
        ],
      });
      for (const index of [0, 1, 2, 4, 5]) expect(out.messages[index]).toEqual(original[index]);
      // Everything outside `messages` is the client's bytes, and so are the messages not masked.
      const before = raw.toString();
      const messagesAt = before.indexOf('"messages":[');
      expect(written.slice(0, messagesAt)).toBe(before.slice(0, messagesAt));
      expect(written.slice(written.indexOf('],"system":'))).toBe(
        before.slice(before.indexOf('],"system":')),
      );
      expect(written).toContain(JSON.stringify(original[2]));
      expect(written).toContain(JSON.stringify(original[5]));
      // A breakpoint moved within its result, none added.
      expect(breakpoints(written)).toBe(breakpoints(before));
    }
  });

  it('masks an error result (is_error kept) and the newest one with its breakpoint', async () => {
    const { whole } = await decodeBoth(Buffer.from(JSON.stringify(body())));
    const { sent, changed } = masked(whole.contents, 'toolu_3');
    const out = JSON.parse((await whole.write(sent, changed)).toString()) as {
      messages: Message[];
    };
    expect(out.messages[5]).toEqual({
      role: 'user',
      content: [
        {
          tool_use_id: 'toolu_3',
          type: 'tool_result',
          content: SNIPPET,
          is_error: true,
          cache_control: EPHEMERAL,
        },
      ],
    });
  });

  it('leaves results it cannot read as they came, counted once', async () => {
    const list = messages();
    list.push(
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_never_called', content: 'x'.repeat(100) },
          { type: 'tool_result', tool_use_id: 'toolu_3', content: { unexpected: true } },
        ],
      },
      {
        role: 'user',
        content: [
          // Claude Code's ToolSearch answer, and an image-only result: nothing to mask, no failure.
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [{ type: 'tool_reference', tool_name: 'x' }],
          },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: [IMAGE] },
        ],
      },
    );
    const { whole, incremental } = await decodeBoth(Buffer.from(JSON.stringify(body(list))));
    expect(whole.unmaskable).toBe(2);
    expect(incremental.unmaskable).toBe(2);
    // No part for what is left alone: a tool result is no person's prompt.
    expect(whole.contents[6]!.parts).toEqual([]);
    expect(whole.contents[7]!.parts).toEqual([
      { functionResponse: { id: 'toolu_1', name: 'Bash', response: { output: '' } } },
      { functionResponse: { id: 'toolu_2', name: 'Read', response: { output: '' } } },
    ]);
  });

  it('names the read-back tool as the request declares it, else as Claude Code names MCP tools', () => {
    expect(
      codec.describe({ model: 'm', tools: [{ name: 'mcp__tm__read_tool_output' }] }, ''),
    ).toEqual({
      model: 'm',
      readToolName: 'mcp__tm__read_tool_output',
    });
    expect(codec.describe({ tools: [{ name: 'Bash' }] }, 'route').readToolName).toBe(
      'mcp__toolmask__read_tool_output',
    );
  });

  it('keys a conversation by its session and its first message', async () => {
    const raw = Buffer.from(JSON.stringify(body()));
    expect(await codec.session!(raw)).toBe('session-1');
    expect((await headBytes(codec, raw))!.toString()).toBe(JSON.stringify(messages()[0]));
    expect(sessionOfUserId('user_abc_account_x_session_1b2c-3d')).toBe('1b2c-3d');
    expect(sessionOfUserId('end-user-42')).toBe('end-user-42');
    expect(sessionOfUserId('{"device_id":"d"}')).toBe('{"device_id":"d"}');
    expect(sessionOfUserId('')).toBeUndefined();
  });
});

describe('the Anthropic usage report and error body', () => {
  const { usage, errorBody } = ANTHROPIC_MESSAGES_PROTOCOL;

  it('reads the prompt from message_start and the output from message_delta', () => {
    expect(
      usage({
        type: 'message_start',
        message: {
          usage: {
            input_tokens: 10,
            cache_read_input_tokens: 5_000,
            cache_creation_input_tokens: 300,
            output_tokens: 1,
          },
        },
      }),
    ).toEqual({ promptTokens: 5_310, cachedTokens: 5_000, cacheWriteTokens: 300, outputTokens: 1 });
    expect(usage({ type: 'message_delta', usage: { output_tokens: 42 } })).toEqual({
      outputTokens: 42,
    });
    // A delta whose cache parts are null says nothing new of them: it must not wipe the start's.
    expect(
      usage({
        type: 'message_delta',
        usage: {
          input_tokens: 10,
          cache_read_input_tokens: null,
          cache_creation_input_tokens: null,
          output_tokens: 42,
        },
      }),
    ).toEqual({ outputTokens: 42 });
    expect(
      usage({
        type: 'message_delta',
        usage: {
          input_tokens: 10,
          cache_read_input_tokens: 5_000,
          cache_creation_input_tokens: 0,
          output_tokens: 42,
        },
      }),
    ).toEqual({ promptTokens: 5_010, cachedTokens: 5_000, cacheWriteTokens: 0, outputTokens: 42 });
    expect(
      usage({
        type: 'message',
        usage: { input_tokens: 7, cache_read_input_tokens: null, output_tokens: 3 },
      }),
    ).toEqual({ promptTokens: 7, cachedTokens: 0, cacheWriteTokens: 0, outputTokens: 3 });
    expect(
      usage({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'x' } }),
    ).toBeUndefined();
  });

  it("answers in Anthropic's error style, the type following the status", () => {
    expect(JSON.parse(errorBody(503, 'BUSY', 'busy'))).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'toolmask gateway: busy', code: 'BUSY' },
    });
    expect(JSON.parse(errorBody(413, 'BODY_TOO_LARGE', 'big')).error.type).toBe(
      'request_too_large',
    );
    expect(JSON.parse(errorBody(400, 'MALFORMED_JSON', 'bad')).error.type).toBe(
      'invalid_request_error',
    );
    expect(JSON.parse(errorBody(502, 'UPSTREAM_UNREACHABLE', 'gone')).error.type).toBe('api_error');
  });
});
