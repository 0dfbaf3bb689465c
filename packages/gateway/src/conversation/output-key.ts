/**
 * What identifies one tool output across the requests of a conversation: the client resends its
 * whole unmasked history every time, as new JSON, so identity is by value: the tool's name, the
 * call id and a digest of the response. Computed once per response object (a WeakMap), and the
 * gateway reuses the objects of unchanged entries between requests, so each output is hashed once.
 *
 * A response holding a string of megabytes (a giant log) is hashed in stretches, a megabyte of
 * its JSON text at a time with turns for the event loop between (`prepareOutputKey`): the same
 * bytes, so the same key, as `JSON.stringify` of it whole, which takes 100 ms for 40 MB.
 */
import { createHash } from 'node:crypto';
import { digestOf, type EventLoopPauser } from '@toolmask/core/utils';

interface FunctionResponseLike {
  name?: unknown;
  id?: unknown;
  response?: unknown;
}

const keys = new WeakMap<object, string>();

export function outputKey(functionResponse: FunctionResponseLike): string {
  const response = functionResponse.response;
  if (response !== null && typeof response === 'object') {
    const known = keys.get(response);
    if (known) return known;
  }
  // One call (no Hash object): a cold request keys hundreds of outputs.
  return remember(
    functionResponse,
    digestOf('sha256', JSON.stringify(response) ?? 'undefined', 'hex'),
  );
}

/** Strings at least this long are hashed in stretches, a slice of this many code units at a time. */
const SLICE_UNITS = 1 << 20;

/**
 * A response object as `JSON.parse` makes it whose JSON text is mostly long strings: its own
 * properties, in their order, when one of them is a long string (anything else, hashed whole).
 */
function longStringFields(response: unknown): Array<[string, unknown]> | undefined {
  if (response === null || typeof response !== 'object' || Array.isArray(response))
    return undefined;
  const prototype: unknown = Object.getPrototypeOf(response);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  if (!hasLongString(response)) return undefined;
  const fields = Object.entries(response);
  const writable = (value: unknown) =>
    value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
  if (fields.some(([key, value]) => key === 'toJSON' || !writable(value))) return undefined;
  return fields;
}

/** Whether one of the object's own values is a string of at least a slice (no copy made). */
function hasLongString(response: object): boolean {
  for (const key in response) {
    if (!Object.prototype.hasOwnProperty.call(response, key)) continue;
    const value: unknown = (response as Record<string, unknown>)[key];
    if (typeof value === 'string' && value.length >= SLICE_UNITS) return true;
  }
  return false;
}

/** Whether `prepareOutputKey` has anything to do for this output (cheap: no copy, no hash). */
export function needsPreparedKey(functionResponse: FunctionResponseLike): boolean {
  const response = functionResponse.response;
  return (
    response !== null &&
    typeof response === 'object' &&
    !keys.has(response) &&
    hasLongString(response)
  );
}

/**
 * Computes (and remembers) the key of an output whose response holds a string of megabytes, in
 * stretches; resolves at once for any other. `outputKey` then finds it.
 */
export async function prepareOutputKey(
  functionResponse: FunctionResponseLike,
  pause: EventLoopPauser,
): Promise<void> {
  const response = functionResponse.response;
  const fields = longStringFields(response);
  if (!fields || keys.has(response as object)) return;
  // `JSON.stringify(response)`, piece by piece: each field as it writes it, a long string's
  // escaped text a slice at a time (never between the two halves of a surrogate pair, which it
  // writes as they are, and would escape apart).
  const hash = createHash('sha256').update('{', 'utf8');
  for (const [index, [key, value]] of fields.entries()) {
    hash.update(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`, 'utf8');
    if (typeof value !== 'string' || value.length < SLICE_UNITS) {
      hash.update(JSON.stringify(value), 'utf8');
      continue;
    }
    hash.update('"', 'utf8');
    for (let start = 0; start < value.length;) {
      let end = Math.min(value.length, start + SLICE_UNITS);
      const last = value.charCodeAt(end - 1);
      if (end < value.length && last >= 0xd800 && last <= 0xdbff) end--;
      hash.update(JSON.stringify(value.slice(start, end)).slice(1, -1), 'utf8');
      start = end;
      await pause();
    }
    hash.update('"', 'utf8');
  }
  hash.update('}', 'utf8');
  remember(functionResponse, hash.digest('hex'));
}

/**
 * What a key begins with: the tool's name and the call id, without the digest. Two outputs whose
 * keys differ here have different keys, so a look-up by key can be skipped without hashing.
 */
export function outputKeyHead(functionResponse: FunctionResponseLike): string {
  const name = typeof functionResponse.name === 'string' ? functionResponse.name : '';
  const id = typeof functionResponse.id === 'string' ? functionResponse.id : '';
  return `${name}\u0000${id}`;
}

/** Hex characters of a key's digest. */
const DIGEST_CHARS = 32;

/**
 * The head of a key as `outputKey` makes it (`outputKeyHead`), or undefined for a string of
 * another shape (a store written by another version: its keys are looked up by hashing).
 */
export function headOfKey(key: string): string | undefined {
  const at = key.length - DIGEST_CHARS - 1;
  return at >= 1 && key.charCodeAt(at) === 0 && /^[0-9a-f]+$/.test(key.slice(at + 1))
    ? key.slice(0, at)
    : undefined;
}

/** The key of `functionResponse` whose response's JSON text has the SHA-256 `hex`, remembered. */
function remember(functionResponse: FunctionResponseLike, hex: string): string {
  const response = functionResponse.response;
  const digest = hex.slice(0, DIGEST_CHARS);
  const key = `${outputKeyHead(functionResponse)}\u0000${digest}`;
  if (response !== null && typeof response === 'object') keys.set(response, key);
  return key;
}
