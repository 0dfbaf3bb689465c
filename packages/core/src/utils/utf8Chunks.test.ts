import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Chunks } from './utf8Chunks.js';
import { hashText, hashTextInChunks } from '../storage/outputLayout.js';

const SEED = Number(process.env['TOOLMASK_FC_SEED'] ?? 20_260_601);

const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom('😀', '𠀀', 'é', '\n', '\ud800', '\udfff'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 200,
});

describe('utf8Chunks', () => {
  it('chunks concatenate to Buffer.from(text), whatever the chunk size', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 9 }), (value, chunkUnits) => {
        // Each chunk is valid until the next: copy it at once.
        const chunks: Buffer[] = [];
        for (const chunk of utf8Chunks(value, chunkUnits)) chunks.push(Buffer.from(chunk));
        expect(Buffer.concat(chunks).equals(Buffer.from(value, 'utf8'))).toBe(true);
      }),
      { seed: SEED, numRuns: 2_000 },
    );
  });

  it('hashes a giant text in chunks to the same name as at once', async () => {
    const giant = `${'😀 log line\n'.repeat(200_000)}tail`;
    expect(await hashTextInChunks(giant)).toBe(hashText(giant));
  });
});
