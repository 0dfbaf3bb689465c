import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAttribute, escapeAttribute } from './attributeEscaping.js';

const SEED = Number(process.env['TOOLMASK_FC_SEED'] ?? 20_260_601);

/** Paths with the characters that matter: entity-like runs, quotes, angle brackets, spaces, any code point. */
const pathText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('&', '&amp;', '&quot;', '&#10;', '&#x41;', '&lt;', ';', '"', '<', '>', ' '),
    fc.constantFrom('\n', '\r', 'é', '😀', '/', 'R&D'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 40,
});

describe('the file attribute of a snippet', () => {
  it('decodes back to the path, whatever the path', () => {
    fc.assert(
      fc.property(pathText, (value) => {
        const escaped = escapeAttribute(value);
        expect(decodeAttribute(escaped)).toBe(value);
        expect(escaped).not.toMatch(/["\r\n]/);
      }),
      { seed: SEED, numRuns: 2_000 },
    );
  });

  it('is the path itself when nothing in it would break the header', () => {
    for (const value of ['/tmp/R&D/a b/Données/😀.txt', '/x/<y>/z&w', '/x/a & b;c', '/a&/b']) {
      expect(escapeAttribute(value)).toBe(value);
    }
  });

  it('leaves text that is not an entity alone when decoding', () => {
    expect(decodeAttribute('R&D; &unknown; &#x110000; &')).toBe('R&D; &unknown; &#x110000; &');
  });
});
