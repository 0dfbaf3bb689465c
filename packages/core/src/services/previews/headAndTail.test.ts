import { describe, expect, it, vi } from 'vitest';
import { PREVIEW_LIMITS } from '../previewLimits.js';
import { GIANT_TEXT_UNITS, budgetedLines, headTailLines } from './headAndTail.js';

const numbered = (count: number, prefix = 'line') =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index + 1}`).join('\n');

describe('headTailLines', () => {
  it('leaves short texts whole', () => {
    expect(headTailLines('a\nb\nc', 2, 2)).toBe('a\nb\nc');
  });
});

describe('giant outputs (issue 14, item 4)', () => {
  /** What a preview of head and tail lines is, stated with a plain split. */
  function splitPreview(text: string, head: number, tail: number): string[] {
    const lines = text.split('\n');
    return [...lines.slice(0, head), ...lines.slice(-tail)];
  }

  it('previews a giant text from its first and last lines, counting it without splitting it', () => {
    const body = numbered(GIANT_TEXT_UNITS / 8);
    const text = `${'é'.repeat(300)}\n${body}\nlast line\n`;
    expect(text.length).toBeGreaterThan(GIANT_TEXT_UNITS);
    const split = vi.spyOn(String.prototype, 'split');
    const preview = headTailLines(text, 3, 2);
    const splitsOfText = split.mock.contexts.filter((context) => String(context).length > 1e6);
    split.mockRestore();
    expect(splitsOfText).toEqual([]);
    const total = text.split('\n').length;
    const [first, second, third, fourth, fifth] = splitPreview(text, 3, 2);
    expect(preview.split('\n')).toEqual([
      `${'é'.repeat(30)} [... 240 chars ...] ${'é'.repeat(30)}`,
      second,
      third,
      `[... ${(total - 5).toLocaleString('en-US')} of ${total.toLocaleString('en-US')} lines omitted ...]`,
      fourth,
      fifth,
    ]);
    expect(first).toBe('é'.repeat(300));
  });
});

describe('budgetedLines', () => {
  const limits = { ...PREVIEW_LIMITS, lineBudgetChars: 60, maxLineChars: 80 };

  it('keeps the head and tail lines, then more from both ends while the budget lasts', () => {
    // "line N" costs 7 or 8 characters with its newline: 2 + 2 kept, then 4 more fit in 60.
    expect(budgetedLines(numbered(30), 2, 2, limits)).toBe(
      ['line 1', 'line 2', 'line 3', 'line 4', '[... 22 of 30 lines omitted ...]']
        .concat(['line 27', 'line 28', 'line 29', 'line 30'])
        .join('\n'),
    );
  });

  it('always keeps the head and tail lines, whatever the budget', () => {
    const long = Array.from({ length: 10 }, (_, index) => `${index}`.repeat(200)).join('\n');
    const preview = budgetedLines(long, 1, 1, { ...limits, lineBudgetChars: 10 });
    expect(preview.split('\n')).toHaveLength(3);
    expect(preview).toContain('[... 8 of 10 lines omitted ...]');
  });

  it('counts a line by its cut length and shows short texts whole', () => {
    expect(budgetedLines('a\nb\nc', 1, 1, limits)).toBe('a\nb\nc');
    const wide = ['line 1', 'x'.repeat(500), 'y'.repeat(500), 'line 2', 'line 3'].join('\n');
    // A 500-character line costs 81 characters once cut: over the budget, so it stops that side.
    expect(budgetedLines(wide, 1, 1, limits)).toBe(
      ['line 1', '[... 2 of 5 lines omitted ...]', 'line 2', 'line 3'].join('\n'),
    );
  });

  it('shows a single left-out line instead of a marker, and matches headTailLines at zero', () => {
    expect(budgetedLines(numbered(5), 2, 2, { ...limits, lineBudgetChars: 0 })).toBe(numbered(5));
    const zero = { ...PREVIEW_LIMITS, lineBudgetChars: 0 };
    expect(budgetedLines(numbered(40), 3, 2, zero)).toBe(headTailLines(numbered(40), 3, 2, zero));
  });
});
