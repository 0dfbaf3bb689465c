import { describe, expect, it } from 'vitest';
import { runOutcomePreview, statusLines } from './runOutcome.js';

const limits = { maxLineChars: 80, lineBudgetChars: 500 };

const pytest = [
  '============================= test session starts ==============================',
  'collected 40 items',
  '',
  'tests/test_models.py ....F....................................F',
  '',
  '=================================== FAILURES ===================================',
  '________________________________ test_delete _________________________________',
  '',
  '    def test_delete():',
  '        collector = Collector(using="default")',
  '>       assert collector.can_fast_delete(objs)',
  'E       AssertionError: assert False',
  ...Array.from(
    { length: 60 },
    (_, index) => `        frame_variable_${index} = compute(${index})`,
  ),
  '=========================== short test summary info ============================',
  'FAILED tests/test_models.py::test_delete - AssertionError: assert False',
  'FAILED tests/test_models.py::test_update - KeyError: 3',
  '========================= 2 failed, 38 passed in 1.23s =========================',
];

describe('runOutcomePreview', () => {
  it('finds the summary, the failing tests and the assertion lines, in that order', () => {
    const status = statusLines(pytest).map((index) => pytest[index]);
    expect(status[0]).toMatch(/2 failed, 38 passed/);
    expect(status.slice(1, 4)).toEqual(
      expect.arrayContaining([
        'FAILED tests/test_models.py::test_update - KeyError: 3',
        expect.stringMatching(/_ test_delete _/),
      ]),
    );
    expect(status).toContain('E       AssertionError: assert False');
  });

  it('shows the status first, then the shortest informative lines, within the budget', () => {
    const preview = runOutcomePreview(pytest, undefined, limits);
    expect(preview).toContain('2 failed, 38 passed');
    expect(preview).toContain('FAILED tests/test_models.py::test_update');
    expect(preview).toContain('collected 40 items');
    const body = preview.split('\n').slice(1);
    expect(body.join('\n').length + 1).toBeLessThanOrEqual(limits.lineBudgetChars);
    // In the output's order, each with its number.
    const numbers = body.map((line) => Number(line.split(':')[0]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  });
});
