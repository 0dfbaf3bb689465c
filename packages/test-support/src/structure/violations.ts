/** A broken structure rule as the checks report it. */

export interface Violation {
  /** The rule broken (`layer`, `cycle`, `file-size`, ...). */
  rule: string;
  /** Stable across edits that do not touch the violation (no line numbers). */
  key: string;
  /** What a person reads: the file, the line where there is one, what is wrong. */
  message: string;
}

/** The messages of the violations of `rules`: what a failing structure test prints. */
export function messagesOf(violations: readonly Violation[], rules: readonly string[]): string[] {
  return violations
    .filter((violation) => rules.includes(violation.rule))
    .map((violation) => violation.message);
}
