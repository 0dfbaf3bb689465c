/**
 * The preview of a program's log (what a script printed, tracebacks included): errors and
 * warnings first, then the first and last lines, then as much of the rest as fits.
 * - Errors (`Traceback`, `ValueError`, `...Exception`, `FAILED`, `fatal`, `panic`), then warnings
 *   (`warning`, `deprecated`), the last ones first, each with the line before it (the traceback's
 *   code line above the error, the context a warning is about), within `ALERT_SHARE` of the budget;
 * - the first line and the last line (what ran, how it ended);
 * - then informative lines, the shortest first, wherever they are (lineSelection.ts).
 */
import type { ToolCall } from './toolCall.js';
import { isInformative, selectLines, type SelectionLimits } from './lineSelection.js';

/** Share of the budget errors and warnings may take. */
const ALERT_SHARE = 0.3;

const ERROR =
  /(?:Error|Exception)\b|\b(?:FAIL(?:ED|URE)?|ERROR|Traceback|[Aa]ssert(?:ion)?|panic|[Ff]atal)\b|^E\s{2,}|^\s*>\s/;
const WARNING = /\b(?:[Ww]arning|WARNING|[Ww]arn|WARN|[Dd]eprecat\w*)/;

/** Error lines, then warning lines, of `lines`, the last ones first. */
export function alertLines(lines: readonly string[]): number[] {
  const errors: number[] = [];
  const warnings: number[] = [];
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index] as string;
    if (ERROR.test(line)) errors.push(index);
    else if (WARNING.test(line)) warnings.push(index);
  }
  return [...errors, ...warnings];
}

/** The preview of a log's lines; `firstLine` is the number of `lines[0]` in the saved output. */
export function logPreview(
  lines: readonly string[],
  _call: ToolCall | undefined,
  limits: SelectionLimits,
  firstLine = 1,
): string {
  const alerts: number[] = [];
  const taken = new Set<number>();
  let alertChars = 0;
  for (const alert of alertLines(lines)) {
    for (const index of [alert, alert - 1]) {
      if (index < 0 || taken.has(index)) continue;
      const chars = Math.min((lines[index] as string).length, limits.maxLineChars) + 8;
      if (alertChars + chars > ALERT_SHARE * limits.lineBudgetChars) continue;
      alertChars += chars;
      taken.add(index);
      alerts.push(index);
    }
  }
  return selectLines(
    lines,
    {
      first: [0, lines.length - 1, ...alerts],
      worth: (index) => (isInformative(lines[index] as string, false) ? 1 : 0),
    },
    limits,
    firstLine,
  );
}
