/**
 * The Responses codec on its own: a body as Codex 0.169.0 shapes it read to Contents and written
 * back, byte for byte where nothing is masked; outputs masked as strings and as content lists;
 * reasoning items with `encrypted_content`, call ids, order and every key outside `input` kept.
 */
import { describe, expect, it } from 'vitest';
import type { Content } from '@toolmask/core';
import { decodeBody, decodeWhole } from '../../body/decode-body.js';
import { headBytes } from '../../body/element-reading.js';
import { IncrementalBody } from '../../body/incremental-body.js';
import { CODEX_READ_TOOL_NAME } from './codec.js';
import { OPENAI_RESPONSES_PROTOCOL } from './index.js';

const codec = OPENAI_RESPONSES_PROTOCOL.codec;
const SNIPPET = '<tool_output_masked lines="3">short</tool_output_masked>';
const IMAGE = { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' };
const REASONING = {
  type: 'reasoning',
  id: 'rs_1',
  summary: [{ type: 'summary_text', text: 'Thinking about it.' }],
  content: null,
  encrypted_content: 'gAAAAABo-opaque==',
};

type Item = Record<string, unknown>;

/** A conversation as Codex sends it: instructions, calls and outputs of each kind, reasoning. */
function input(): Item[] {
  return [
    {
      type: 'message',
      id: 'msg_base',
      role: 'developer',
      content: [{ type: 'input_text', text: 'You are a coding agent running in the Codex CLI.' }],
    },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'build it' }] },
    REASONING,
    {
      type: 'function_call',
      id: 'fc_1',
      name: 'exec_command',
      arguments: '{"cmd":"seq 1 3"}',
      call_id: 'call_1',
    },
    {
      type: 'function_call_output',
      id: 'fco_1',
      call_id: 'call_1',
      output: 'Chunk ID: ab12\nProcess exited with code 0\nOutput:\n1\n2\n3\n',
    },
    {
      type: 'function_call',
      id: 'fc_2',
      name: 'read_tool_output',
      namespace: 'mcp__toolmask',
      arguments: '{"file":"f"}',
      call_id: 'call_2',
    },
    {
      type: 'function_call_output',
      call_id: 'call_2',
      output: [
        { type: 'input_text', text: 'Wall time: 0.01 seconds\nOutput:' },
        IMAGE,
        { type: 'input_text', text: 'the lines' },
      ],
    },
    {
      type: 'custom_tool_call',
      id: 'ctc_3',
      status: 'completed',
      call_id: 'call_3',
      name: 'apply_patch',
      input: '*** Begin Patch',
    },
    { type: 'custom_tool_call_output', call_id: 'call_3', output: 'Success. Updated 1 file.' },
    {
      type: 'local_shell_call',
      id: 'lsh_4',
      call_id: 'call_4',
      status: 'completed',
      action: { type: 'exec', command: ['ls'] },
    },
    { type: 'local_shell_call_output', id: 'call_4', output: 'a\nb' },
    {
      type: 'shell_call',
      call_id: 'call_5',
      action: { commands: ['make'] },
      status: 'completed',
    },
    {
      type: 'shell_call_output',
      call_id: 'call_5',
      output: [
        { stdout: 'built', stderr: 'warning', outcome: { type: 'exit', exit_code: 0 } },
        { stdout: 'more', stderr: '', outcome: { type: 'exit', exit_code: 2 } },
      ],
      max_output_length: 10000,
    },
    {
      type: 'message',
      role: 'assistant',
      id: 'msg_2',
      content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
    },
  ];
}

function body(list: Item[] = input()): Record<string, unknown> {
  return {
    model: 'gpt-5-codex',
    instructions: '',
    input: list,
    tools: [
      { type: 'function', name: 'exec_command', parameters: { type: 'object' } },
      {
        type: 'namespace',
        name: 'mcp__toolmask',
        tools: [{ type: 'function', name: 'read_tool_output', parameters: { type: 'object' } }],
      },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { summary: 'auto' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: 'session-1',
    client_metadata: { session_id: 'session-1', 'x-codex-window-id': 'session-1:0' },
  };
}

/** `contents` with the output of call `id` replaced by the snippet (as the pass does it). */
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

async function decodeBoth(raw: Buffer) {
  const incremental = await decodeBody(new IncrementalBody(codec), raw, '');
  const whole = await decodeWhole(codec, raw, '');
  if (incremental.kind !== 'conversation' || whole.kind !== 'conversation') {
    throw new Error('not a conversation');
  }
  return { incremental, whole };
}

const output = (id: string, name: string, text: string) => ({
  functionResponse: { id, name, response: { output: text } },
});

describe('the OpenAI Responses codec', () => {
  it('reads each item as one Content: outputs named by their calls, reasoning without parts', async () => {
    const { incremental, whole } = await decodeBoth(Buffer.from(JSON.stringify(body())));
    expect(incremental.contents).toEqual(whole.contents);
    const contents = whole.contents;
    expect(contents.map((content) => content.role)).toEqual([
      'system',
      'user',
      'model',
      'model',
      'user',
      'model',
      'user',
      'model',
      'user',
      'model',
      'user',
      'model',
      'user',
      'model',
    ]);
    expect(contents[1]!.parts).toEqual([{ text: 'build it' }]);
    expect(contents[2]!.parts).toEqual([]);
    expect(contents[3]!.parts).toEqual([
      // The call's `arguments`, parsed (core's superseded outputs read them).
      { functionCall: { id: 'call_1', name: 'exec_command', args: { cmd: 'seq 1 3' } } },
    ]);
    expect(contents.flatMap((content) => content.parts!.filter((p) => p.functionResponse))).toEqual(
      [
        output(
          'call_1',
          'exec_command',
          'Chunk ID: ab12\nProcess exited with code 0\nOutput:\n1\n2\n3\n',
        ),
        output('call_2', CODEX_READ_TOOL_NAME, 'Wall time: 0.01 seconds\nOutput:\nthe lines'),
        output('call_3', 'apply_patch', 'Success. Updated 1 file.'),
        output('call_4', 'local_shell', 'a\nb'),
        output('call_5', 'shell', 'built\nwarning\nmore'),
      ],
    );
    expect(contents[13]!.parts).toEqual([{ text: 'Done.' }]);
    expect(whole.unmaskable).toBe(0);
    expect(whole.description).toEqual({ model: 'gpt-5-codex', readToolName: CODEX_READ_TOOL_NAME });
  });

  it('writes a body whose outputs were not masked back byte for byte', async () => {
    // Key order and spacing of the client's own (not what JSON.stringify of the codec would make).
    for (const raw of [
      Buffer.from(JSON.stringify(body(), null, 1)),
      Buffer.from(JSON.stringify(body())),
    ]) {
      const { incremental, whole } = await decodeBoth(raw);
      expect(await incremental.write(incremental.contents, [])).toBe(raw);
      expect(await whole.write(whole.contents, [])).toBe(raw);
    }
  });

  it('masks a string output and a content list, keeping every other item, key and byte', async () => {
    const raw = Buffer.from(JSON.stringify(body()));
    for (const read of ['incremental', 'whole'] as const) {
      const decoded = (await decodeBoth(raw))[read];
      const first = masked(decoded.contents, 'call_1');
      const second = masked(first.sent, 'call_2');
      const changed = [...first.changed, ...second.changed];
      expect(changed).toEqual([4, 6]);
      const written = (await decoded.write(second.sent, changed)).toString();
      const out = JSON.parse(written) as { input: Item[] };
      const original = input();
      expect(out.input[4]).toEqual({ ...original[4], output: SNIPPET });
      // The snippet in the first text item's place, the image kept, the other text item gone.
      expect(out.input[6]).toEqual({
        type: 'function_call_output',
        call_id: 'call_2',
        output: [{ type: 'input_text', text: SNIPPET }, IMAGE],
      });
      // Every other item is the client's bytes, in order; so is everything around `input`.
      for (const [index, item] of original.entries()) {
        if (index !== 4 && index !== 6) expect(written).toContain(JSON.stringify(item));
      }
      expect(out.input.map((item) => item['call_id'] ?? item['id'] ?? item['role'])).toEqual(
        original.map((item) => item['call_id'] ?? item['id'] ?? item['role']),
      );
      const before = raw.toString();
      const inputAt = before.indexOf('"input":[');
      expect(written.slice(0, inputAt)).toBe(before.slice(0, inputAt));
      expect(written.slice(written.indexOf('],"tools":'))).toBe(
        before.slice(before.indexOf('],"tools":')),
      );
      expect(written).toContain(JSON.stringify(REASONING));
      expect(written).toContain('"prompt_cache_key":"session-1"');
    }
  });

  it('masks custom, local shell and shell outputs in their own shapes', async () => {
    const { whole } = await decodeBoth(Buffer.from(JSON.stringify(body())));
    let sent = whole.contents;
    const changed: number[] = [];
    for (const id of ['call_3', 'call_4', 'call_5']) {
      const step = masked(sent, id);
      sent = step.sent;
      changed.push(...step.changed);
    }
    const out = JSON.parse((await whole.write(sent, changed)).toString()) as { input: Item[] };
    const original = input();
    expect(out.input[8]).toEqual({ ...original[8], output: SNIPPET });
    expect(out.input[10]).toEqual({ ...original[10], output: SNIPPET });
    expect(out.input[12]).toEqual({
      ...original[12],
      output: [{ stdout: SNIPPET, stderr: '', outcome: { type: 'exit', exit_code: 2 } }],
    });
  });

  it('leaves outputs it cannot read as they came, counted once', async () => {
    const list = input();
    list.push(
      { type: 'function_call_output', call_id: 'call_never_made', output: 'x'.repeat(100) },
      { type: 'function_call_output', call_id: 'call_1', output: { unexpected: true } },
      // An image-only output: nothing to mask, no failure.
      { type: 'function_call_output', call_id: 'call_2', output: [IMAGE] },
      { type: 'item_reference', id: 'rs_0' },
    );
    const { whole, incremental } = await decodeBoth(Buffer.from(JSON.stringify(body(list))));
    expect(whole.unmaskable).toBe(2);
    expect(incremental.unmaskable).toBe(2);
    expect(whole.contents[14]).toEqual({ role: 'user', parts: [] });
    expect(whole.contents[15]).toEqual({ role: 'user', parts: [] });
    expect(whole.contents[16]!.parts).toEqual([output('call_2', CODEX_READ_TOOL_NAME, '')]);
    expect(whole.contents[17]).toEqual({ role: 'model', parts: [] });
  });

  it('forwards a body whose input is a string as it came', async () => {
    const raw = Buffer.from(JSON.stringify({ model: 'm', input: 'hello', prompt_cache_key: 'k' }));
    expect((await decodeWhole(codec, raw, '')).kind).toBe('no-conversation');
    expect(await headBytes(codec, raw)).toBeUndefined();
  });

  it('names the read-back tool as the request declares it, else as Codex names MCP tools', () => {
    expect(
      codec.describe(
        { model: 'm', tools: [{ type: 'function', name: 'tm_read_tool_output' }] },
        '',
      ),
    ).toEqual({ model: 'm', readToolName: 'tm_read_tool_output' });
    expect(
      codec.describe(
        { tools: [{ type: 'namespace', name: 'mcp__gw', tools: [{ name: 'read_tool_output' }] }] },
        '',
      ).readToolName,
    ).toBe('mcp__gw__read_tool_output');
    expect(
      codec.describe({ tools: [{ type: 'function', name: 'exec_command' }] }, 'route'),
    ).toEqual({
      model: 'route',
      readToolName: 'mcp__toolmask__read_tool_output',
    });
  });

  it('keys a conversation by its prompt_cache_key and its first item', async () => {
    const raw = Buffer.from(JSON.stringify(body()));
    expect(await codec.session!(raw)).toBe('session-1');
    expect(await codec.session!(Buffer.from('{"input":[]}'))).toBeUndefined();
    expect((await headBytes(codec, raw))!.toString()).toBe(JSON.stringify(input()[0]));
    expect(OPENAI_RESPONSES_PROTOCOL.sessionHeader).toBe('session-id');
  });
});

describe('the Responses usage report and error body', () => {
  const { usage, errorBody } = OPENAI_RESPONSES_PROTOCOL;
  const figures = {
    input_tokens: 5_000,
    input_tokens_details: { cached_tokens: 4_000 },
    output_tokens: 42,
    output_tokens_details: { reasoning_tokens: 30 },
    total_tokens: 5_042,
  };

  it('reads response.completed, and an answer that is not streamed', () => {
    const report = { promptTokens: 5_000, cachedTokens: 4_000, outputTokens: 42 };
    expect(usage({ type: 'response.completed', response: { id: 'r', usage: figures } })).toEqual(
      report,
    );
    expect(usage({ type: 'response.incomplete', response: { usage: figures } })).toEqual(report);
    expect(usage({ id: 'r', object: 'response', usage: figures })).toEqual(report);
    // No cached count said: unknown, not 0.
    expect(usage({ object: 'response', usage: { input_tokens: 9, output_tokens: 1 } })).toEqual({
      promptTokens: 9,
      outputTokens: 1,
    });
    expect(usage({ type: 'response.created', response: { usage: null } })).toBeUndefined();
    expect(usage({ type: 'response.output_text.delta', delta: 'x' })).toBeUndefined();
  });

  it("answers in OpenAI's error style", () => {
    expect(JSON.parse(errorBody(400, 'MALFORMED_JSON', 'bad'))).toEqual({
      error: {
        message: 'toolmask gateway: bad',
        type: 'toolmask_gateway_error',
        code: 'MALFORMED_JSON',
        status: 400,
      },
    });
  });
});
