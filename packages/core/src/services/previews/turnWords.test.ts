import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { backtickIdentifiers, forEachCodeWord, forEachQuotedIdentifier } from './turnWords.js';

/** The expressions the scan replaces (issue 30). */
const byExpressions = {
  backtick: (text: string) =>
    [...text.matchAll(/`([^`\n]{1,80})`/g)].flatMap((quoted) =>
      [...(quoted[1] as string).matchAll(/[A-Za-z_$][\w$]{2,}/g)].map((word) => word[0]),
    ),
  codeWords: (text: string) =>
    [...text.matchAll(/\b[A-Za-z_]*(?:_[A-Za-z0-9]+|[a-z][A-Z])\w*/g)].map((word) => word[0]),
  quoted: (text: string, end: number) =>
    [...text.slice(0, end).matchAll(/(["'])((?:(?!\1).){1,200})\1/g)].flatMap((quoted) =>
      [...(quoted[2] as string).matchAll(/[A-Za-z_$][\w$]{2,}/g)].map((word) => word[0]),
    ),
};

/** What `visit` is given, all of it (`limit` undefined) or until it has `limit` words. */
function collected(scan: (visit: (word: string) => boolean) => void, limit?: number): string[] {
  const found: string[] = [];
  scan((word) => found.push(word) !== limit);
  return found;
}

/** Text made of what these expressions care about: letters of both cases, digits, `_`, `$`, `` ` ``. */
const turnText = fc
  .array(
    fc.oneof(
      fc.constantFrom('a', 'B', 'z', 'Q', '0', '7', '_', '$', '`', '\n', ' ', '.', '(', 'é', '中'),
      fc.constantFrom('"', "'", '\r', '\u2028', '\ud800', 'x'.repeat(199), 'y'.repeat(200)),
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

describe('forEachCodeWord (issue 30)', () => {
  it('finds the words that look like code the expression finds, in order (property)', () => {
    fc.assert(
      fc.property(turnText, (text) => {
        expect(collected((visit) => forEachCodeWord(text, visit))).toEqual(
          byExpressions.codeWords(text),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('takes a word whole or not at all, and stops when told', () => {
    const text = 'x_1 ab1_cd snake_case2x camelCase _a 9_ab getX __ a_ ok_ é_x';
    expect(collected((visit) => forEachCodeWord(text, visit))).toEqual(
      byExpressions.codeWords(text),
    );
    expect(collected((visit) => forEachCodeWord(text, visit))).toEqual([
      'x_1',
      'snake_case2x',
      'camelCase',
      '_a',
      'getX',
      '_x',
    ]);
    expect(collected((visit) => forEachCodeWord(text, visit), 2)).toEqual(['x_1', 'snake_case2x']);
  });
});

describe('forEachQuotedIdentifier (issue 30)', () => {
  it('finds the identifiers of the quoted patterns the expressions find, in order (property)', () => {
    fc.assert(
      fc.property(turnText, fc.nat({ max: 400 }), (text, end) => {
        const bound = Math.min(text.length, end);
        expect(collected((visit) => forEachQuotedIdentifier(text, bound, visit))).toEqual(
          byExpressions.quoted(text, bound),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps to patterns of 1 to 200 code units on one line, within the bound', () => {
    const long = `'${'a'.repeat(200)}' "${'b'.repeat(201)}" 'abc\ndef' "" "ghi" 'jkl`;
    expect(collected((visit) => forEachQuotedIdentifier(long, long.length, visit))).toEqual([
      'a'.repeat(200),
      'ghi',
    ]);
    expect(collected((visit) => forEachQuotedIdentifier(long, long.length, visit))).toEqual(
      byExpressions.quoted(long, long.length),
    );
    expect(collected((visit) => forEachQuotedIdentifier('"abc" "def"', 9, visit))).toEqual(['abc']);
  });
});
