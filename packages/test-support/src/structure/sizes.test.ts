/**
 * The size checks on trees held in memory: a file of 321 lines and a function of 81 fail, one
 * line fewer passes, and tests are not counted.
 */
import { describe, expect, it } from 'vitest';
import { checkSizes, lineCount } from './sizes.js';
import { memoryTree } from './source-tree.js';

/** `count` lines of text, each ending with a newline. */
function lines(count: number, text = '// line'): string {
  return `${text}\n`.repeat(count);
}

/** A function of exactly `count` lines (declaration line and closing brace included). */
function functionOfLines(name: string, count: number): string {
  return `export function ${name}(): void {\n${lines(count - 2, '  void 0;')}}\n`;
}

function messages(files: Record<string, string>): string[] {
  return checkSizes(memoryTree(files)).map((violation) => violation.message);
}

describe('checkSizes', () => {
  it('fails on a file of 321 lines and passes one of 320', () => {
    expect(
      messages({
        'packages/core/src/utils/long.ts': lines(321),
        'packages/core/src/utils/fits.ts': lines(320),
      }),
    ).toEqual(['packages/core/src/utils/long.ts has 321 lines (at most 320)']);
  });

  it('fails on a function of 81 lines, of any kind, and passes one of 80', () => {
    const body = lines(79, '    void 0;');
    expect(
      messages({
        'packages/gateway/src/body/a.ts': `${functionOfLines('long', 81)}${functionOfLines('fits', 80)}`,
        'packages/gateway/src/body/b.ts': `export const arrow = (): void => {\n${body}};\n`,
        'packages/gateway/src/body/c.ts': `export class Store {\n  constructor() {\n${body}  }\n}\n`,
        'packages/gateway/src/body/d.ts': `export class Box {\n  get size(): number {\n${body}  }\n}\n`,
        'packages/gateway/src/body/e.ts': `export const table = {\n  handle: function (): void {\n${body}  },\n};\n`,
        'packages/gateway/src/body/f.ts': `export class Run {\n  go(): void {\n${body}  }\n}\n`,
      }),
    ).toEqual([
      'packages/gateway/src/body/a.ts:1 long has 81 lines (at most 80)',
      'packages/gateway/src/body/b.ts:1 arrow has 81 lines (at most 80)',
      'packages/gateway/src/body/c.ts:2 Store constructor has 81 lines (at most 80)',
      'packages/gateway/src/body/d.ts:2 size has 81 lines (at most 80)',
      'packages/gateway/src/body/e.ts:2 handle has 81 lines (at most 80)',
      'packages/gateway/src/body/f.ts:2 go has 81 lines (at most 80)',
    ]);
  });

  it('counts a function from its first token: a comment above it is not counted', () => {
    const source = `/**\n * Explained.\n */\n${functionOfLines('documented', 80)}`;
    expect(messages({ 'packages/cli/src/render/a.ts': source })).toEqual([]);
  });

  it("covers test helpers and the dashboard's page, not tests", () => {
    expect(
      messages({
        'packages/gateway/src/test-utils/helper.ts': lines(321),
        'packages/gateway/web/src/page.ts': lines(321),
        'packages/test-support/src/fake.ts': lines(321),
        'packages/gateway/src/usage/usage.test.ts': lines(400) + functionOfLines('big', 90),
      }),
    ).toEqual([
      'packages/gateway/src/test-utils/helper.ts has 321 lines (at most 320)',
      'packages/gateway/web/src/page.ts has 321 lines (at most 320)',
      'packages/test-support/src/fake.ts has 321 lines (at most 320)',
    ]);
  });
});

describe('lineCount', () => {
  it('counts a last line with or without its newline once', () => {
    expect([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb')]).toEqual([
      0, 1, 1, 2,
    ]);
  });
});
