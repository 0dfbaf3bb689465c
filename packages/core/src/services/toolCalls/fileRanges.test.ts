import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalizePath } from './fileRanges.js';

/** normalizePath as it was before it skipped `path.posix.normalize` for normal paths (issue 30). */
function referenceNormalizePath(raw: string, directory?: string): string | undefined {
  if (raw.length === 0 || raw.length > 4_096 || raw.includes('\u0000')) return undefined;
  const joined = raw.startsWith('/') || directory === undefined ? raw : `${directory}/${raw}`;
  const normalized = path.posix.normalize(joined);
  if (normalized === '.' || normalized === '/' || normalized.startsWith('../')) return undefined;
  if (normalized === '..') return undefined;
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}

/** Paths made of segments that normalize (`.`, `..`, empty) and segments that do not. */
const pathText = fc
  .array(
    fc.tuple(
      fc.constantFrom('a', 'src', 'b.py', '.', '..', '...', '.git', '', 'é', ' '),
      fc.constantFrom('/', '//', ''),
    ),
    { maxLength: 10 },
  )
  .map((pieces) => pieces.map(([segment, separator]) => segment + separator).join(''));

describe('normalizePath', () => {
  it('is the normal form path.posix.normalize gives, whatever the path and directory (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(pathText, fc.string({ maxLength: 20 })),
        fc.option(fc.oneof(pathText, fc.constantFrom('/testbed', 'repo/sub', '/a/./b')), {
          nil: undefined,
        }),
        (raw, directory) => {
          expect(normalizePath(raw, directory)).toBe(referenceNormalizePath(raw, directory));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('leaves a normal path as it is and normalizes the others', () => {
    expect(normalizePath('src/a.py', '/testbed')).toBe('/testbed/src/a.py');
    expect(normalizePath('./src//a.py', '/testbed/')).toBe('/testbed/src/a.py');
    expect(normalizePath('../x', 'repo')).toBe('x');
    expect(normalizePath('..')).toBeUndefined();
    expect(normalizePath('a/..')).toBeUndefined();
    expect(normalizePath('dir/')).toBe('dir');
    expect(normalizePath('.hidden/..data')).toBe('.hidden/..data');
  });
});
