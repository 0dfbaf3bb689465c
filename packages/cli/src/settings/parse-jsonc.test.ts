import { describe, expect, it } from 'vitest';
import { parseJsonc } from './parse-jsonc.js';

describe('parseJsonc', () => {
  it('allows comments and trailing commas, and leaves strings alone', () => {
    const text = `{
      // line comment
      "url": "http://example.com/*not a comment*/", /* block */
      "list": ["a,]", "b",],
      "quote": "say \\"hi\\" // still text",
    }`;
    expect(parseJsonc(text)).toEqual({
      url: 'http://example.com/*not a comment*/',
      list: ['a,]', 'b'],
      quote: 'say "hi" // still text',
    });
  });

  it('still rejects what is not JSON', () => {
    expect(() => parseJsonc('{ "a": }')).toThrow(SyntaxError);
  });
});
