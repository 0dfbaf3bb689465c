/**
 * How a tool's output went, read from the response alone: failed (an `error` field, a first line
 * that says so in one of the hosts' words, a shell result's non-zero `Exit Code`) or cut short by
 * the host (a truncation marker in its head). A later call counts as a replacement only when its
 * output shows it worked: a read again that failed or was cut short covers nothing, a failed edit
 * edits nothing. Bounded: only the head and the tail of an output are looked at.
 */

/** How a later output went: it failed, or the host cut it short. */
export interface OutputStatus {
  failed: boolean;
  truncated: boolean;
}

/** How far into an output its status markers are looked for. */
const STATUS_HEAD_CHARS = 400;
const EXIT_CODE_TAIL_CHARS = 1_024;
/**
 * What the hosts write at the head of an output they cut short: `was too long`, `has been
 * truncated`, `too large to display`, `Output too large`, `(truncated`, `truncated]`,
 * `characters elided`, `<output_head>` (one expression: one native scan of the head, issue 30).
 */
const TRUNCATION_MARKER =
  /was too long|has been truncated|too large to display|Output too large|\(truncated|truncated\]|characters elided|<output_head>/;
/** How the first line of a failed read or edit starts (after a shell result's `Output: `). */
const FAILURE_START = /^(?:Error|error|ERROR|Failed|failed|usage:|Usage:|Cannot)/;
/** What the first line of a failed read or edit says anywhere, in the hosts' words. */
const FAILURE_MARKER =
  /No such file or directory|: Is a directory|Permission denied|File not found|does not exist|No replacement was performed|did not appear verbatim|already exists|tool_use_error/;
const SHELL_OUTPUT_PREFIX = 'Output:';

/**
 * The status of a tool's response: failed (an `error` field, a first line that says so, a shell
 * result's non-zero `Exit Code`) or cut short by the host (a marker in its head). Bounded: only
 * the first `STATUS_HEAD_CHARS` and the last `EXIT_CODE_TAIL_CHARS` characters are looked at.
 */
export function outputStatus(response: unknown): OutputStatus {
  if (response === null || typeof response !== 'object' || Array.isArray(response)) {
    return { failed: true, truncated: false };
  }
  const fields = response as Record<string, unknown>;
  if (fields['error'] !== undefined) return { failed: true, truncated: false };
  const text = typeof fields['output'] === 'string' ? fields['output'] : undefined;
  if (text === undefined) return { failed: false, truncated: false };
  const head = text.length > STATUS_HEAD_CHARS ? text.slice(0, STATUS_HEAD_CHARS) : text;
  const lineEnd = head.indexOf('\n');
  let firstLine = lineEnd < 0 ? head : head.slice(0, lineEnd);
  if (firstLine.startsWith(SHELL_OUTPUT_PREFIX)) {
    const skip = firstLine.charCodeAt(SHELL_OUTPUT_PREFIX.length) === 32 ? 8 : 7;
    firstLine = firstLine.slice(skip);
  }
  const truncated = TRUNCATION_MARKER.test(head);
  let failed = FAILURE_START.test(firstLine) || FAILURE_MARKER.test(firstLine);
  // gemini-cli's and qwen's shell sections: `Exit Code: N` near the end, N not 0.
  const marker = '\nExit Code: ';
  const tail = text.length > EXIT_CODE_TAIL_CHARS ? text.slice(-EXIT_CODE_TAIL_CHARS) : text;
  const exitAt = tail.lastIndexOf(marker);
  if (exitAt >= 0) {
    const code = tail.charCodeAt(exitAt + marker.length);
    if (code >= 49 && code <= 57) failed = true; // '1'..'9'
  }
  return { failed, truncated };
}
