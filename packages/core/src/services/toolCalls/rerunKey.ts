/**
 * The key a rerun of the same call repeats: the tool's name and its arguments as canonical JSON
 * (keys sorted, depth-limited), hashed with SHA-256 when long, so that a 1 MB `write_file` stays
 * one short key and model-chosen arguments cost bounded work.
 */
import { digestOf } from '../../utils/oneShotDigest.js';

/** Keys longer than this become their SHA-256 (a 1 MB `write_file` stays one short key). */
const MAX_PLAIN_KEY_CHARS = 512;
/** Deepest argument object read for the key; deeper parts are keyed by their JSON text. */
const MAX_KEY_DEPTH = 16;

/** Sorted-key JSON of a value, depth-limited (model-chosen arguments). */
function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= MAX_KEY_DEPTH) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  }
  const fields = value as Record<string, unknown>;
  const entries = Object.keys(fields)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(fields[key], depth + 1)}`);
  return `{${entries.join(',')}}`;
}

/** The rerun key of a call to `name` with `args`. */
export function rerunKeyOf(name: string, args: unknown): string {
  return keyOf(`${name}\u0000${canonicalJson(args)}`);
}

/**
 * `rerunKeyOf(name, { command, directory })` for a shell command given as text, written out
 * without sorting and joining the two keys (every shell call of a history has one).
 */
export function shellRerunKey(name: string, command: string, directory: string | null): string {
  const where = directory === null ? 'null' : JSON.stringify(directory);
  return keyOf(`${name}\u0000{"command":${JSON.stringify(command)},"directory":${where}}`);
}

function keyOf(key: string): string {
  return key.length <= MAX_PLAIN_KEY_CHARS ? key : `#${digestOf('sha256', key, 'hex')}`;
}
