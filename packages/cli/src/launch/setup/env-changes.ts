/**
 * Setup's changes to a client's `.env` (`~/.gemini/.env`, `~/.qwen/.env`): one variable set per
 * change, its line replaced in place or appended (files/dotenv.ts `setEnvLine`), every other line
 * kept as it is. `--undo` puts back the value from before (or removes the line setup added), and
 * only while the variable still has the value setup wrote.
 */
import { parseEnv } from 'node:util';
import { setEnvLine } from '../files/dotenv.js';

/** A variable set (`before` undefined: the file did not set it). */
export interface EnvChange {
  kind: 'env-set';
  name: string;
  before?: string;
  after: string;
}

/** The variables a `.env` text sets, as the clients read them. */
export function envValues(text: string): Record<string, string> {
  return parseEnv(text) as Record<string, string>;
}

/** A change that sets `name` to `after` in a `.env` whose variables are `current`. */
export function envSet(current: Record<string, string>, name: string, after: string): EnvChange {
  return {
    kind: 'env-set',
    name,
    ...(current[name] !== undefined ? { before: current[name] } : {}),
    after,
  };
}

/** `text` with `change` made. */
export function applyEnvChange(text: string, change: EnvChange): string {
  return setEnvLine(text, change.name, change.after);
}

/** What a change is, in a line for the person. */
export function envChangeLine(file: string, change: EnvChange): string {
  return `${file}: ${change.name} ${change.before ?? '(unset)'} → ${change.after}`;
}

/** `text` with `change` taken back, when it is still what setup made; a line when it is not. */
export function undoEnvChange(
  text: string,
  change: EnvChange,
  file: string,
  lines: string[],
): string {
  const before = change.before ?? '(unset)';
  if (envValues(text)[change.name] !== change.after) {
    lines.push(
      `${file}: ${change.name} changed since setup; left as it is (before setup: ${before})`,
    );
    return text;
  }
  lines.push(`${file}: ${change.name} → ${before}`);
  return setEnvLine(text, change.name, change.before);
}
