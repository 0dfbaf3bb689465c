/**
 * What a masked output still costs, estimated before its snippet is built: the warm rule weighs
 * what a break saves net of the snippets left in place (issue 34). Pure: no I/O, no clock.
 *
 * A snippet is a header, a bounded slice of the output's own text (its preview: head and tail
 * lines and a few hundred characters more, previewLimits.ts) and the read-back line, so in the
 * output's own tokens it costs about the output's tokens in proportion to characters:
 *
 *     kept = tokens × min(1, SNIPPET_CHARS / the output's characters)
 *
 * which weighs a snippet of digits as the estimator weighs the digits it replaces, and one of
 * prose as prose. `SNIPPET_CHARS` is what snippets measure as JSON (2026-12-03, the default
 * previews): 1,186 characters for Codex's ~9 KB outputs of numbers under its shell header, 988 for
 * 26 KB of compiler warnings; the formula then gives 1,236 and 350 tokens where the real snippets
 * estimate 994 and 348 (snippetCost.test.ts).
 */
import type { Part } from './maskingTypes.js';

/** Characters of a typical snippet as sent (JSON), header and read-back line included. */
export const SNIPPET_CHARS = 1_100;

/** Values looked at when counting a response's characters; the rest is left out. */
const MAX_VALUES = 10_000;
const MAX_DEPTH = 8;

/**
 * About the characters of `JSON.stringify(response)`: every string's and key's length, and a few
 * for every other value. Never throws; walks at most `MAX_VALUES` values, `MAX_DEPTH` deep.
 */
export function responseChars(response: unknown): number {
  // What nearly every response is, `{ output: text }`: counted without the walk's arrays.
  const single = singleStringChars(response);
  if (single !== undefined) return single;
  let chars = 0;
  let seen = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: response, depth: 0 }];
  try {
    while (stack.length > 0 && seen < MAX_VALUES) {
      const { value, depth } = stack.pop()!;
      seen++;
      if (typeof value === 'string') {
        chars += value.length + 2;
      } else if (value !== null && typeof value === 'object' && depth < MAX_DEPTH) {
        for (const [key, inner] of Object.entries(value)) {
          chars += key.length + 4;
          stack.push({ value: inner, depth: depth + 1 });
        }
      } else {
        chars += 4;
      }
    }
  } catch {
    // A getter that throws: what was counted so far.
  }
  return chars;
}

/**
 * `responseChars` of an object with one own enumerable property holding a string (the walk counts
 * its key with 4 and its string with 2 more); undefined for anything else, and for a property
 * that throws when read (the walk then stops where it stops).
 */
function singleStringChars(response: unknown): number | undefined {
  if (response === null || typeof response !== 'object' || Array.isArray(response)) {
    return undefined;
  }
  try {
    const keys = Object.keys(response);
    if (keys.length !== 1) return undefined;
    const key = keys[0] as string;
    const value: unknown = (response as Record<string, unknown>)[key];
    return typeof value === 'string' ? key.length + 4 + value.length + 2 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Estimated tokens the snippet of `part`, a tool output of `tokens` estimated tokens, keeps (see
 * the module comment). An output whose characters cannot be told (fewer counted than tokens, or a
 * part that throws when read) is taken as one character a token, the estimator's densest text.
 */
export function keptTokensOf(part: Part, tokens: number): number {
  if (!(tokens > 0)) return 0;
  let response: unknown;
  try {
    response = part.functionResponse?.response;
  } catch {
    response = undefined;
  }
  const chars = Math.max(responseChars(response), tokens);
  return Math.min(tokens, Math.round((tokens * SNIPPET_CHARS) / chars));
}
