import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventLoopPauser } from '@toolmask/core/utils';
import { checkJson } from './json-check.js';
import { roundTripsExactly } from './json-safety.js';
import {
  WALK_SLICE_BYTES,
  findArray,
  scanElements,
  skipValue,
  stringAt,
  weighJson,
} from './json-layout.js';

/** Element spans as the text of each element. */
async function elementsOf(text: string, keyPath: string[]): Promise<string[] | undefined> {
  const buffer = Buffer.from(text);
  const open = await findArray(buffer, keyPath);
  if (open < 0) return undefined;
  const spans = await scanElements(buffer, open + 1);
  return spans?.elements.map(([start, end]) => buffer.subarray(start, end).toString());
}

/** Whether JSON.parse takes `text`. */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('the JSON layout scanner', () => {
  it('finds every element of an array at a key path, whatever the values (property, against JSON.stringify)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue(), { maxLength: 8 }),
        fc.jsonValue(),
        fc.constantFrom(undefined, 2),
        async (elements, other, indent) => {
          const body = { before: other, request: { contents: elements, after: other } };
          const text = JSON.stringify(body, null, indent);
          const found = await elementsOf(text, ['request', 'contents']);
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

  it('says which elements may hold a number not written back exactly; none it clears does (property, issue 30)', async () => {
    // Numbers as clients write them: JSON.stringify's, and written by hand (digits, fractions,
    // exponents, signs), safe or not.
    const numberText = fc.oneof(
      fc
        .double()
        .filter(Number.isFinite)
        .map((value) => JSON.stringify(value)),
      fc.bigInt({ min: -(10n ** 22n), max: 10n ** 22n }).map(String),
      fc
        .tuple(
          fc.constantFrom('', '-'),
          fc.stringMatching(/^(0|[1-9][0-9]{0,19})$/),
          fc.constantFrom('', '.0', '.5', '.000000000000000000001', '.12345678901234567'),
          fc.constantFrom('', 'e5', 'E+2', 'e-7', 'e400', 'E308'),
        )
        .map((pieces) => pieces.join('')),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(numberText, { maxLength: 4 }), { maxLength: 6 }),
        fc.jsonValue(),
        async (rows, other) => {
          const elements = rows.map(
            (numbers) => `{"n":[${numbers.join(',')}],"o":${JSON.stringify(other) ?? 'null'}}`,
          );
          const buffer = Buffer.from(`{"contents":[${elements.join(',')}]}`);
          const spans = await scanElements(buffer, (await findArray(buffer, ['contents'])) + 1);
          expect(spans?.elements).toHaveLength(elements.length);
          elements.forEach((element, index) => {
            if (spans?.inexact[index] === false) {
              expect(roundTripsExactly(JSON.parse(element))).toBe(true);
            }
          });
        },
      ),
      { numRuns: 400 },
    );
    const flags = async (text: string) => (await scanElements(Buffer.from(text), 1))?.inexact;
    expect(
      await flags('[{"a":"12345678901234567890 1e9"},{"b":[123456789012345,-0.5,true]}]'),
    ).toEqual([false, false]);
    expect(await flags('[{"a":9007199254740993},{"b":1e400},{"c":1.5E3}]')).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('flags an element nested deeper than the round-trip check walks, numbers or not (issue 30)', async () => {
    // roundTripsExactly refuses a value nested more than 256 deep: the whole body's decode sends
    // it as it came, so the incremental reader must not clear it unchecked.
    const deep = (levels: number) => '['.repeat(levels) + '"x"' + ']'.repeat(levels);
    const elements = [deep(300), deep(10)];
    expect(roundTripsExactly(JSON.parse(elements[0] as string))).toBe(false);
    const spans = await scanElements(Buffer.from(`[${elements.join(',')}]`), 1);
    expect(spans?.inexact).toEqual([true, false]);
  });

  it('handles escapes, quotes and brackets inside strings, and multi-byte characters', async () => {
    const tricky = ['a"b', 'back\\', '\\"', '[{]}', '😀 é 中', '\\\\\\"', ''];
    const text = JSON.stringify({ contents: tricky.map((text) => ({ parts: [{ text }] })) });
    expect(
      (await elementsOf(text, ['contents']))?.map((element) => JSON.parse(element).parts[0].text),
    ).toEqual(tricky);
  });

  it('stops after max elements, and says undefined for what is not an array of values', async () => {
    const buffer = Buffer.from('{"messages":[{"a":1},{"b":2},3]}');
    const open = await findArray(buffer, ['messages']);
    const pause = eventLoopPauser();
    expect((await scanElements(buffer, open + 1, pause, 2))?.elements).toHaveLength(2);
    expect((await scanElements(buffer, open + 1, pause, 2))?.close).toBeUndefined();
    expect(await findArray(Buffer.from('{"messages":{"a":1}}'), ['messages'])).toBe(-1);
    expect(await findArray(Buffer.from('{"other":[1]}'), ['messages'])).toBe(-1);
    expect(await scanElements(Buffer.from('[1 2]'), 1)).toBeUndefined();
    expect(skipValue(Buffer.from('"never closed'), 0)).toBe(-1);
  });

  it('weighs each element: about one per value (brackets, braces and commas outside strings)', async () => {
    const buffer = Buffer.from('[1, "a,[{", {"k":[1,2,3]}, [[0,1],[2,3]], {}]');
    const spans = await scanElements(buffer, 1);
    expect(spans?.weights).toEqual([1, 1, 4, 6, 1]);
  });

  it('walks values of megabytes in stretches, to the same ends and weights as at once', async () => {
    // Brackets, a string of escaped quotes, and a giant key before the array: each longer than
    // a stretch, so each walk stops and goes on.
    const nested = `[${'[[0,1],[2,3]],'.repeat(200_000)}[]]`;
    const quotes = JSON.stringify('\\"'.repeat(WALK_SLICE_BYTES));
    const text = `{"big":${nested},"contents":[${nested},${quotes},{"a":${quotes}}],"model":"m"}`;
    const buffer = Buffer.from(text);
    expect(buffer.length).toBeGreaterThan(4 * WALK_SLICE_BYTES);
    const turns: number[] = [];
    const pause = Object.assign(
      async () => {
        turns.push(1);
      },
      { due: () => true },
    );
    const open = await findArray(buffer, ['contents'], pause);
    expect(open).toBe(text.indexOf('"contents":[') + '"contents":'.length);
    const spans = await scanElements(buffer, open + 1, pause);
    expect(spans?.elements.map(([start, end]) => text.slice(start, end))).toEqual([
      nested,
      quotes,
      `{"a":${quotes}}`,
    ]);
    // Each `[[0,1],[2,3]],` weighs 7 (three brackets, four commas); then the outer and the last `[`.
    expect(spans?.weights[0]).toBe(200_000 * 7 + 2);
    expect(turns.length).toBeGreaterThan(4);
    expect(await stringAt(buffer, ['model'], pause)).toBe('m');
    for (const [start, end] of spans?.elements ?? []) expect(skipValue(buffer, start)).toBe(end);
  });

  it('weighs a whole JSON text, and says undefined for what is not one value', async () => {
    const pause = eventLoopPauser();
    const weigh = (text: string) => weighJson(Buffer.from(text), 0, Buffer.byteLength(text), pause);
    expect(await weigh(' {"a":[1,2]} ')).toBe(3);
    expect(await weigh('{"a":1} {"b":2}')).toBeUndefined();
    expect(await weigh('{"a":1')).toBeUndefined();
  });
});

describe('checkJson', () => {
  const check = (text: string) => {
    const buffer = Buffer.from(text);
    return checkJson(buffer, 0, buffer.length, eventLoopPauser());
  };

  it('takes exactly what JSON.parse takes (property, on JSON and on mangled JSON)', async () => {
    const mangled = fc
      .tuple(fc.json(), fc.nat(), fc.string({ unit: 'binary', maxLength: 3 }), fc.nat(3))
      .map(
        ([text, at, insert, cut]) =>
          text.slice(0, at % (text.length + 1)) +
          insert +
          text.slice((at % (text.length + 1)) + cut),
      );
    const texts = fc.oneof(
      fc.json(),
      fc.jsonValue().map((value) => JSON.stringify(value, null, 2)),
      mangled,
      fc.string({ unit: 'binary', maxLength: 12 }),
    );
    await fc.assert(
      fc.asyncProperty(texts, async (text) => {
        expect((await check(text)).ok).toBe(parses(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('names the first byte that cannot be there, and counts the values', async () => {
    expect(await check('[1, {"a": [true, null, "x"]}]')).toEqual({ ok: true, weight: 7 });
    expect(await check('[1, 2,]')).toMatchObject({ ok: false, position: 6 });
    expect(await check('{"a" 1}')).toMatchObject({ ok: false, position: 5 });
    expect(await check('[01]')).toMatchObject({ ok: false, position: 2 });
    expect(await check('"tab\there"')).toMatchObject({ ok: false, position: 4 });
    expect(await check('"\\x"')).toMatchObject({ ok: false, position: 2 });
    expect(await check('[1, 2')).toMatchObject({ ok: false, position: 5 });
    expect(await check('[] []')).toMatchObject({ ok: false, position: 3 });
  });

  it('checks any depth without recursion, in stretches', async () => {
    const depth = 3 * WALK_SLICE_BYTES;
    expect(await check(`${'['.repeat(depth)}${']'.repeat(depth)}`)).toEqual({
      ok: true,
      weight: depth,
    });
    expect((await check(`${'['.repeat(depth)}${']'.repeat(depth - 1)}`)).ok).toBe(false);
  });
});
