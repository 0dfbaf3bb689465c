/**
 * Setup's changes to a TOML file (codex's `config.toml`), as text edits over the statements
 * files/toml-scanner.ts finds: a top-level value replaced in place or its line inserted, a value
 * of an existing table replaced in place, whole tables appended at the end. Each is taken back by
 * its own text, and only while that text is still what setup wrote. smol-toml checks that codex
 * would load the file before and after (`tomlProblem`).
 */
import { scanToml, TomlScanError, type TomlPair } from '../files/toml-scanner.js';
import { removeTopLevel, setTopLevel, tomlProblem } from '../files/toml-text.js';
import { SetupError } from './setup-files.js';

export type TomlChange =
  /** A top-level TOML key's raw value (`before` undefined: the line was not there). */
  | { kind: 'toml-top'; key: string; before?: string; after: string }
  /** A raw value of a pair in an existing TOML table, replaced in place. */
  | { kind: 'toml-value'; table: string[]; key: string; before: string; after: string }
  /** Whole TOML tables appended at the end of the file (this exact text). */
  | { kind: 'toml-tables'; names: string[]; text: string };

/** The statements of `file`'s text; a `SetupError` naming it when the scanner cannot follow it. */
export function tomlStatements(text: string, file: string) {
  try {
    return scanToml(text);
  } catch (error) {
    if (error instanceof TomlScanError) {
      throw new SetupError(`${file}: cannot read it as TOML (${error.message})`);
    }
    throw error;
  }
}

function tomlPair(text: string, file: string, table: string[], key: string): TomlPair | undefined {
  return tomlStatements(text, file).find(
    (statement): statement is TomlPair =>
      statement.kind === 'pair' &&
      statement.key.length === 1 &&
      statement.key[0] === key &&
      statement.table.join('\0') === table.join('\0'),
  );
}

/** Refuses (`SetupError`) a text setup wrote that codex would not load. */
export function checkWrittenToml(text: string, file: string): void {
  tomlStatements(text, file);
  const problem = tomlProblem(text);
  if (problem) {
    throw new SetupError(
      `${file}: with setup's change it would not be valid TOML (${problem}); nothing was changed. Make the change yourself (docs/gateway.md shows it)`,
    );
  }
}

/** Refuses (`SetupError`) to write a text without setup's changes that codex would not load. */
export function checkUndoneToml(text: string, file: string): void {
  const problem = tomlProblem(text);
  if (problem) {
    throw new SetupError(
      `${file}: without setup's changes it would not be valid TOML (${problem}); it was left as it is. Take out [mcp_servers.toolmask] (and model_provider "toolmask" with [model_providers.toolmask]) yourself`,
    );
  }
}

/** `text` with `change` made. */
export function applyTomlChange(text: string, change: TomlChange, file: string): string {
  switch (change.kind) {
    case 'toml-top':
      return setTopLevel(text, change.key, change.after);
    case 'toml-value': {
      const pair = tomlPair(text, file, change.table, change.key);
      if (!pair) {
        throw new SetupError(`${file}: ${[...change.table, change.key].join('.')} is gone`);
      }
      return text.slice(0, pair.valueStart) + change.after + text.slice(pair.valueEnd);
    }
    case 'toml-tables': {
      const separator = text === '' ? '' : text.endsWith('\n') ? '\n' : '\n\n';
      return text + separator + change.text;
    }
  }
}

/** What a change is, in a line for the person. */
export function tomlChangeLine(file: string, change: TomlChange): string {
  switch (change.kind) {
    case 'toml-top':
      return `${file}: ${change.key} ${change.before ?? '(unset)'} → ${change.after}`;
    case 'toml-value':
      return `${file}: [${change.table.join('.')}] ${change.key} ${change.before} → ${change.after}`;
    case 'toml-tables':
      return `${file}: added ${change.names.map((name) => `[${name}]`).join(' and ')}`;
  }
}

/** `text` with the tables setup appended taken out (and the blank line it put before them). */
function withoutTables(
  text: string,
  change: Extract<TomlChange, { kind: 'toml-tables' }>,
  file: string,
  lines: string[],
): string {
  const at = text.indexOf(change.text);
  const tables = change.names.map((name) => `[${name}]`).join(' and ');
  if (at < 0 || text.indexOf(change.text, at + 1) >= 0) {
    lines.push(`${file}: ${tables} changed since setup; left as they are (setup added them)`);
    return text;
  }
  lines.push(`${file}: ${tables} removed`);
  const start = at >= 2 && text.slice(at - 2, at) === '\n\n' ? at - 1 : at;
  return text.slice(0, start) + text.slice(at + change.text.length);
}

/** `text` with `change` taken back, when it is still what setup made; a line when it is not. */
export function undoTomlChange(
  text: string,
  change: TomlChange,
  file: string,
  lines: string[],
): string {
  if (change.kind === 'toml-tables') return withoutTables(text, change, file, lines);
  const table = change.kind === 'toml-top' ? [] : change.table;
  const pair = tomlPair(text, file, table, change.key);
  const name = change.kind === 'toml-top' ? change.key : `[${table.join('.')}] ${change.key}`;
  const before = change.before ?? '(unset)';
  if (!pair || text.slice(pair.valueStart, pair.valueEnd) !== change.after) {
    lines.push(`${file}: ${name} changed since setup; left as it is (before setup: ${before})`);
    return text;
  }
  lines.push(`${file}: ${name} → ${before}`);
  return change.before === undefined
    ? removeTopLevel(text, change.key)
    : text.slice(0, pair.valueStart) + change.before + text.slice(pair.valueEnd);
}
