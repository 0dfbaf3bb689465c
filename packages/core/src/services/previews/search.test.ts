import { describe, expect, it } from 'vitest';
import { searchEntries, searchPreview } from './search.js';

const limits = { maxLineChars: 80, lineBudgetChars: 400 };

describe('searchPreview', () => {
  it("keeps every match's location, each path once, and the texts that fit whole", () => {
    const lines = [
      ...Array.from(
        { length: 12 },
        (_, index) =>
          `django/db/models/deletion.py:${100 + index * 10}:        dependencies${'.extend(self._get_dependencies_for_foreign_key(field))'.repeat(index % 2)}`,
      ),
      'django/db/migrations/autodetector.py:486:    dependencies = []',
    ];
    const preview = searchPreview(lines, undefined, limits).split('\n');
    expect(preview[0]).toMatch(/^\[13 lines found, 13 matching: every match's location kept/);
    expect(preview.filter((line) => line === 'django/db/models/deletion.py')).toHaveLength(1);
    for (let index = 0; index < 12; index++) {
      expect(preview.some((line) => line.startsWith(`${100 + index * 10}:`))).toBe(true);
    }
    expect(preview).toContain('486: dependencies = []');
    // A text is whole or absent, never cut.
    for (const line of preview.slice(1)) expect(line).not.toContain('…');
  });

  it("shows a context line only with its text, and a one-file search's numbers as they are", () => {
    const lines = ['12:def delete(self):', '13-    # a comment that runs on and on', '14-    pass'];
    expect(searchEntries(lines)).toHaveLength(3);
    const preview = searchPreview(lines, undefined, { maxLineChars: 80, lineBudgetChars: 40 });
    expect(preview).toContain('12: def delete(self):');
    expect(preview).not.toContain('13-');
  });

  it('previews a search that is not a list of locations as a source read', () => {
    const lines = Array.from(
      { length: 60 },
      (_, index) => `    statement_${index} = value(${index})`,
    );
    const preview = searchPreview(
      lines,
      { args: { command: 'grep -A 60 "class Widget" w.py' } },
      limits,
    );
    expect(preview).toMatch(/^\[\.\.\. \d+ of 60 lines omitted; kept lines numbered/);
    expect(searchEntries(['a.py', 'b.py'])).toBeUndefined();
  });
});
