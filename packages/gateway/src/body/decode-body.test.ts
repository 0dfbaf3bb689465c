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
  it('reads incrementally when it can: the same conversation as a whole read', async () => {
    const raw = Buffer.from(JSON.stringify({ contents, model: 'ignored' }));
    const decoded = await decodeBody(new IncrementalBody(codec), raw, 'gemini-2.5-flash');
    const whole = await decodeWhole(codec, raw, 'gemini-2.5-flash');
    expect(decoded.kind).toBe('conversation');
    expect(whole.kind).toBe('conversation');
    if (decoded.kind !== 'conversation' || whole.kind !== 'conversation') return;
    expect(decoded.incremental).toBe(true);
    expect(whole.incremental).toBe(false);
    expect(decoded.contents).toEqual(whole.contents);
    expect(decoded.description).toEqual(whole.description);
    // Nothing changed: both write the body as it came.
    expect(await decoded.write(decoded.contents, [])).toBe(raw);
    expect(await whole.write(whole.contents, [])).toBe(raw);
  });

  it('falls back to a whole read where the reader cannot read the body, and starts over', async () => {
    // A countTokens body nests its request: not where the reader looks.
    const raw = Buffer.from(JSON.stringify({ generateContentRequest: { contents } }));
    const reader = new IncrementalBody(codec);
    const decoded = await decodeBody(reader, raw, 'm');
    expect(decoded.kind).toBe('conversation');
    if (decoded.kind !== 'conversation') return;
    expect(decoded.incremental).toBe(false);
    expect(decoded.head).toEqual(contents[0]);
    expect(reader.retainedBytes).toBe(0);
    const masked: Content = {
      role: 'user',
      parts: [{ functionResponse: { id: 'a', name: 'ls', response: { output: 'masked' } } }],
    };
    const written = await decoded.write([contents[0]!, contents[1]!, masked], [2]);
    expect(JSON.parse(written.toString())).toEqual({
      generateContentRequest: { contents: [contents[0], contents[1], masked] },
    });
  });

  it('says what a body that must not be rewritten is, never throws', async () => {
    const reader = () => new IncrementalBody(OPENAI_CHAT_PROTOCOL.codec);
    expect(await decodeBody(reader(), Buffer.from('{"messages": ['), 'm')).toMatchObject({
      kind: 'malformed',
    });
    expect(await decodeBody(reader(), Buffer.from('{"model":"m","input":[]}'), 'm')).toEqual({
      kind: 'no-conversation',
    });
    // 2^53 + 1 cannot be carried by a JavaScript number: writing its message back would change
    // it. Outside the conversation it does not matter: those bytes are copied as they came.
    const inexact = '{"role":"user","content":"hi","n":9007199254740993}';
    expect(await decodeBody(reader(), Buffer.from(`{"messages":[${inexact}]}`), 'm')).toEqual({
      kind: 'inexact',
    });
    // Nor can a value nested deeper than the check walks (json-safety.ts): the whole read says
    // so, and the incremental reader, which checks only what its scan flagged, must agree.
    const deep = `{"role":"user","content":"hi","n":${'['.repeat(300)}${']'.repeat(300)}}`;
    const deepBody = Buffer.from(`{"messages":[${deep}]}`);
    expect(await decodeWhole(OPENAI_CHAT_PROTOCOL.codec, deepBody, 'm')).toEqual({
      kind: 'inexact',
    });
    expect(await decodeBody(reader(), deepBody, 'm')).toEqual({ kind: 'inexact' });
    const outside = Buffer.from(
      '{"seed":9007199254740993,"messages":[{"role":"user","content":"hi"}]}',
    );
    expect(await decodeBody(reader(), outside, 'm')).toMatchObject({ kind: 'conversation' });
  });

  it('says a body that is not UTF-8 is so, read whole or incrementally; the reader keeps its place', async () => {
    // Decoded, a stray byte would become U+FFFD and the body would not go out as the same bytes.
    const withByte = (value: Buffer, text: string, byte: number, after = 0) => {
      const copy = Buffer.from(value);
      copy[copy.indexOf(text) + after] = byte;
      return copy;
    };
    const asBody = (entries: Content[]) =>
      Buffer.from(JSON.stringify({ contents: entries, model: 'é' }));
    const one = asBody(contents);
    expect(await decodeWhole(codec, withByte(one, 'go', 0xff), 'm')).toEqual({ kind: 'not-utf8' });
    const reader = new IncrementalBody(codec);
    expect(await decodeBody(reader, one, 'm')).toMatchObject({ kind: 'conversation' });
    const question: Content = { role: 'user', parts: [{ text: 'next' }] };
    const two = asBody([...contents, question]);
    // A stray byte in the new entry, and after the array (the outside) a character cut short
    // (its lead byte followed by a space): both bodies are refused.
    expect(await decodeBody(reader, withByte(two, 'next', 0xff), 'm')).toEqual({
      kind: 'not-utf8',
    });
    expect(await decodeBody(reader, withByte(two, 'é', 0x20, 1), 'm')).toEqual({
      kind: 'not-utf8',
    });
    // Neither was taken for the previous body: the next one reads only its new entry.
    const read = await decodeBody(reader, two, 'm');
    expect(read).toMatchObject({ kind: 'conversation', incremental: true });
    if (read.kind !== 'conversation') return;
    expect(read.contents).toEqual([...contents, question]);
    expect(await read.write(read.contents, [])).toBe(two);
  });

  it('a large body read whole is weighed first: too heavy to parse at once, it is said so', async () => {
    // A countTokens body (read whole) of 300,000 values, then the same broken near its end, then
    // a large light body broken at its end (its own JSON.parse message).
    const heavy = `{"generateContentRequest":{"contents":[{"role":"user","parts":[{"text":"go"}]}],"cachedContent":${'[0,1,2]'
      .repeat(1)
      .replace(/^/, '[')
      .replace(/$/, `${',[0,1,2]'.repeat(100_000)}]`)}}}`;
    expect(await decodeWhole(codec, Buffer.from(heavy), 'm')).toEqual({ kind: 'heavy' });
    const broken = Buffer.from(`${heavy.slice(0, -3)}x}}`);
    expect(await decodeWhole(codec, broken, 'm')).toEqual({
      kind: 'malformed',
      message: `Unexpected character at byte ${broken.length - 3}`,
    });
    const light = `{"contents":[{"role":"user","parts":[{"text":"${'x'.repeat(600_000)}"}]}]`;
    let message = '';
    try {
      JSON.parse(light);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(await decodeWhole(codec, Buffer.from(light), 'm')).toEqual({
      kind: 'malformed',
      message,
    });
  });
});
