/**
 * Telling conversations apart from the request itself. A client resends the whole conversation
 * each time, and its first entry (gemini-cli: the session context and the first prompt; qwen-code:
 * the system message) stays the same for the life of the conversation, so a digest of that head
 * identifies it. A session signal, when the request has one (Code Assist's `session_id`, or the
 * `x-toolmask-session` header the launchers add: protocols/session-signal.ts), is mixed in, so two sessions that start alike
 * stay apart. A new chat in the same process (gemini-cli's /clear, a compression that rewrites the
 * head) is a new conversation.
 */
import { digestOf } from '@toolmask/core/utils';

const NUL = Buffer.from([0]);

/**
 * `head`: the bytes of the conversation's first entries as the client sent them. The SHA-256 of
 * the session (UTF-8), a NUL and the head, in one call (no Hash object: once a request).
 */
export function conversationKey(session: string | undefined, head: Buffer): string {
  const bytes = Buffer.concat([Buffer.from(session ?? '', 'utf8'), NUL, head]);
  return digestOf('sha256', bytes, 'hex').slice(0, 32);
}
