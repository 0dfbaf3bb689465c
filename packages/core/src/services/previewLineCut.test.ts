import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_PATH_CHARS,
  cutPathChars,
  cutPreviewLength,
  cutPreviewLine,
  isPathDelimiter,
} from './previewLineCut.js';
import { PREVIEW_LIMITS } from './previewLimits.js';
import { budgetedLines } from './previews/headAndTail.js';

const MAX = PREVIEW_LIMITS.maxLineChars;

describe('isPathDelimiter', () => {
  it('is the expression it replaces (white space, quotes, brackets, `,`, `;`) for every code unit', () => {
    const expression = /[\s"'`()[\]{}<>,;]/;
    const differ: number[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      if (isPathDelimiter(code) !== expression.test(String.fromCharCode(code))) differ.push(code);
    }
    expect(differ).toEqual([]);
  });
});

describe('cutPreviewLine', () => {
  it("keeps qwen's full-output path whole (a plain cut left `saved [... 110 chars ...] ll_command_…`)", () => {
    const path =
      '/home/ada/.qwen/tmp/5f0c1d2e3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d/shell_output/run_shell_command_1733068800123.output';
    const line = `Tool output was too long and was cut to 30,000 characters; the full output was saved to: ${path} (use read_file to see it)`;
    const { text } = cutPreviewLine(line, MAX);
    expect(text).toContain(path);
    expect(text).toMatch(
      /^Tool output was too long and w \[\.\.\. \d+ chars \.\.\.\] \/home\/ada\//,
    );
    expect(text.length).toBeLessThan(line.length);
  });

  it('keeps a path the head would cut, and a URL the tail would cut', () => {
    const line = `src/components/dashboard/charts/promptTokensChart.tsx:128:7 ${'x'.repeat(60)} see https://example.com/docs/charts/axes#ticks`;
    const { text, pathChars } = cutPreviewLine(line, MAX);
    expect(
      text.startsWith('src/components/dashboard/charts/promptTokensChart.tsx:128:7 [... '),
    ).toBe(true);
    expect(text.endsWith(' https://example.com/docs/charts/axes#ticks')).toBe(true);
    expect(pathChars).toBeGreaterThan(0);
  });

  it('cuts a long line without paths as before: 30 characters each side of the marker', () => {
    const line = `${'a'.repeat(80)} ${'b'.repeat(80)}`;
    expect(cutPreviewLine(line, MAX)).toEqual({
      text: `${'a'.repeat(30)} [... 101 chars ...] ${'b'.repeat(30)}`,
      pathChars: 0,
    });
  });

  it('never cuts a short line in the middle: a diagnostic keeps its code and its name', () => {
    const line =
      "src/pkg1/module_001.ts:4:7 - warning TS6133: 'unusedHelper' is declared but its value is never read.";
    expect(line.length).toBeGreaterThan(MAX);
    expect(cutPreviewLine(line, MAX)).toEqual({ text: line, pathChars: line.length - MAX });
    // Past about one and a half times the limit, what a cut leaves out is worth its marker.
    const longer = `${line} ${line}`;
    expect(cutPreviewLine(longer, MAX).text).toContain(' chars ...] ');
  });

  it('keeps the line whole when a kept path would leave almost nothing out', () => {
    const line = `cat /var/log/toolmask/gateway/conversations/2026-12-01/a1b2c3d4e5f6.jsonl && echo done`;
    expect(line.length).toBeGreaterThan(MAX);
    expect(cutPreviewLine(line, MAX)).toEqual({ text: line, pathChars: line.length - MAX });
  });

  it('cuts a path longer than MAX_PATH_CHARS like any text, and a giant line in bounded time', () => {
    const long = `/${'segment/'.repeat(Math.ceil(MAX_PATH_CHARS / 8) + 5)}end.txt`;
    const { text, pathChars } = cutPreviewLine(`read ${long} now`, MAX);
    expect(pathChars).toBe(0);
    expect(text.length).toBeLessThan(100);
    const giant = `/${'a/'.repeat(5_000_000)}`;
    expect(cutPreviewLine(giant, MAX).pathChars).toBe(0);
  });
});

describe('budgetedLines with paths kept whole', () => {
  it('pays for the characters a kept path adds: the preview stays within its budget', () => {
    const line = (index: number) =>
      `${index}: wrote ${'/work/project/build/artifacts/'.repeat(2)}module_${index}/bundle.min.js and its map file too ${'.'.repeat(20)}`;
    const text = Array.from({ length: 200 }, (_, index) => line(index)).join('\n');
    const preview = budgetedLines(text, 3, 2);
    const shown = preview.split('\n').filter((row) => !row.startsWith('[... '));
    const used = shown.reduce((sum, row) => sum + row.length + 1, 0);
    // Each shown line holds its path whole, and the lines paid for them.
    for (const row of shown) expect(row).toMatch(/\/bundle\.min\.js/);
    expect(used).toBeLessThanOrEqual(PREVIEW_LIMITS.lineBudgetChars + 2 * 30);
  });
});

describe('cutPreviewLength and cutPathChars (issue 30: a line weighed, not written)', () => {
  it('are the length and the path characters of the cut line (property)', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom(
        '/',
        '\\',
        '.',
        '..',
        ' ',
        '\t',
        '"',
        '(',
        '\ud83d\ude00',
        '\ud800',
        '\udc00',
      ),
      fc.constantFrom(
        '/home/user/project/src/module/file.py',
        'C:\\Users\\a\\b.txt',
        'https://x.org/a/b',
      ),
      fc.constantFrom('a'.repeat(120), '/x'.repeat(150), '1234567890'.repeat(5)),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }),
        fc.constantFrom(80, 40, 21, 20, 0, -5, 200),
        (pieces, maxChars) => {
          const line = pieces.join('');
          const cut = cutPreviewLine(line, maxChars);
          expect(cutPreviewLength(line, maxChars)).toBe(cut.text.length);
          expect(cutPathChars(line, maxChars)).toBe(cut.pathChars);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
