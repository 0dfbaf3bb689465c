import { describe, expect, it } from 'vitest';
import type { Content } from '@toolmask/core';
import { GEMINI_API_PROTOCOL } from '../protocols/gemini/index.js';
import { OPENAI_CHAT_PROTOCOL } from '../protocols/openai-chat/index.js';
import { IncrementalBody } from './incremental-body.js';

const output = (id: string) => ({
  role: 'user',
  parts: [
    { functionResponse: { id, name: 'run_shell_command', response: { output: `out ${id} 😀` } } },
  ],
});
const call = (id: string) => ({
  role: 'model',
  parts: [{ functionCall: { id, name: 'run_shell_command', args: {} } }],
});

function body(contents: unknown[]): Buffer {
  return Buffer.from(JSON.stringify({ contents, generationConfig: { temperature: 1 }, tools: [] }));
}

describe('IncrementalBody', () => {
  it('decodes only what is new, and the unchanged entries are the very same objects', () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const first = [{ role: 'user', parts: [{ text: 'go' }] }, call('a'), output('a')];
    const one = reader.read(body(first), 'm')!;
    expect(one.decoded).toBe(3);
    expect(one.contents).toEqual(first);
    const two = reader.read(body([...first, call('b'), output('b')]), 'm')!;
    expect(two.decoded).toBe(2);
    one.contents.forEach((content, index) => expect(two.contents[index]).toBe(content));
    // An entry changed in the middle: decoded again from there.
    const edited = [
      first[0],
      call('a'),
      { ...output('a'), role: 'user', parts: [{ text: 'edited' }] },
      call('b'),
    ];
    const three = reader.read(body(edited), 'm')!;
    expect(three.decoded).toBe(2);
    expect(three.contents).toEqual(edited);
  });

  it('notices a changed byte inside an entry it decoded before, at the same length', () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const first = [{ role: 'user', parts: [{ text: 'go' }] }, call('a'), output('a'), call('b')];
    reader.read(body(first), 'm');
    const changed = body(first);
    const at = changed.indexOf('out a');
    changed.write('OUT', at);
    const again = reader.read(changed, 'm')!;
    // Entries 0 and 1 are kept; entry 2 (the changed output) and what follows are decoded again.
    expect(again.decoded).toBe(2);
    expect(JSON.stringify(again.contents[2])).toContain('OUT a');
    expect(again.write(again.contents).equals(changed)).toBe(true);
  });

  it('writes back the bytes it was given, changing only the replaced entries', () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const contents = [
      { role: 'user', parts: [{ text: 'go' }] },
      call('a'),
      output('a'),
      call('b'),
      output('b'),
    ];
    const raw = body(contents);
    const decoded = reader.read(raw, 'm')!;
    expect(decoded.write(decoded.contents).equals(raw)).toBe(true);
    const masked: Content = {
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'a',
            name: 'run_shell_command',
            response: { output: '<snippet>' },
          },
        },
      ],
    };
    const sent = decoded.contents.slice();
    sent[2] = masked;
    const written = decoded.write(sent);
    const expected = contents.slice();
    expected[2] = masked as (typeof contents)[number];
    expect(written.toString()).toBe(
      JSON.stringify({ contents: expected, generationConfig: { temperature: 1 }, tools: [] }),
    );
    // The same masked object again: its bytes are reused, not serialized again.
    const again = reader.read(raw, 'm')!;
    expect(again.decoded).toBe(0);
    const resent = again.contents.slice();
    resent[2] = masked;
    expect(again.write(resent).equals(written)).toBe(true);
  });

  it('keeps OpenAI messages as they were, replacing only a masked tool message content', () => {
    const reader = new IncrementalBody(OPENAI_CHAT_PROTOCOL.codec);
    const messages = [
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [{ type: 'text', text: 'go', cache_control: { type: 'ephemeral' } }],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'run_shell_command', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'long output' }] },
    ];
    const raw = Buffer.from(JSON.stringify({ model: 'qwen', messages, stream: true }));
    const decoded = reader.read(raw, '')!;
    expect(decoded.description.model).toBe('qwen');
    expect(decoded.contents[3]?.parts?.[0]?.functionResponse).toMatchObject({
      id: 'c1',
      name: 'run_shell_command',
    });
    const sent = decoded.contents.slice();
    sent[3] = {
      role: 'user',
      parts: [
        { functionResponse: { id: 'c1', name: 'run_shell_command', response: { output: 'snip' } } },
      ],
    };
    const written = JSON.parse(decoded.write(sent).toString());
    expect(written).toEqual({
      model: 'qwen',
      messages: [
        ...messages.slice(0, 3),
        { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'snip' }] },
      ],
      stream: true,
    });
  });

  it('takes the model from the route of each request, even when the body is the same', () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const raw = body([{ role: 'user', parts: [{ text: 'go' }] }]);
    expect(reader.read(raw, 'gemini-2.5-pro')?.description.model).toBe('gemini-2.5-pro');
    expect(reader.read(raw, 'gemini-2.5-flash')?.description.model).toBe('gemini-2.5-flash');
  });

  it('returns undefined for a body it cannot read incrementally', () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    expect(reader.read(Buffer.from('{"other":[]}'), 'm')).toBeUndefined();
    expect(reader.read(Buffer.from('{"contents":[{"role":"user"} oops'), 'm')).toBeUndefined();
    expect(
      reader.read(Buffer.from('{"contents":[{"seed":12345678901234567890}]}'), 'm'),
    ).toBeUndefined();
  });
});
