import { describe, expect, it } from 'vitest';
import { diffPreview } from './diff.js';

const limits = { maxLineChars: 80, lineBudgetChars: 500 };

function hunk(start: number, changes: number): string[] {
  return [
    `@@ -${start},${changes + 6} +${start},${changes + 6} @@ def function_${start}():`,
    '     context line one of the hunk',
    '     context line two of the hunk',
    ...Array.from({ length: changes }, (_, index) => `-    old_value_${start}_${index} = ${index}`),
    ...Array.from({ length: changes }, (_, index) => `+    new_value_${start}_${index} = ${index}`),
    '     context line after the change',
  ];
}

describe('diffPreview', () => {
  it("keeps the file and hunk headers, then each hunk's changes in turn", () => {
    const lines = [
      'diff --git a/pkg/module.py b/pkg/module.py',
      'index 0123456..89abcde 100644',
      '--- a/pkg/module.py',
      '+++ b/pkg/module.py',
      ...hunk(10, 20),
      ...hunk(200, 20),
      ...hunk(400, 20),
    ];
    const preview = diffPreview(lines, undefined, limits);
    expect(preview).toContain('diff --git a/pkg/module.py b/pkg/module.py');
    for (const start of [10, 200, 400]) {
      expect(preview).toContain(`@@ -${start},26 +${start},26 @@`);
      // Every hunk shows its first change, none shows all of them.
      expect(preview).toContain(`-    old_value_${start}_0 = 0`);
      expect(preview).not.toContain(`+    new_value_${start}_19 = 19`);
    }
    expect(preview.split('\n').slice(1).join('\n').length + 1).toBeLessThanOrEqual(
      limits.lineBudgetChars,
    );
  });
});
