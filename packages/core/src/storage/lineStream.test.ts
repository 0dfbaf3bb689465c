import type { FileHandle } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineBatches, utf16Units } from './lineStream.js';

const SEED = Number(process.env['TOOLMASK_FC_SEED'] ?? 20_260_601);

/** A FileHandle over bytes in memory: all lineBatches uses is `read`. */
function handleOver(bytes: Buffer): FileHandle {
  return {
    read: async (buffer: Buffer, offset: number, length: number, position: number) => ({
      bytesRead: bytes.copy(buffer, offset, position, Math.min(bytes.length, position + length)),
      buffer,
    }),
  } as unknown as FileHandle;
}

async function readAll(bytes: Buffer, chunkBytes: number, keepBytes: number) {
  const lines: Array<{ number: number; text: string; length: number }> = [];
  for await (const batch of lineBatches(handleOver(bytes), { chunkBytes, keepBytes })) {
    for (let index = 0; index < batch.count; index++) {
      lines.push({ number: batch.first + index, ...batch.line(index) });
    }
  }
  return lines;
}

/** What the snippet header counts: split at `\n`, a trailing `\r` dropped. */
const naiveLines = (text: string) =>
  text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));

const isWellFormed = (text: string) =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

const content = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\n', '\r', '\r\n', '\r\r\n', 'é', '😀', '𠀀', 'ab', ' '),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 120,
});

describe('lineBatches', () => {
  it('gives the lines the snippet counts, whatever the chunk size, cut on character boundaries', async () => {
    await fc.assert(
      fc.asyncProperty(
        content,
        fc.integer({ min: 1, max: 17 }),
        fc.integer({ min: 1, max: 40 }),
        async (text, chunkBytes, keepBytes) => {
          const expected = naiveLines(text);
          const lines = await readAll(Buffer.from(text, 'utf8'), chunkBytes, keepBytes);
          expect(lines.map((line) => line.number)).toEqual(expected.map((_, i) => i + 1));
          lines.forEach((line, index) => {
            const whole = expected[index] as string;
            expect(line.length).toBe(whole.length);
            expect(whole.startsWith(line.text)).toBe(true);
            expect(isWellFormed(line.text)).toBe(true);
            // Lines within one chunk, or short enough to keep, come whole.
            if (Buffer.byteLength(whole) <= Math.min(keepBytes, chunkBytes)) {
              expect(line.text).toBe(whole);
            }
          });
        },
      ),
      { seed: SEED, numRuns: 1_500 },
    );
  });

  it('keeps a bounded head of a giant line and counts the rest exactly', async () => {
    const line = `${'x'.repeat(10)}${'é'.repeat(1_000)}${'😀'.repeat(500)}`;
    const lines = await readAll(Buffer.from(`${line}\r\nnext`), 64, 25);
    expect(lines).toHaveLength(2);
    expect(lines[0]?.length).toBe(line.length);
    expect(lines[0]?.text).toBe(`${'x'.repeat(10)}${'é'.repeat(7)}`); // 24 of 25 bytes: é is 2
    expect(lines[1]).toEqual({ number: 2, text: 'next', length: 4 });
  });

  it('counts UTF-16 code units of UTF-8 bytes', () => {
    expect(utf16Units(Buffer.from('aé😀𠀀\n'))).toBe('aé😀𠀀\n'.length);
  });
});
