/**
 * Feeding a value as `JSON.stringify` would write it, without building that string: `toJSON` and
 * boxed primitives replace the value, strings are counted in place with their escapes, keys and
 * punctuation are fed as JSON writes them, and what JSON leaves out (undefined, functions,
 * symbols) is left out. Never throws on the value: cycles and nesting deeper than
 * `TOKEN_MODEL.maxValueDepth` are cut, BigInt counts its digits, a `toJSON` or a getter that
 * throws drops its value (a property that throws when read is skipped).
 */
import { CharClass } from './tokenClasses.js';
import { TOKEN_MODEL } from './tokenModel.js';
import { feedClass, feedJsonString, feedText, type Tally } from './tokenTally.js';

/** Stands for a value `JSON.stringify` would throw on: nothing is counted for it. */
const UNWRITABLE = Symbol('unwritable');

/** The value JSON writes in place of `value`: what its `toJSON` returns, a boxed primitive's. */
function writtenValue(value: unknown, key: string): unknown {
  // toJSON (Dates and custom objects) replaces the value, as in JSON.stringify.
  if (value !== null && (typeof value === 'object' || typeof value === 'bigint')) {
    try {
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') value = toJSON.call(value, key);
    } catch {
      return UNWRITABLE; // JSON.stringify would throw; count nothing for this value
    }
  }
  // Boxed primitives are written as their primitive value.
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    try {
      value = value.valueOf();
    } catch {
      return UNWRITABLE;
    }
  }
  return value;
}

/**
 * Feeds what JSON.stringify would write for `value` (as an array element or property value).
 * Returns false when JSON.stringify would omit it (undefined, functions, symbols), in which case
 * nothing was fed. Never throws.
 */
export function feedJsonValue(
  t: Tally,
  original: unknown,
  key: string,
  ancestors: unknown[],
  depth: number,
): boolean {
  const value = writtenValue(original, key);
  if (value === UNWRITABLE) return false;
  switch (typeof value) {
    case 'string':
      feedJsonString(t, value);
      return true;
    case 'number':
      feedText(t, Number.isFinite(value) ? String(value) : 'null');
      return true;
    case 'boolean':
      feedText(t, value ? 'true' : 'false');
      return true;
    case 'bigint':
      // JSON.stringify throws on BigInt; count its digits, which is what a serialiser would send.
      feedText(t, value.toString());
      return true;
    case 'object':
      break;
    default:
      return false; // undefined, function, symbol
  }
  if (value === null) {
    feedText(t, 'null');
    return true;
  }
  // Cycles (JSON.stringify would throw) and excessive depth: stop here.
  if (depth >= TOKEN_MODEL.maxValueDepth || ancestors.includes(value)) return false;
  ancestors.push(value);
  try {
    if (Array.isArray(value)) feedJsonArray(t, value, ancestors, depth);
    else feedJsonObject(t, value, ancestors, depth);
  } finally {
    ancestors.pop();
  }
  return true;
}

/** `[`, the elements (an element JSON omits is written `null`), `]`. */
function feedJsonArray(t: Tally, value: unknown[], ancestors: unknown[], depth: number): void {
  feedClass(t, CharClass.PUNCT); // [
  let length: number;
  try {
    length = value.length;
  } catch {
    length = 0;
  }
  for (let i = 0; i < length; i++) {
    if (i > 0) feedClass(t, CharClass.PUNCT); // ,
    let element: unknown;
    try {
      element = value[i];
    } catch {
      element = null;
    }
    if (!feedJsonValue(t, element, String(i), ancestors, depth + 1)) {
      feedText(t, 'null');
    }
  }
  feedClass(t, CharClass.PUNCT); // ]
}

/** `{`, the properties JSON writes (`"key":value`), `}`. */
function feedJsonObject(t: Tally, value: object, ancestors: unknown[], depth: number): void {
  feedClass(t, CharClass.PUNCT); // {
  let keys: string[];
  try {
    keys = Object.keys(value);
  } catch {
    keys = [];
  }
  let first = true;
  for (const k of keys) {
    let property: unknown;
    try {
      property = (value as Record<string, unknown>)[k];
    } catch {
      continue; // a throwing getter: skip the property
    }
    if (property === undefined || typeof property === 'function') continue;
    if (typeof property === 'symbol') continue;
    // The separator and key are fed before knowing whether the value serialises; a value
    // that turns out not to (toJSON throwing, a cycle) leaves them counted, which is harmless.
    if (!first) feedClass(t, CharClass.PUNCT); // ,
    feedJsonString(t, k);
    feedClass(t, CharClass.PUNCT); // :
    if (!feedJsonValue(t, property, k, ancestors, depth + 1)) feedText(t, 'null');
    first = false;
  }
  feedClass(t, CharClass.PUNCT); // }
}
