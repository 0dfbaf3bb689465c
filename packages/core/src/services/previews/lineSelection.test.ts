import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MIN_INFORMATIVE_CHARS,
  hasOwnNumbering,
  isInformative,
  selectLines,
  spreadOrder,
} from './lineSelection.js';

const limits = { maxLineChars: 80, lineBudgetChars: 120 };
const everyLine = () => 1;

describe('selectLines', () => {
  it('shows every line, unnumbered, when they all fit', () => {
    expect(selectLines(['a', 'b', 'c'], { worth: everyLine }, limits)).toBe('a\nb\nc');
  });

  it('numbers the kept lines with their line in the saved output, after one marker line', () => {
    const lines = Array.from({ length: 40 }, (_, index) => `statement number ${index + 1}`);
    const preview = selectLines(lines, { worth: everyLine }, limits, 3).split('\n');
    expect(preview[0]).toMatch(/^\[\.\.\. \d+ of 40 lines omitted; kept lines numbered \.\.\.\]$/);
    expect(preview[1]).toBe('3: statement number 1');
    expect(preview.slice(1).join('\n').length + 1).toBeLessThanOrEqual(limits.lineBudgetChars);
  });

  it("keeps an output's own numbers, without their padding", () => {
    const lines = Array.from(
      { length: 40 },
      (_, index) => `${String(index + 200).padStart(6)}\tx = ${index}  # long`,
    );
    expect(hasOwnNumbering(lines)).toBe(true);
    const preview = selectLines(lines, { worth: everyLine }, limits).split('\n');
    expect(preview[1]).toBe('200\tx = 0  # long');
  });

  it("takes the caller's word on the numbering (a kind that found it out need not count it again)", () => {
    const lines = Array.from(
      { length: 40 },
      (_, index) => `${String(index + 200).padStart(6)}\tx = ${index}  # long`,
    );
    const told = selectLines(lines, { worth: everyLine, numbered: false }, limits).split('\n');
    expect(told[1]).toBe(`1: ${lines[0] as string}`);
    const counted = selectLines(lines, { worth: everyLine }, limits);
    expect(selectLines(lines, { worth: everyLine, numbered: true }, limits)).toBe(counted);
  });

  it('keeps the first lines in their order while they fit, then the most worth per character', () => {
    const lines = [
      'a long line that says quite a lot about nothing in particular at all',
      'short line 1',
      'another long line that goes on and on about nothing much at all',
      'short line 2',
      'the last line, which is also rather long and says nothing either',
    ];
    const preview = selectLines(lines, { first: [4], worth: everyLine }, limits);
    expect(preview).toContain('5: the last line');
    expect(preview).toContain('2: short line 1');
    expect(preview).toContain('4: short line 2');
    expect(preview).not.toContain('1: a long line');
    // Worth 0: never shown, even when it would fit.
    const none = selectLines(lines, { worth: (index) => (index === 1 ? 0 : 1) }, limits);
    expect(none).not.toContain('short line 1');
  });

  it('stays within the budget whatever the lines (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 200 }), { maxLength: 60 }),
        fc.integer({ min: 0, max: 400 }),
        (lines, budget) => {
          const preview = selectLines(
            lines,
            { first: [0, lines.length - 1], worth: everyLine },
            {
              maxLineChars: 80,
              lineBudgetChars: budget,
            },
          );
          const shown = preview.split('\n');
          const body = shown[0]?.startsWith('[... ') ? shown.slice(1) : shown;
          if (shown[0]?.startsWith('[... ')) {
            expect(body.reduce((sum, line) => sum + line.length + 1, 0)).toBeLessThanOrEqual(
              budget,
            );
          }
        },
      ),
    );
  });
});

describe('helpers', () => {
  it('a line is informative from MIN_INFORMATIVE_CHARS non-blank characters, its number aside', () => {
    expect(isInformative('    return result', false)).toBe(true);
    expect(isInformative('   12\t    pass', true)).toBe(false);
    expect(isInformative(`${'x'.repeat(MIN_INFORMATIVE_CHARS - 1)}`, false)).toBe(false);
  });

  it('spreadOrder covers the list evenly in every prefix', () => {
    expect(spreadOrder([0, 1, 2, 3, 4, 5, 6, 7])).toEqual([0, 4, 2, 6, 1, 3, 5, 7]);
    expect(spreadOrder([])).toEqual([]);
    const order = spreadOrder(Array.from({ length: 100 }, (_, index) => index));
    expect(new Set(order).size).toBe(100);
  });
});
