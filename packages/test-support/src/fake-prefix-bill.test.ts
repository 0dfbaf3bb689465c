import { describe, expect, it } from 'vitest';
import {
  anthropicUsageOf,
  PrefixCacheBill,
  promptSegments,
  responsesUsageOf,
} from './fake-prefix-bill.js';

const body = (messages: string[]) => ({
  model: 'm',
  system: 'sys',
  messages: messages.map((content) => ({ role: 'user', content })),
});

describe('PrefixCacheBill', () => {
  it('splits a body into the rest of it and each conversation element', () => {
    expect(promptSegments(body(['a', 'b']), ['messages'])).toEqual([
      '{"model":"m","system":"sys","messages":[]}',
      '{"role":"user","content":"a"}',
      '{"role":"user","content":"b"}',
    ]);
    expect(promptSegments({ request: { contents: [1] } }, ['request', 'contents'])).toEqual([
      '{"request":{"contents":[]}}',
      '1',
    ]);
  });

  it('reads the prefix shared with the key’s previous request and writes the rest', () => {
    let now = 0;
    const bill = new PrefixCacheBill({
      rules: 'anthropic',
      arrayPath: ['messages'],
      charsPerToken: 1,
      now: () => now,
    });
    const first = bill.bill('k', body(['a'.repeat(100)]));
    const header = promptSegments(body([]), ['messages'])[0]!.length;
    const element = JSON.stringify({ role: 'user', content: 'a'.repeat(100) }).length;
    expect(first).toEqual({
      prompt: header + element,
      read: 0,
      write: header + element,
      billed: (header + element) * 1.25,
    });
    now = 1_000;
    const second = bill.bill('k', body(['a'.repeat(100), 'b']));
    expect(second.read).toBe(header + element);
    expect(second.write).toBe(second.prompt - second.read);
    // A changed early element breaks everything after it; another key has a cache of its own.
    const third = bill.bill('k', body(['c', 'b']));
    expect(third.read).toBe(header);
    expect(bill.bill('other', body(['c', 'b'])).read).toBe(0);
    // Past the time to live, nothing is read.
    now += 5 * 60 * 1000 + 1;
    expect(bill.bill('k', body(['c', 'b'])).read).toBe(0);
    const total = bill.total('k');
    expect(total.requests).toBe(4);
    expect(total.prompt).toBe(total.read + total.write);
    expect(total.billed).toBeCloseTo(total.read * 0.1 + total.write * 1.25, 6);
  });

  it('reads past a breakpoint the client moved (the cache matches the prompt, not its markers)', () => {
    const bill = new PrefixCacheBill({ rules: 'anthropic', arrayPath: ['messages'] });
    const turn = (text: string, marked: boolean) => ({
      role: 'user',
      content: [
        { type: 'text', text, ...(marked ? { cache_control: { type: 'ephemeral' } } : {}) },
      ],
    });
    const first = bill.bill('k', { model: 'm', messages: [turn('a'.repeat(400), true)] });
    const second = bill.bill('k', {
      model: 'm',
      messages: [turn('a'.repeat(400), false), turn('b'.repeat(400), true)],
    });
    expect(second.read).toBe(first.prompt);
  });

  it('reports the bill in each provider’s fields', () => {
    const bill = { prompt: 10, read: 6, write: 4, billed: 5.6 };
    expect(anthropicUsageOf(bill)).toEqual({ input: 0, cacheRead: 6, cacheWrite: 4 });
    expect(responsesUsageOf(bill)).toEqual({ input: 10, cached: 6 });
  });
});

describe('promptSegments with prompt keys', () => {
  it('keeps only the keys a provider caches on, beside the conversation', () => {
    const body = { model: 'm', client_metadata: { turn: 3 }, input: [{ a: 1 }] };
    expect(promptSegments(body, ['input'], ['model', 'tools'])).toEqual([
      '{"model":"m","input":[]}',
      '{"a":1}',
    ]);
  });
});
