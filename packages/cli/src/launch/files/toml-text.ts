/**
 * Edits of a TOML text that keep every byte of the person's (comments, order, spacing, quoting)
 * where it was: one top-level value replaced in place or one line inserted among the top-level
 * keys, or that line taken out again, over the statements toml-scanner.ts finds. Setup's other
 * edits (a value in a table, whole tables appended) are made by setup/toml-changes.ts on the same
 * statements. `tomlProblem` says whether codex would load a text at all (smol-toml), before and
 * after setup's change.
 */
import { parseToml, TomlError, tomlString } from './toml-values.js';
import { scanToml, type TomlPair, type TomlStatement } from './toml-scanner.js';

/**
 * Why codex would not load `text` (smol-toml, TOML 1.0: types and duplicate keys too, which the
 * scanner leaves alone), as `line N: reason`; undefined when it would.
 */
export function tomlProblem(text: string): string | undefined {
  try {
    parseToml(text);
    return undefined;
  } catch (error) {
    if (error instanceof TomlError) return error.message;
    throw error;
  }
}

/** A key as TOML writes it: bare when it can be, else quoted. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/** The full key path of a pair (its table's path, then its own key). */
export function fullKey(statement: TomlPair): string[] {
  return [...statement.table, ...statement.key];
}

/** Whether `path` starts with `prefix`. */
export function startsWithPath(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((part, index) => path[index] === part);
}

/** The top-level pair `key` (a plain key, not dotted), or undefined. */
export function topLevelPair(statements: TomlStatement[], key: string): TomlPair | undefined {
  return statements.find(
    (statement): statement is TomlPair =>
      statement.kind === 'pair' &&
      statement.table.length === 0 &&
      statement.key.length === 1 &&
      statement.key[0] === key,
  );
}

/**
 * `text` with the top-level `key = value` line: its value replaced when the key is there, else a
 * new line after the last top-level pair (or at the start of the file, before any table).
 */
export function setTopLevel(text: string, key: string, rawValue: string): string {
  const statements = scanToml(text);
  const existing = topLevelPair(statements, key);
  if (existing) {
    return text.slice(0, existing.valueStart) + rawValue + text.slice(existing.valueEnd);
  }
  const line = `${tomlKey(key)} = ${rawValue}\n`;
  const lastTop = statements
    .filter((statement): statement is TomlPair => statement.kind === 'pair')
    .filter((statement) => statement.table.length === 0)
    .at(-1);
  const at = lastTop ? lastTop.lineEnd : text.startsWith('\uFEFF') ? 1 : 0;
  // A last line without a line break gets one before the new line.
  const prefix = at > 0 && text[at - 1] !== '\n' ? '\n' : '';
  return text.slice(0, at) + prefix + line + text.slice(at);
}

/** `text` without the top-level `key` line (its comment and line break go with it). */
export function removeTopLevel(text: string, key: string): string {
  const existing = topLevelPair(scanToml(text), key);
  if (!existing) return text;
  return text.slice(0, existing.lineStart) + text.slice(existing.lineEnd);
}
