import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { backtickIdentifiers } from './turnWords.js';

/** The expressions the scan replaces (issue 30). */
const byExpressions = {
  backtick: (text: string) =>
    [...text.matchAll(/`([^`\n]{1,80})`/g)].flatMap((quoted) =>
      [...(quoted[1] as string).matchAll(/[A-Za-z_$][\w$]{2,}/g)].map((word) => word[0]),
    ),
};

/** Text made of what these expressions care about: letters of both cases, digits, `_`, `$`, `` ` ``. */
const turnText = fc
  .array(
    fc.oneof(
      fc.constantFrom('a', 'B', 'z', 'Q', '0', '7', '_', '$', '`', '\n', ' ', '.', '(', 'é', '中'),
      fc.constantFrom('snake_case', 'camelCase', '__init__', 'x1_y', 'Patch', '`draw_all`', '``'),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 120 },
  )
  .map((pieces) => pieces.join(''));

describe('backtickIdentifiers (issue 30)', () => {
  it('finds the identifiers in backticks the expressions find, in order (property)', () => {
    fc.assert(
      fc.property(turnText, (text) => {
        expect(backtickIdentifiers(text)).toEqual(byExpressions.backtick(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps to the spans the expression allows: 1 to 80 code units, no new line', () => {
    expect(backtickIdentifiers(`see \`draw_all\`, \`x\` and \`${'b'.repeat(80)}\``)).toEqual([
      'draw_all',
      'b'.repeat(80),
    ]);
    for (const text of [
      `\`${'a'.repeat(81)}\` \`${'b'.repeat(80)}\``,
      '`` `abc` `de\nfgh` `ijk`',
      '`a\n`bcd`',
    ]) {
      expect(backtickIdentifiers(text)).toEqual(byExpressions.backtick(text));
    }
  });
});
