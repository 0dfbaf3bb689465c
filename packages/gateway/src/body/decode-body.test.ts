/**
 * The one decode path: the incremental reader when it can read the body, the codec's whole read
 * when it cannot, and what a body that must not be rewritten is said to be.
 */
import { describe, expect, it } from 'vitest';
import type { Content } from '@toolmask/core';
import { GEMINI_API_PROTOCOL } from '../protocols/gemini/index.js';
import { OPENAI_CHAT_PROTOCOL } from '../protocols/openai-chat/index.js';
import { decodeBody, decodeWhole } from './decode-body.js';
import { IncrementalBody } from './incremental-body.js';

const contents: Content[] = [
  { role: 'user', parts: [{ text: 'go' }] },
  { role: 'model', parts: [{ functionCall: { id: 'a', name: 'ls', args: {} } }] },
  {
    role: 'user',
    parts: [{ functionResponse: { id: 'a', name: 'ls', response: { output: 'x' } } }],
  },
];
const codec = GEMINI_API_PROTOCOL.codec;

describe('decodeBody', () => {
  it('reads incrementally when it can: the same conversation as a whole read', () => {
    const raw = Buffer.from(JSON.stringify({ contents, model: 'ignored' }));
    const decoded = decodeBody(new IncrementalBody(codec), raw, 'gemini-2.5-flash');
    const whole = decodeWhole(codec, raw, 'gemini-2.5-flash');
    expect(decoded.kind).toBe('conversation');
    expect(whole.kind).toBe('conversation');
    if (decoded.kind !== 'conversation' || whole.kind !== 'conversation') return;
    expect(decoded.incremental).toBe(true);
    expect(whole.incremental).toBe(false);
    expect(decoded.contents).toEqual(whole.contents);
    expect(decoded.description).toEqual(whole.description);
    // Nothing changed: both write the body as it came.
    expect(decoded.write(decoded.contents, [])).toBe(raw);
    expect(whole.write(whole.contents, [])).toBe(raw);
  });

  it('falls back to a whole read where the reader cannot read the body, and starts over', () => {
    // A countTokens body nests its request: not where the reader looks.
    const raw = Buffer.from(JSON.stringify({ generateContentRequest: { contents } }));
    const reader = new IncrementalBody(codec);
    const decoded = decodeBody(reader, raw, 'm');
    expect(decoded.kind).toBe('conversation');
    if (decoded.kind !== 'conversation') return;
    expect(decoded.incremental).toBe(false);
    expect(decoded.head).toEqual(contents[0]);
    expect(reader.retainedBytes).toBe(0);
    const masked: Content = {
      role: 'user',
      parts: [{ functionResponse: { id: 'a', name: 'ls', response: { output: 'masked' } } }],
    };
    const written = decoded.write([contents[0]!, contents[1]!, masked], [2]);
    expect(JSON.parse(written.toString())).toEqual({
      generateContentRequest: { contents: [contents[0], contents[1], masked] },
    });
  });

  it('says what a body that must not be rewritten is, never throws', () => {
    const reader = () => new IncrementalBody(OPENAI_CHAT_PROTOCOL.codec);
    expect(decodeBody(reader(), Buffer.from('{"messages": ['), 'm')).toMatchObject({
      kind: 'malformed',
    });
    expect(decodeBody(reader(), Buffer.from('{"model":"m","input":[]}'), 'm')).toEqual({
      kind: 'no-conversation',
    });
    // 2^53 + 1 cannot be carried by a JavaScript number: writing its message back would change
    // it. Outside the conversation it does not matter: those bytes are copied as they came.
    const inexact = '{"role":"user","content":"hi","n":9007199254740993}';
    expect(decodeBody(reader(), Buffer.from(`{"messages":[${inexact}]}`), 'm')).toEqual({
      kind: 'inexact',
    });
    const outside = Buffer.from(
      '{"seed":9007199254740993,"messages":[{"role":"user","content":"hi"}]}',
    );
    expect(decodeBody(reader(), outside, 'm')).toMatchObject({ kind: 'conversation' });
  });
});
