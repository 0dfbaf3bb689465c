/**
 * TOML documents as data, for what reads codex's `config.toml` files (`toolmask codex`, and the
 * check of `toolmask setup codex`'s edits). The TOML itself is read by smol-toml (TOML 1.0); this
 * file turns its result into plain data (dates as ISO text) and never writes. A document that is
 * not TOML raises a `TomlError` with the line (codex itself would refuse the same file). Strings
 * are written as TOML by `tomlString`; text is edited by toml-text.ts.
 */
import { ToolmaskError } from '@toolmask/core/errors';
import { TomlDate, TomlError as SyntaxError, parse } from 'smol-toml';

export type TomlTable = { [key: string]: TomlValue };
export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;

/** A text that is not TOML 1.0, with its line (`line N: reason`). Code `INVALID_TOML`. */
export class TomlError extends ToolmaskError<'INVALID_TOML'> {
  constructor(message: string) {
    super('INVALID_TOML', message);
  }
}

function isTable(value: TomlValue | undefined): value is TomlTable {
  return typeof value === 'object' && !Array.isArray(value);
}

/** smol-toml's value as plain data: a date or time as ISO text, a big integer as a number. */
function plain(value: unknown): TomlValue {
  if (value instanceof TomlDate) return value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plain(inner)]));
  }
  return value as TomlValue;
}

/** The document as data. Throws a `TomlError` (with its line) for what is not TOML. */
export function parseToml(text: string): TomlTable {
  try {
    return plain(parse(text)) as TomlTable;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const reason = error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? '';
    throw new TomlError(`line ${error.line}: ${reason}`);
  }
}

/**
 * A `-c key=value` override's value as codex reads it: TOML when it parses as a TOML value, the
 * raw text otherwise (`-c model=o3` is the string "o3").
 */
export function parseOverrideValue(text: string): TomlValue {
  try {
    const value = parseToml(`value = ${text}`)['value'];
    return value === undefined ? text.trim() : value;
  } catch {
    return text.trim();
  }
}

/** A string as a TOML value (a basic string: JSON's escapes are TOML's). */
export function tomlString(value: string): string {
  return JSON.stringify(value);
}

export function tableAt(table: TomlTable, keys: readonly string[]): TomlTable | undefined {
  let current: TomlValue | undefined = table;
  for (const key of keys) current = isTable(current) ? current[key] : undefined;
  return isTable(current) ? current : undefined;
}

/** `over` merged into `base`, tables key by key, anything else replaced (codex's layering). */
export function mergeTables(base: TomlTable, over: TomlTable): TomlTable {
  const result: TomlTable = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const existing = result[key];
    result[key] = isTable(existing) && isTable(value) ? mergeTables(existing, value) : value;
  }
  return result;
}

/** `value` set at a dotted path of `table` (a `-c` override), tables made where missing. */
export function setAtPath(table: TomlTable, keys: readonly string[], value: TomlValue): TomlTable {
  if (keys.length === 0) return table;
  const [first, ...rest] = keys as [string, ...string[]];
  const existing = table[first];
  return {
    ...table,
    [first]: rest.length === 0 ? value : setAtPath(isTable(existing) ? existing : {}, rest, value),
  };
}
