/**
 * Every kind of change `toolmask setup` makes to a client's file, by format: JSON settings
 * (json-changes.ts), codex's TOML (toml-changes.ts) and `.env` lines (env-changes.ts). Each change
 * is a record of what setup wrote and what was there before, so that `--undo` can take back
 * exactly it. A new kind of change is a kind in one of those files and a case in each function
 * here; a new format is a file beside them.
 */
import { applyEnvChange, envChangeLine, undoEnvChange, type EnvChange } from './env-changes.js';
import {
  applyJsonChange,
  jsonChangeLine,
  undoJsonChange,
  type JsonChange,
} from './json-changes.js';
import {
  applyTomlChange,
  tomlChangeLine,
  undoTomlChange,
  type TomlChange,
} from './toml-changes.js';

/** One change setup makes to a file, with what it takes back. */
export type SetupChange = JsonChange | TomlChange | EnvChange;

/** `text` with `change` made. */
export function applyChange(text: string, change: SetupChange, file: string): string {
  switch (change.kind) {
    case 'json-set':
    case 'json-add-item':
      return applyJsonChange(text, change, file);
    case 'env-set':
      return applyEnvChange(text, change);
    default:
      return applyTomlChange(text, change, file);
  }
}

/** What a change is, in a line for the person. */
export function changeLine(file: string, change: SetupChange): string {
  switch (change.kind) {
    case 'json-set':
    case 'json-add-item':
      return jsonChangeLine(file, change);
    case 'env-set':
      return envChangeLine(file, change);
    default:
      return tomlChangeLine(file, change);
  }
}

/** `text` with `change` taken back, when it is still what setup made; a line when it is not. */
export function undoChange(
  text: string,
  change: SetupChange,
  file: string,
  lines: string[],
): string {
  switch (change.kind) {
    case 'json-set':
    case 'json-add-item':
      return undoJsonChange(text, change, file, lines);
    case 'env-set':
      return undoEnvChange(text, change, file, lines);
    default:
      return undoTomlChange(text, change, file, lines);
  }
}

/** The JSON changes among `changes` (the objects they created go when empty). */
export function jsonChanges(changes: readonly SetupChange[]): JsonChange[] {
  return changes.filter(
    (change): change is JsonChange => change.kind === 'json-set' || change.kind === 'json-add-item',
  );
}
