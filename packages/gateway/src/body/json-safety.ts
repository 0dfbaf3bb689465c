/**
 * Whether a parsed JSON body can be written back with `JSON.stringify` without changing any value.
 * Strings, booleans, null and ordinary numbers round-trip; a number JavaScript cannot hold exactly
 * (an integer beyond 2^53, as a client's seed might be, or an overflow to Infinity) does not. The
 * gateway masks only bodies that round-trip, so it never turns a valid request into another one.
 * Walks objects and arrays only (strings are skipped whole): cheap next to parsing.
 */
/** Values nested deeper than this are not walked: the body is said not to round-trip. */
export const MAX_CHECKED_DEPTH = 256;

export function roundTripsExactly(value: unknown, depth = 0): boolean {
  if (depth > MAX_CHECKED_DEPTH) return false;
  if (typeof value === 'number') {
    return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value));
  }
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!roundTripsExactly(item, depth + 1)) return false;
    return true;
  }
  for (const key in value as Record<string, unknown>) {
    if (!roundTripsExactly((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
