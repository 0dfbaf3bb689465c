/**
 * A tool call's arguments as the masking core reads them (core's `supersededOutputs.ts`: which
 * files a call reads and writes, and whether the same call ran before): the object itself when
 * the protocol carries one (Anthropic's `input`, a Responses `local_shell_call`'s `action`), or a
 * JSON string parsed when it holds at most `MAX_ARGUMENT_CHARS` characters (OpenAI's
 * `arguments`). Anything else is `{}`: the call then reads and writes nothing the core can tell.
 * Nothing here is written back; a body keeps the client's own bytes.
 */
import { isPlainObject } from '@toolmask/core/utils';

/** Longest `arguments` string parsed (a `write_file` of a large file is left unread). */
export const MAX_ARGUMENT_CHARS = 64 * 1024;

export function callArguments(value: unknown): Record<string, unknown> {
  if (isPlainObject(value)) return value;
  if (typeof value !== 'string' || value.length > MAX_ARGUMENT_CHARS) return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return isPlainObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
