import { describe, expect, it } from 'vitest';
import type { Content } from '@toolmask/core';
import { GEMINI_API_PROTOCOL } from '../protocols/gemini/index.js';
import { OPENAI_CHAT_PROTOCOL } from '../protocols/openai-chat/index.js';
import { MAX_ELEMENT_VALUES } from './element-reading.js';
import { IncrementalBody } from './incremental-body.js';
import { KeptBodies } from './kept-bodies.js';
import { PiecedBody } from './pieced-body.js';
import type { KeptBody } from './previous-body.js';

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
  it('decodes only what is new, and the unchanged entries are the very same objects', async () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const first = [{ role: 'user', parts: [{ text: 'go' }] }, call('a'), output('a')];
    const one = (await reader.read(body(first), 'm'))!;
    expect(one.decoded).toBe(3);
    expect(one.contents).toEqual(first);
    const two = (await reader.read(body([...first, call('b'), output('b')]), 'm'))!;
    expect(two.decoded).toBe(2);
    one.contents.forEach((content, index) => expect(two.contents[index]).toBe(content));
    // An entry changed in the middle: decoded again from there.
    const edited = [
      first[0],
      call('a'),
      { ...output('a'), role: 'user', parts: [{ text: 'edited' }] },
      call('b'),
      output('b'),
    ];
    const three = (await reader.read(body(edited), 'm'))!;
    expect(three.decoded).toBe(3);
    expect(three.contents).toEqual(edited);
  });

  it('hands out the array the previous body was written from, for the elements it kept (issue 30)', async () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const first = [{ role: 'user', parts: [{ text: 'go' }] }, call('a'), output('a')];
    const one = (await reader.read(body(first), 'm'))!;
    expect(one.sentBefore).toBeUndefined();
    const masked = { role: 'user', parts: [{ text: 'masked a' }] } as Content;
    const sent = [one.contents[0] as Content, one.contents[1] as Content, masked];
    await one.write(sent);
    const two = (await reader.read(body([...first, call('b'), output('b')]), 'm'))!;
    expect(two.sentBefore).toEqual({ sent, count: 3 });
    expect(two.sentBefore?.sent).toBe(sent);
    sent.forEach((content, index) => expect(two.contents[index]).toBe(content));
    // Not written: the next read vouches for nothing.
    const three = (await reader.read(body([...first, call('b'), output('b'), call('c')]), 'm'))!;
    expect(three.sentBefore).toBeUndefined();
  });

  it("sends a rewritten body as pieces of the same bytes as its write, the client's runs uncopied", async () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const long = (id: string) => ({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id,
            name: 'run_shell_command',
            response: { output: `${id} é `.repeat(8_000) },
          },
        },
      ],
    });
    const history = [{ role: 'user', parts: [{ text: 'go' }] }, call('a'), long('a')];
    history.push(call('b'), long('b'), call('c'), long('c'));
    const raw = body(history);
    const read = (await reader.read(raw, 'm'))!;
    const masked = {
      role: 'user',
      parts: [
        { functionResponse: { id: 'b', name: 'run_shell_command', response: { output: 'M' } } },
      ],
    } as Content;
    const sent = read.contents.map((content, index) => (index === 4 ? masked : content));
    const pieces = await read.send(sent);
    expect(pieces).toBeInstanceOf(PiecedBody);
    const joined = (pieces as PiecedBody).joined();
    expect(
      joined.equals(body(history.map((content, index) => (index === 4 ? masked : content)))),
    ).toBe(true);
    // The long outputs around the rewritten one are the client's bytes, not copies.
    expect((pieces as PiecedBody).pieces.some((piece) => piece.buffer === raw.buffer)).toBe(true);
    // Written again (the next request's write of the same entry): the same bytes.
    expect((await read.write(sent)).equals(joined)).toBe(true);
  });

  it('reads a body with fewer entries than the last afresh: nothing written is handed out', async () => {
    // Another session with the same key, or a rewind: its newest output was masked in the longer
    // body, and must come out as the client sent it (the conversation decides what applies).
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const longer = [{ role: 'user', parts: [{ text: 'go' }] }, call('a'), output('a'), call('b')];
    const one = (await reader.read(body(longer), 'm'))!;
    const masked = {
      role: 'user',
      parts: [
        { functionResponse: { id: 'a', name: 'run_shell_command', response: { output: 'M' } } },
      ],
    };
    await one.write([one.contents[0]!, one.contents[1]!, masked as Content, one.contents[3]!]);
    const shorter = longer.slice(0, 3);
    const two = (await reader.read(body(shorter), 'm'))!;
    expect(two.decoded).toBe(3);
    expect(two.contents).toEqual(shorter);
    expect((await two.write(two.contents)).equals(body(shorter))).toBe(true);
  });

  it('notices a changed byte inside an entry it decoded before, at the same length', async () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const first = [{ role: 'user', parts: [{ text: 'go' }] }, call('a'), output('a'), call('b')];
    await reader.read(body(first), 'm');
    const changed = body(first);
    const at = changed.indexOf('out a');
    changed.write('OUT', at);
    const again = (await reader.read(changed, 'm'))!;
    // Entries 0 and 1 are kept; entry 2 (the changed output) and what follows are decoded again.
    expect(again.decoded).toBe(2);
    expect(JSON.stringify(again.contents[2])).toContain('OUT a');
    expect((await again.write(again.contents)).equals(changed)).toBe(true);
  });

  describe('the previous body kept, or not', () => {
    const first = [{ role: 'user', parts: [{ text: 'go' }] }, call('a'), output('a'), call('b')];
    /** A reader whose budget keeps its body (room), or has no room for it. */
    const readers = () => ({
      kept: new IncrementalBody(GEMINI_API_PROTOCOL.codec, new KeptBodies<KeptBody>(1 << 20)),
      dropped: new IncrementalBody(GEMINI_API_PROTOCOL.codec, new KeptBodies<KeptBody>(0)),
    });

    it('finds the unchanged history by its bytes when kept, by the digest when not', async () => {
      for (const [name, reader] of Object.entries(readers())) {
        const one = (await reader.read(body(first), 'm'))!;
        expect(one.checked).toBe('none');
        const two = (await reader.read(body([...first, output('b')]), 'm'))!;
        expect(two.checked).toBe(name === 'kept' ? 'bytes' : 'digest');
        expect(two.decoded).toBe(1);
        one.contents.forEach((content, index) => expect(two.contents[index]).toBe(content));
        // The digest carried over the new element: the next body is settled either way too.
        const three = (await reader.read(body([...first, output('b'), call('c')]), 'm'))!;
        expect(three.checked).toBe(two.checked);
        expect(three.decoded).toBe(1);
      }
    });

    it('notices a changed byte in the history, and a changed outside, either way', async () => {
      for (const reader of Object.values(readers())) {
        await reader.read(body(first), 'm');
        const changed = body([...first, output('b')]);
        changed.write('OUT', changed.indexOf('out a'));
        const again = (await reader.read(changed, 'm'))!;
        expect(again.decoded).toBe(3);
        expect(JSON.stringify(again.contents[2])).toContain('OUT a');
        const outside = Buffer.from(
          changed.toString().replace('"temperature":1', '"temperature":0'),
        );
        const next = (await reader.read(outside, 'm'))!;
        expect(next.decoded).toBe(0);
        expect((await next.write(next.contents)).equals(outside)).toBe(true);
        expect(next.outside().toString()).toContain('"temperature":0');
      }
    });

    it('after a body the budget dropped, checks the next one by the digest', async () => {
      const budget = new KeptBodies<KeptBody>(1 << 20);
      const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec, budget);
      const other = new IncrementalBody(GEMINI_API_PROTOCOL.codec, budget);
      await (await reader.read(body(first), 'm'))!.settle();
      // Another conversation's body fills the budget: this reader's is dropped.
      const big = body([{ role: 'user', parts: [{ text: 'x'.repeat(1_045_000) }] }]);
      await (await other.read(big, 'm'))!.settle();
      expect(budget.keptBytes).toBeGreaterThan(1_045_000);
      expect(budget.keptBytes).toBeLessThanOrEqual(1 << 20);
      const two = (await reader.read(body([...first, output('b')]), 'm'))!;
      expect(two.checked).toBe('digest');
      expect(two.decoded).toBe(1);
    });
  });

  it('keeps what only the next read needs for after the send: the body, its digests (issue 30)', async () => {
    const first = [{ role: 'user', parts: [{ text: 'go' }] }, call('a'), output('a')];
    const budget = new KeptBodies<KeptBody>(1 << 20);
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec, budget);
    const one = (await reader.read(body(first), 'm'))!;
    // Nothing of it is kept before the send: the request does not wait for it.
    expect(budget.keptBytes).toBe(0);
    await one.settle();
    const kept = budget.keptBytes;
    expect(kept).toBeGreaterThan(0);
    // A read not settled is settled by the next read, which then still compares bytes.
    await reader.read(body([...first, output('b')]), 'm');
    expect(budget.keptBytes).toBe(kept);
    const three = (await reader.read(body([...first, output('b'), call('c')]), 'm'))!;
    expect(three.checked).toBe('bytes');
    expect(three.decoded).toBe(1);
    await three.settle();
    expect(budget.keptBytes).toBeGreaterThan(0);
    // A reset while a read's settle runs wins: nothing of that read is remembered.
    const four = (await reader.read(body([...first, output('b'), call('c'), output('c')]), 'm'))!;
    const settling = four.settle();
    reader.reset();
    await settling;
    expect(budget.keptBytes).toBe(0);
    expect((await reader.read(body(first), 'm'))!.checked).toBe('none');
  });

  it('writes back the bytes it was given, changing only the replaced entries', async () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const contents = [
      { role: 'user', parts: [{ text: 'go' }] },
      call('a'),
      output('a'),
      call('b'),
      output('b'),
    ];
    const raw = body(contents);
    const decoded = (await reader.read(raw, 'm'))!;
    expect((await decoded.write(decoded.contents)).equals(raw)).toBe(true);
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
    const written = await decoded.write(sent);
    const expected = contents.slice();
    expected[2] = masked as (typeof contents)[number];
    expect(written.toString()).toBe(
      JSON.stringify({ contents: expected, generationConfig: { temperature: 1 }, tools: [] }),
    );
    // The same masked object again: its bytes are reused, not serialized again.
    const again = (await reader.read(raw, 'm'))!;
    expect(again.decoded).toBe(0);
    const resent = again.contents.slice();
    resent[2] = masked;
    expect((await again.write(resent)).equals(written)).toBe(true);
  });

  it('keeps OpenAI messages as they were, replacing only a masked tool message content', async () => {
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
    const decoded = (await reader.read(raw, ''))!;
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
    const written = JSON.parse((await decoded.write(sent)).toString());
    expect(written).toEqual({
      model: 'qwen',
      messages: [
        ...messages.slice(0, 3),
        { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'snip' }] },
      ],
      stream: true,
    });
  });

  it('takes the model from the route of each request, even when the body is the same', async () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    const raw = body([{ role: 'user', parts: [{ text: 'go' }] }]);
    expect((await reader.read(raw, 'gemini-2.5-pro'))?.description.model).toBe('gemini-2.5-pro');
    expect((await reader.read(raw, 'gemini-2.5-flash'))?.description.model).toBe(
      'gemini-2.5-flash',
    );
  });

  it('returns undefined for a body it cannot read incrementally', async () => {
    const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
    expect(await reader.read(Buffer.from('{"other":[]}'), 'm')).toBeUndefined();
    expect(
      await reader.read(Buffer.from('{"contents":[{"role":"user"} oops'), 'm'),
    ).toBeUndefined();
    expect(
      await reader.read(Buffer.from('{"contents":[{"seed":12345678901234567890}]}'), 'm'),
    ).toBeUndefined();
  });

  describe('an element too heavy to parse at once', () => {
    /** A tool output of nested arrays of about `values` values (JSON text). */
    const heavyOutput = (values: number) =>
      `{"role":"user","parts":[{"functionResponse":{"id":"h","name":"read_file","response":{"output":[${'[0,1],'.repeat(values / 3)}[]]}}}]}`;
    const text = (role: string, value: string) =>
      JSON.stringify({ role, parts: [{ text: value }] });
    const bodyOf = (elements: string[]) =>
      Buffer.from(`{"contents":[${elements.join(',')}],"generationConfig":{"temperature":1}}`);

    it('is an empty entry for the pass, written back as its own bytes, and counted once', async () => {
      const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
      const heavy = heavyOutput(MAX_ELEMENT_VALUES + 3);
      const first = [text('user', 'go'), JSON.stringify(call('h')), heavy, text('model', 'ok')];
      const raw = bodyOf(first);
      const decoded = (await reader.read(raw, 'm'))!;
      expect(decoded.contents[2]).toEqual({ role: 'user', parts: [] });
      expect(decoded.newUnmaskable).toBe(1);
      expect((await decoded.write(decoded.contents)).equals(raw)).toBe(true);
      // Whatever stands in its place when written (another request's placeholder, say), and
      // whatever else changed, its bytes stay its own.
      const sent = decoded.contents.slice();
      sent[2] = { role: 'user', parts: [] };
      sent[3] = { role: 'model', parts: [{ text: 'changed' }] };
      expect((await decoded.write(sent)).toString()).toBe(
        bodyOf([first[0]!, first[1]!, heavy, text('model', 'changed')]).toString(),
      );
      // The next request: only what is new is read; the placeholder is the same object.
      const next = (await reader.read(bodyOf([...first, text('user', 'more')]), 'm'))!;
      expect(next.decoded).toBe(1);
      expect(next.newUnmaskable).toBe(0);
      expect(next.contents[2]).toBe(decoded.contents[2]);
    });

    it('is parsed when it is just light enough, and is still checked to be JSON when it is not', async () => {
      const reader = new IncrementalBody(GEMINI_API_PROTOCOL.codec);
      const light = heavyOutput(MAX_ELEMENT_VALUES - 30);
      const decoded = (await reader.read(bodyOf([text('user', 'go'), light]), 'm'))!;
      expect(decoded.contents[1]?.parts?.[0]?.functionResponse?.name).toBe('read_file');
      expect(decoded.newUnmaskable).toBe(0);
      // Brackets that balance, and a number JSON has no form for: not JSON.
      const broken = heavyOutput(MAX_ELEMENT_VALUES + 3).replace('[0,1]', '[01,1]');
      expect(await reader.read(bodyOf([text('user', 'go'), broken]), 'm')).toBeUndefined();
    });

    it('outside the conversation: the request is described by its model alone', async () => {
      const reader = new IncrementalBody(OPENAI_CHAT_PROTOCOL.codec);
      const tools = `[${'[0,1],'.repeat(MAX_ELEMENT_VALUES / 2)}[]]`;
      const raw = Buffer.from(
        `{"model":"qwen","tools":${tools},"messages":[{"role":"user","content":"go"}]}`,
      );
      const decoded = (await reader.read(raw, ''))!;
      expect(decoded.description).toEqual({ model: 'qwen' });
      expect((await decoded.write(decoded.contents)).equals(raw)).toBe(true);
    });
  });
});
