/**
 * Small files with one job: no file of the packages' code over 320 lines, no function over 80
 * (`sizes.ts`; the same rule as /work/wt/fnlen.mjs). Reads the source as text.
 */
import { describe, expect, it } from 'vitest';
import { checkSizes, MAX_FILE_LINES, MAX_FUNCTION_LINES } from './sizes.js';
import { repositoryRoot, repositoryTree } from './source-tree.js';
import { messagesOf } from './violations.js';

const tree = repositoryRoot();

describe("sizes of the packages' code", () => {
  it(`no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`, () => {
    expect(messagesOf(checkSizes(repositoryTree(tree)), ['file-size', 'function-size'])).toEqual(
      [],
    );
  });
});
