/**
 * The preview of a test or build run: its status first, then as much of the rest as fits.
 * - Status, within `STATUS_SHARE` of the budget, in this order: the summary lines (pytest's
 *   `==== 2 failed, 40 passed ====`, unittest's `Ran 12 tests` and `FAILED (failures=2)`, a
 *   runner's `OK`), the failing tests' names (`FAILED tests/x.py::test_y`, `FAIL: test_y`, pytest's
 *   `____ test_y ____` headers), then assertion and error lines (`E   assert 1 == 2`,
 *   `AssertionError: ...`, `TypeError: ...`), the last ones first within each group.
 * - Then informative lines, the shortest first, wherever they are (lineSelection.ts): the code
 *   lines of the tracebacks, which agents quote again more than the error lines themselves.
 *
 * Why the share (a one-off analysis of the shared traces, issue 25): the lines agents quote
 * again from a test run are mostly the test's and the traceback's code, rarely the long
 * assertion lines; a third of the budget keeps the status every later turn needs, the rest shows
 * as many lines as fit.
 */
import type { ToolCall } from './toolCall.js';
import { isInformative, selectLines, type SelectionLimits } from './lineSelection.js';

/** Share of the budget the status lines may take. */
const STATUS_SHARE = 0.35;

const SUMMARY =
  /^=+ .*\b(?:passed|failed|error|errors|skipped|xfailed|xpassed|warnings?|deselected)\b.* =+$|^Ran \d+ tests? in |^(?:OK|FAILED)(?: \(.*\))?$|^Tests? (?:run|result)s?:|^\d+ (?:passed|failed|tests? (?:passed|failed))\b/;
const FAILING =
  /^(?:FAILED|ERROR|FAIL:|ERROR:)\s|::\S+ (?:FAILED|ERROR)\b|^_{3,} .+ _{3,}$|^--- FAIL: /;
const ASSERTION = /^E\s{2,}\S|^\s*(?:[\w.]*(?:Error|Exception)|AssertionError)\b(?::|$)/;

/** The status lines of a run, in the order they are kept (see the module comment). */
export function statusLines(lines: readonly string[]): number[] {
  const groups: number[][] = [[], [], []];
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index] as string;
    const text = line.trim();
    if (SUMMARY.test(text)) groups[0]?.push(index);
    else if (FAILING.test(text)) groups[1]?.push(index);
    else if (ASSERTION.test(line)) groups[2]?.push(index);
  }
  return groups.flat();
}

/** The preview of a test or build run's lines; `firstLine` is the number of `lines[0]`. */
export function runOutcomePreview(
  lines: readonly string[],
  _call: ToolCall | undefined,
  limits: SelectionLimits,
  firstLine = 1,
): string {
  const first: number[] = [];
  let statusChars = 0;
  for (const index of statusLines(lines)) {
    const chars = Math.min((lines[index] as string).length, limits.maxLineChars) + 8;
    if (statusChars + chars > STATUS_SHARE * limits.lineBudgetChars) continue;
    statusChars += chars;
    first.push(index);
  }
  return selectLines(
    lines,
    { first, worth: (index) => (isInformative(lines[index] as string, false) ? 1 : 0) },
    limits,
    firstLine,
  );
}
