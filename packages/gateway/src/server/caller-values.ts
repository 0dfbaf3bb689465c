/**
 * What a caller chooses, bounded at the edge before toolmask keeps or labels it (issue 33,
 * finding 1: a 4 MB model name was kept whole in the usage record, the conversation's state and
 * every `/metrics` label, and a few of them took a replica down).
 *
 * Only what toolmask stores, labels or hashes is bounded here; the request forwarded upstream is
 * never changed by it (a model name is sent as the client wrote it).
 *
 * - A model name: at most `MAX_MODEL_CHARS` of letters, digits and `._:/@+-`, else `OTHER`.
 * - A session signal (a header or the body's session id): at most `MAX_SESSION_CHARS` printable
 *   ASCII characters, else none (the request is keyed as one without a session signal).
 * - A tool name or call id kept in a decision: printable ASCII, cut at `MAX_NAME_CHARS`.
 */

/** The one form every model name outside the bounds takes. */
export const OTHER = 'other';

/** Longer than any provider's model id (the longest seen: ~60 characters, with a version). */
export const MAX_MODEL_CHARS = 128;
export const MAX_SESSION_CHARS = 256;
export const MAX_NAME_CHARS = 128;

const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/;
const PRINTABLE = /^[\x20-\x7e]+$/;

/** A model name as toolmask keeps and labels it; `''` (none given) stays `''`. */
export function boundedModel(name: string): string {
  if (name === '') return '';
  return name.length <= MAX_MODEL_CHARS && MODEL_NAME.test(name) ? name : OTHER;
}

/** A session signal within the bounds, or undefined (as if the request had none). */
export function boundedSession(session: string | undefined): string | undefined {
  if (session === undefined || session.length > MAX_SESSION_CHARS) return undefined;
  return PRINTABLE.test(session) ? session : undefined;
}

/** A name (a tool's, a call id) as kept: printable ASCII only, at most `MAX_NAME_CHARS`. */
export function boundedName(name: string): string {
  return name
    .slice(0, MAX_NAME_CHARS * 4)
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, MAX_NAME_CHARS);
}
