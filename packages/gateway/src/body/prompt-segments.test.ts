/**
 * The net figures' segments as the incremental reader measures them (each element once, from the
 * value it parsed) against the whole parse of each body (usage/prompt-shape.ts), request after
 * request of a conversation in each front's shape: appended turns, an element changed in the
 * middle, a rewind, a changed outside, masked outputs written and written again, pretty-printed
 * and escaped JSON. Any difference would move the net figures.
 */
import { describe, expect, it } from 'vitest';
import type { Content, Part } from '@toolmask/core';
import { ANTHROPIC_MESSAGES_PROTOCOL } from '../protocols/anthropic-messages/index.js';
import { CODE_ASSIST_PROTOCOL, GEMINI_API_PROTOCOL } from '../protocols/gemini/index.js';
import { OPENAI_CHAT_PROTOCOL } from '../protocols/openai-chat/index.js';
import { OPENAI_RESPONSES_PROTOCOL } from '../protocols/openai-responses/index.js';
import type { Protocol } from '../protocols/protocol.js';
import { promptShape } from '../usage/prompt-shape.js';
import { IncrementalBody } from './incremental-body.js';
import { segmentOf, withoutCacheMarkers } from './prompt-segments.js';

/** An output's text with what JSON writes in more than one way: escapes, non-ASCII, a slash. */
const text = (id: string, size: number) =>
  `out ${id} é \u2028 😀 "q" \\ / tab\t` + 'x'.repeat(size);

/** Each front's turns: a call and its output (`id`), and the body around the array. */
interface Front {
  protocol: Protocol;
  turn(id: string, size: number): unknown[];
  body(array: unknown[], extra: string): Record<string, unknown>;
}

const FRONTS: Record<string, Front> = {
  gemini: {
    protocol: GEMINI_API_PROTOCOL,
    turn: (id, size) => [
      {
        role: 'model',
        parts: [{ functionCall: { id, name: 'run_shell_command', args: { n: 1.5e3 } } }],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id,
              name: 'run_shell_command',
              response: { output: text(id, size) },
            },
          },
        ],
      },
    ],
    body: (contents, extra) => ({
      contents,
      generationConfig: { temperature: 1.0 },
      tools: [],
      extra,
    }),
  },
  'code-assist': {
    protocol: CODE_ASSIST_PROTOCOL,
    turn: (id, size) => FRONTS['gemini']!.turn(id, size),
    body: (contents, extra) => ({
      model: 'gemini-2.5-pro',
      user_prompt_id: `s########${extra}`,
      request: { contents, systemInstruction: { parts: [{ text: 'be brief' }] } },
    }),
  },
  anthropic: {
    protocol: ANTHROPIC_MESSAGES_PROTOCOL,
    turn: (id, size) => [
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: text(id, size) }],
      },
    ],
    body: (messages, extra) => ({
      model: 'claude-sonnet-4-5',
      system: [{ type: 'text', text: `system ${extra}` }],
      tools: [{ name: 'Bash', input_schema: { type: 'object' } }],
      messages,
      max_tokens: 32000,
    }),
  },
  'openai-chat': {
    protocol: OPENAI_CHAT_PROTOCOL,
    turn: (id, size) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: '{"c":"ls"}' } }],
      },
      { role: 'tool', tool_call_id: id, content: text(id, size) },
    ],
    body: (messages, extra) => ({ model: 'gpt-4.1', messages, tools: [], user: extra }),
  },
  'openai-responses': {
    protocol: OPENAI_RESPONSES_PROTOCOL,
    turn: (id, size) => [
      { type: 'function_call', call_id: id, name: 'shell', arguments: '{"command":["ls"]}' },
      { type: 'function_call_output', call_id: id, output: text(id, size) },
    ],
    body: (input, extra) => ({
      model: 'gpt-5-codex',
      instructions: 'be brief',
      input,
      tools: [],
      prompt_cache_key: 'k',
      client_metadata: { turn: extra },
    }),
  },
};

const opening = (front: string): unknown =>
  front.startsWith('openai') || front === 'anthropic'
    ? { role: 'user', content: 'go' }
    : { role: 'user', parts: [{ text: 'go' }] };

/** Every tool output's response replaced (as a masking pass would), the rest the same objects. */
function masked(contents: readonly Content[], from: number): Content[] {
  return contents.map((content, index) => {
    const parts = content.parts ?? [];
    const outputs = parts.filter((part) => part.functionResponse);
    // One masked before is handed out as written: it goes out as those bytes again.
    const before = outputs.some((part) => JSON.stringify(part).includes('masked'));
    if (index < from || outputs.length === 0 || before) return content;
    return {
      ...content,
      parts: parts.map((part): Part =>
        part.functionResponse
          ? {
              functionResponse: {
                ...part.functionResponse,
                response: { output: `masked ${index}` },
              },
            }
          : part,
      ),
    };
  });
}

/** One request: the reader's segments against each body parsed whole. */
async function compare(
  reader: IncrementalBody,
  protocol: Protocol,
  raw: Buffer,
  maskFrom: number,
): Promise<boolean> {
  const read = await reader.read(raw, 'm');
  expect(read).toBeDefined();
  const sent = await read!.write(masked(read!.contents, maskFrom));
  const { arrayPath } = protocol.codec;
  expect(read!.segments()).toEqual({
    unmasked: promptShape(raw, arrayPath),
    sent: promptShape(sent, arrayPath),
  });
  return !sent.equals(raw);
}

describe('the reader’s prompt segments', () => {
  it.each(Object.keys(FRONTS))(
    'are the whole parse’s, request after request (%s)',
    async (name) => {
      const front = FRONTS[name]!;
      const reader = new IncrementalBody(front.protocol.codec);
      const history: unknown[] = [opening(name)];
      const send = (extra: string, maskFrom: number, indent?: number) =>
        compare(
          reader,
          front.protocol,
          Buffer.from(JSON.stringify(front.body(history, extra), null, indent)),
          maskFrom,
        );
      for (let step = 0; step < 4; step++) {
        history.push(...front.turn(`c${step}`, 200 * step));
        // Outputs masked from the second request on, the same ones written again after.
        expect(await send('a', step === 0 ? Infinity : 1)).toBe(step > 0);
      }
      // The outside changed (a per-request value).
      history.push(...front.turn('c4', 10));
      await send('b', 1);
      // An element changed in the middle: read again from there.
      history[2] = front.turn('edited', 30)[1];
      await send('b', 3);
      // A rewind: fewer elements than last time.
      history.length = 3;
      await send('b', Infinity);
      // Pretty-printed: the bytes are not the compact JSON the figures count.
      history.push(...front.turn('c5', 50));
      await send('b', 1, 2);
      await send('b', 1, 2);
    },
  );

  it('are left to the whole parse when the array’s key is there twice (JSON.parse keeps the last)', async () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const contents = JSON.stringify([{ role: 'user', parts: [{ text: 'go' }] }]);
    const raw = Buffer.from(`{"contents":${contents},"contents":[]}`);
    const read = await reader.read(raw, 'm');
    await read?.write(read.contents);
    expect(read?.segments()).toBeUndefined();
  });

  it('digest the compact JSON as the whole parse does', () => {
    expect(promptShape('{"contents":[ {"a" : 1.0} ]}', ['contents'])).toEqual({
      digests: [segmentOf('{"contents":[]}').digest, segmentOf('{"a":1}').digest],
      chars: [15, 7],
    });
  });

  it('digest an element without its cache markers, which clients move every request', () => {
    const block = (marker: string) =>
      `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"${marker},"content":"x"}]}`;
    const marked = block(',"cache_control":{"type":"ephemeral"}');
    expect(segmentOf(marked).digest).toBe(segmentOf(block('')).digest);
    expect(segmentOf(marked).chars).toBe(marked.length);
    expect(segmentOf('{"cache_control":{"type":"ephemeral","ttl":"1h"},"a":1}').digest).toBe(
      segmentOf('{"a":1}').digest,
    );
    expect(segmentOf('[{"cache_control":{"type":"ephemeral"}}]').digest).toBe(
      segmentOf('[{}]').digest,
    );
    // The same words inside a string are the prompt's.
    const quoted = JSON.stringify({ text: ',"cache_control":{"type":"ephemeral"}' });
    expect(segmentOf(quoted).digest).not.toBe(segmentOf('{"text":""}').digest);
    expect(withoutCacheMarkers(quoted)).toBe(quoted);
  });
});
