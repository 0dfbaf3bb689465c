/**
 * The session a Messages request belongs to, for the conversation key (mixed with the digest of
 * the conversation's first message: conversation/conversation-key.ts).
 *
 * Claude Code sends its session id twice: as the `x-claude-code-session-id` header and inside
 * `metadata.user_id`, a JSON text `{"device_id":…,"account_uuid":…,"session_id":…}` (2.1.328;
 * older versions wrote `user_<hash>_account_<uuid>_session_<uuid>`). The header is read first (the
 * protocol's `sessionHeader`): it costs nothing, while `metadata` comes after `messages`, so
 * finding it walks the whole body (about a millisecond a megabyte). The body's copy serves a
 * request without the header and whatever reads the session from the body alone (the usage
 * record's session digest): the same id either way, so the same key. A `user_id` of any other form
 * (an application's own end-user id) is mixed in as it is: stable for that user, and the first
 * message still tells their chats apart.
 */
import { isPlainObject } from '@toolmask/core/utils';
import { stringAt } from '../../body/json-layout.js';

/** Claude Code's session id header (the same id as in `metadata.user_id`). */
export const CLAUDE_CODE_SESSION_HEADER = 'x-claude-code-session-id';

const LEGACY_SESSION = /_session_([0-9A-Za-z-]+)$/;

/** The session id in a `metadata.user_id` value, else the value itself; undefined when empty. */
export function sessionOfUserId(userId: string | undefined): string | undefined {
  if (!userId) return undefined;
  if (userId.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(userId);
      const session = isPlainObject(parsed) ? parsed['session_id'] : undefined;
      if (typeof session === 'string' && session) return session;
    } catch {
      // not JSON after all: the value as it is
    }
  }
  return LEGACY_SESSION.exec(userId)?.[1] ?? userId;
}

/**
 * The session id of a raw Messages body: `metadata` is found by walking the body's bytes (strings
 * skipped natively, in stretches with turns for the event loop).
 */
export async function anthropicSession(raw: Buffer): Promise<string | undefined> {
  return sessionOfUserId(await stringAt(raw, ['metadata', 'user_id']));
}
