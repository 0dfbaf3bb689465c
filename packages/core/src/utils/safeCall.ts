/**
 * Helpers for code that must never throw into a host's turn: describing whatever was thrown, and
 * calling a callback or reading a foreign value that may throw.
 *
 * Anything can be thrown, including values that cannot be printed (`String(Object.create(null))`
 * throws, so does a revoked proxy), so describing an error must never throw in turn.
 */

/** The message of an error, or the value as text; a fixed phrase when it cannot be printed. */
export function describeError(error: unknown): string {
  try {
    return String(error instanceof Error ? error.message : error);
  } catch {
    return 'an error that cannot be printed';
  }
}

/** The `code` of an error (`ENOSPC`, ...), or `fallback` when it has none or cannot be read. */
export function errorCode(error: unknown, fallback: string): string {
  try {
    const code = (error as { code?: unknown } | null)?.code;
    return typeof code === 'string' && code.length > 0 ? code : fallback;
  } catch {
    return fallback;
  }
}

/**
 * Calls `callback` and returns its result; returns `undefined` when it throws. For observers,
 * reporters and sinks whose failure must not matter to the caller.
 */
export function safeCall<Args extends unknown[], Result>(
  callback: ((...args: Args) => Result) | undefined,
  ...args: Args
): Result | undefined {
  if (!callback) return undefined;
  try {
    return callback(...args);
  } catch {
    return undefined;
  }
}

/** A sink that swallows its own failures: `safeSink(debug)('line')` never throws. */
export function safeSink(sink: ((message: string) => void) | undefined): (message: string) => void {
  return (message) => {
    safeCall(sink, message);
  };
}

/** A non-null, non-array object (JSON's "object"). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
