/**
 * Small files with one job: no file of the packages' code over 320 lines, no function over 80
 * (`sizes.ts`; the same rule as /work/wt/fnlen.mjs). Reads the source as text.
 */
import { describe, expect, it } from 'vitest';
import { KNOWN_VIOLATIONS } from './known-violations.js';
import { checkSizes, MAX_FILE_LINES, MAX_FUNCTION_LINES } from './sizes.js';
import { repositoryRoot, repositoryTree } from './source-tree.js';
import { compareWithKnown } from './violations.js';

const tree = repositoryRoot();

describe("sizes of the packages' code", () => {
  it(`no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`, () => {
    const { unexpected, fixed } = compareWithKnown(
      checkSizes(repositoryTree(tree)),
      KNOWN_VIOLATIONS,
      ['file-size', 'function-size'],
    );
    expect(unexpected).toEqual([]);
    expect(fixed).toEqual([]);
  });
});
