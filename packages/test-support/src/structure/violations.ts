/**
 * A broken structure rule as the checks report it, and the comparison with the known-violations
 * list: what is broken and not known fails a test, and so does a known entry that no longer
 * happens (the list only ever shrinks).
 */

export interface Violation {
  /** The rule broken (`layer`, `cycle`, `file-size`, ...). */
  rule: string;
  /** Stable across edits that do not touch the violation (no line numbers): known lists use it. */
  key: string;
  /** What a person reads: the file, the line where there is one, what is wrong. */
  message: string;
}

export interface KnownViolation {
  key: string;
  reason: string;
}

/** Violations not in `known`, and known entries of `rules` no longer found. */
export function compareWithKnown(
  violations: readonly Violation[],
  known: readonly KnownViolation[],
  rules: readonly string[],
): { unexpected: string[]; fixed: string[] } {
  const knownKeys = new Set(known.map((entry) => entry.key));
  const foundKeys = new Set(violations.map((violation) => violation.key));
  return {
    unexpected: violations
      .filter((violation) => !knownKeys.has(violation.key))
      .map((violation) => violation.message),
    fixed: known
      .filter((entry) => rules.includes(ruleOfKey(entry.key)) && !foundKeys.has(entry.key))
      .map((entry) => `${entry.key} (no longer happens: remove it from known-violations.ts)`),
  };
}

/** Every key starts with its rule: `layer: packages/...`. */
export function ruleOfKey(key: string): string {
  return key.slice(0, key.indexOf(':'));
}
