import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatCount } from '../../utils/formatCount.js';
import { cutPreviewLine } from '../previewLineCut.js';
import {
  MIN_INFORMATIVE_CHARS,
  OWN_NUMBER,
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

/** selectLines as it was before issue 30 cut its work per line: the reference. */
function referenceSelectLines(
  lines: readonly string[],
  selection: { first?: readonly number[]; worth: (index: number) => number },
  limits: { maxLineChars: number; lineBudgetChars: number },
  firstLine = 1,
): string {
  const numbered = hasOwnNumbering(lines);
  const cut = (text: string) => cutPreviewLine(text, limits.maxLineChars).text;
  const plain = lines.map(cut);
  if (plain.reduce((sum, line) => sum + line.length + 1, 0) <= limits.lineBudgetChars) {
    return plain.join('\n');
  }
  const shown = (index: number): string => {
    const line = lines[index] as string;
    const own = numbered ? OWN_NUMBER.exec(line) : null;
    if (own) return own[0].trimStart() + cut(line.slice(own[0].length));
    return `${firstLine + index}: ${plain[index] as string}`;
  };
  const kept = new Uint8Array(lines.length);
  let used = 0;
  let keptCount = 0;
  const keep = (index: number) => {
    if (index < 0 || index >= lines.length || kept[index] === 1) return;
    const cost = shown(index).length + 1;
    if (used + cost > limits.lineBudgetChars) return;
    kept[index] = 1;
    keptCount++;
    used += cost;
  };
  for (const index of selection.first ?? []) keep(index);
  const worths = new Float64Array(lines.length);
  const candidates: number[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (kept[index] === 1) continue;
    const worth = selection.worth(index);
    if (worth > 0) {
      worths[index] = worth / (shown(index).length + 1);
      candidates.push(index);
    }
  }
  candidates.sort((a, b) => (worths[b] as number) - (worths[a] as number) || a - b);
  for (const index of candidates) keep(index);
  const body: string[] = [];
  for (let index = 0; index < lines.length; index++) if (kept[index] === 1) body.push(shown(index));
  const omitted = lines.length - keptCount;
  if (omitted === 0) return body.join('\n');
  return [
    `[... ${formatCount(omitted)} of ${formatCount(lines.length)} lines omitted; kept lines numbered ...]`,
    ...body,
  ].join('\n');
}

describe('selectLines against its reference (issue 30)', () => {
  it('keeps the same lines, in the same order, whatever the lines and worths (property)', () => {
    const line = fc.oneof(
      fc.string({ maxLength: 140 }),
      fc.constantFrom('', '   12\tx = 1', '7: def f():', 'src/a/b.py:12: error', 'x'.repeat(200)),
      fc
        .tuple(fc.integer({ min: 1, max: 999 }), fc.string({ maxLength: 60 }))
        .map(([number, text]) => `${String(number).padStart(6)}\t${text}`),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 80 }),
        fc.array(fc.constantFrom(0, 1, 2, 0.5, 3), { minLength: 80, maxLength: 80 }),
        fc.array(fc.integer({ min: -2, max: 85 }), { maxLength: 6 }),
        fc.integer({ min: 0, max: 600 }),
        fc.integer({ min: 1, max: 300 }),
        (lines, worths, first, budget, firstLine) => {
          const selection = { first, worth: (index: number) => worths[index] as number };
          const limits = { maxLineChars: 80, lineBudgetChars: budget };
          expect(selectLines(lines, selection, limits, firstLine)).toBe(
            referenceSelectLines(lines, selection, limits, firstLine),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps the same lines when every candidate is worth the same, long lines and paths included (property)', () => {
    const line = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ minLength: 81, maxLength: 300 }),
      fc.constantFrom(
        `see ${'/very/long/path/'.repeat(8)}file.py for the rest of the long line here`,
        `${'a'.repeat(60)} \ud83d\ude00 ${'b'.repeat(60)}`,
        '\tindented\tby tabs, long enough to count as a line',
        'a short one',
      ),
      fc
        .tuple(fc.integer({ min: 1, max: 99_999 }), fc.string({ maxLength: 120 }))
        .map(([number, text]) => `${String(number).padStart(6)}\t${text}`),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 120 }),
        fc.array(fc.constantFrom(0, 1), { minLength: 120, maxLength: 120 }),
        fc.constantFrom(1, 2, 0.25),
        fc.array(fc.integer({ min: 0, max: 119 }), { maxLength: 4 }),
        fc.integer({ min: 0, max: 1_200 }),
        fc.integer({ min: 1, max: 99_990 }),
        (lines, takes, worth, first, budget, firstLine) => {
          const selection = { first, worth: (index: number) => (takes[index] as number) * worth };
          const limits = { maxLineChars: 80, lineBudgetChars: budget };
          expect(selectLines(lines, selection, limits, firstLine)).toBe(
            referenceSelectLines(lines, selection, limits, firstLine),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('selectLines, the numbers of the kept lines costed without writing them (issue 30)', () => {
  const lines = ['a'.repeat(12), 'b'.repeat(12), 'c'.repeat(12)];
  const select = (firstLine: number, lineBudgetChars: number) =>
    selectLines(lines, { worth: everyLine }, { maxLineChars: 80, lineBudgetChars }, firstLine);

  it('pays for one more digit from the line whose number has it (99, then 100)', () => {
    // 99: 17 characters with its new line, 100 and 101: 18 each.
    expect(select(99, 34)).toBe(
      `[... 2 of 3 lines omitted; kept lines numbered ...]\n99: ${lines[0]}`,
    );
    expect(select(99, 35)).toBe(
      `[... 1 of 3 lines omitted; kept lines numbered ...]\n99: ${lines[0]}\n100: ${lines[1]}`,
    );
    expect(select(98, 34)).toBe(
      `[... 1 of 3 lines omitted; kept lines numbered ...]\n98: ${lines[0]}\n99: ${lines[1]}`,
    );
  });

  it('counts the numbers one by one where they are not safe integers', () => {
    const last = Number.MAX_SAFE_INTEGER;
    // 16 digits, `: `, 12 characters and a new line: 31 each, one fits.
    expect(select(last - 1, 38)).toBe(
      `[... 2 of 3 lines omitted; kept lines numbered ...]\n${last - 1}: ${lines[0]}`,
    );
  });
});
