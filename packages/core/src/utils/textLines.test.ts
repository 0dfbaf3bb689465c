import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countLines, countLinesInSlices, firstLines, lastLines } from './textLines.js';
import { utf8LengthInSlices } from './utf8Chunks.js';

const SEED = Number(process.env['TOOLMASK_FC_SEED'] ?? 20_260_601);
const text = fc.string({
  unit: fc.oneof(fc.constantFrom('\n', 'a', '😀', 'é', '\ud800'), fc.string({ maxLength: 1 })),
  maxLength: 60,
});
const noPause = async () => undefined;

describe('lines and sizes of a text, in slices or by position', () => {
  it('give what a plain split and Buffer.byteLength give, whatever the slice size', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1, max: 7 }), async (value, slice) => {
        const lines = value.length === 0 ? [] : value.split('\n');
        expect(countLines(value)).toBe(lines.length);
        expect(await countLinesInSlices(value, noPause, slice)).toBe(lines.length);
        expect(await utf8LengthInSlices(value, noPause, slice)).toBe(Buffer.byteLength(value));
        const all = value.split('\n');
        expect(firstLines(value, 2)).toEqual(all.slice(0, 2));
        expect(lastLines(value, 2)).toEqual(all.slice(-2));
      }),
      { seed: SEED, numRuns: 1_000 },
    );
  });
});
