/**
 * The session a Responses request belongs to, for the conversation key (mixed with the digest of
 * the conversation's first item: conversation/conversation-key.ts).
 *
 * Codex 0.169.0 sends its session (thread) id three ways on every request of a session: the
 * `session-id` header (with `thread-id`, the same value), `prompt_cache_key` in the body, and
 * inside `client_metadata`. The header is read first (the protocol's `sessionHeader`): it costs
 * nothing, while `prompt_cache_key` comes after `input` and finding it walks the whole body. The
 * body's key serves a client without the header (any Responses client that sets a cache key per
 * conversation, as OpenAI recommends) and what reads the session from the body alone (the usage
 * record's session digest): the same value for Codex either way, so the same key. A launcher's
 * `x-toolmask-session` header, when present, comes before both (pipeline/mask-exchange.ts).
 */
import { stringAt } from '../../body/json-layout.js';

/** Codex's session id header (the same id as its `prompt_cache_key`). */
export const CODEX_SESSION_HEADER = 'session-id';

/** The `prompt_cache_key` of a raw Responses body, found by walking the body's bytes. */
export async function responsesSession(raw: Buffer): Promise<string | undefined> {
  return (await stringAt(raw, ['prompt_cache_key'])) || undefined;
}
