import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findArray, scanElements, skipValue } from './json-layout.js';

/** Element spans as the text of each element. */
function elementsOf(text: string, keyPath: string[]): string[] | undefined {
  const buffer = Buffer.from(text);
  const open = findArray(buffer, keyPath);
  if (open < 0) return undefined;
  const spans = scanElements(buffer, open + 1);
  return spans?.elements.map(([start, end]) => buffer.subarray(start, end).toString());
}

describe('the JSON layout scanner', () => {
  it('finds every element of an array at a key path, whatever the values (property, against JSON.stringify)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 8 }),
        fc.jsonValue(),
        fc.constantFrom(undefined, 2),
        (elements, other, indent) => {
          const body = { before: other, request: { contents: elements, after: other } };
          const text = JSON.stringify(body, null, indent);
          const found = elementsOf(text, ['request', 'contents']);
          expect(found?.map((element) => JSON.parse(element))).toEqual(
            JSON.parse(JSON.stringify(elements)),
          );
          if (indent === undefined)
            expect(found).toEqual(elements.map((element) => JSON.stringify(element)));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('handles escapes, quotes and brackets inside strings, and multi-byte characters', () => {
    const tricky = ['a"b', 'back\\', '\\"', '[{]}', '😀 é 中', '\\\\\\"', ''];
    const text = JSON.stringify({ contents: tricky.map((text) => ({ parts: [{ text }] })) });
    expect(
      elementsOf(text, ['contents'])?.map((element) => JSON.parse(element).parts[0].text),
    ).toEqual(tricky);
  });

  it('stops after max elements, and says undefined for what is not an array of values', () => {
    const buffer = Buffer.from('{"messages":[{"a":1},{"b":2},3]}');
    const open = findArray(buffer, ['messages']);
    expect(scanElements(buffer, open + 1, 2)?.elements).toHaveLength(2);
    expect(scanElements(buffer, open + 1, 2)?.close).toBeUndefined();
    expect(findArray(Buffer.from('{"messages":{"a":1}}'), ['messages'])).toBe(-1);
    expect(findArray(Buffer.from('{"other":[1]}'), ['messages'])).toBe(-1);
    expect(scanElements(Buffer.from('[1 2]'), 1)).toBeUndefined();
    expect(skipValue(Buffer.from('"never closed'), 0)).toBe(-1);
  });
});
