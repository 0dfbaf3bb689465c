import { describe, expect, it } from 'vitest';
import { alertLines, logPreview } from './log.js';

const limits = { maxLineChars: 80, lineBudgetChars: 1_000 };

const log = [
  'Starting the reproduction script',
  ...Array.from({ length: 50 }, (_, index) => `DEBUG: step ${index} computed value ${index * 7}`),
  '/testbed/lib/module.py:12: DeprecationWarning: old API',
  ...Array.from({ length: 50 }, (_, index) => `INFO: processed record number ${index}`),
  'Traceback (most recent call last):',
  '  File "reproduce.py", line 9, in <module>',
  '    editor = Editor.objects.create(name="Editor")',
  'sqlite3.OperationalError: no such table: editor',
  'Done.',
];

describe('logPreview', () => {
  it('lists errors before warnings, the last ones first', () => {
    const alerts = alertLines(log).map((index) => log[index]);
    expect(alerts[0]).toBe('sqlite3.OperationalError: no such table: editor');
    expect(alerts.indexOf('/testbed/lib/module.py:12: DeprecationWarning: old API')).toBe(
      alerts.length - 1,
    );
  });

  it('keeps errors with the line before them, warnings, and the first and last lines', () => {
    const preview = logPreview(log, undefined, limits);
    expect(preview).toContain('OperationalError: no such table: editor');
    expect(preview).toContain('editor = Editor.objects.create(name="Editor")');
    expect(preview).toContain('DeprecationWarning: old API');
    expect(preview).toContain('1: Starting the reproduction script');
    expect(preview).toContain(`${log.length}: Done.`);
    expect(preview.split('\n').slice(1).join('\n').length + 1).toBeLessThanOrEqual(
      limits.lineBudgetChars,
    );
  });
});
