/**
 * The session a model request says it belongs to: the launcher's session header, or the client's
 * own (its protocol's session header, OpenCode's, else what its body says). One rule for the conversation key
 * (pipeline/mask-exchange.ts) and the usage record's session digest (usage/side-request.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { boundedSession } from '../server/caller-values.js';
import type { Protocol } from './protocol.js';

/** The header the launchers add to every request of one run (`toolmask gemini`, ...). */
export const SESSION_HEADER = 'x-toolmask-session';

/**
 * OpenCode's session id header (1.18.33: with `X-Session-Id`, the same value), sent to every
 * provider but OpenCode's own, whatever its protocol (OpenAI-compatible, Anthropic, Google, ...).
 */
export const OPENCODE_SESSION_HEADER = 'x-session-affinity';

/**
 * The client's own session id, as a launcher has a client send it whose requests carry none
 * (qwen-code 0.24.4: `${session_id}` in a custom header): what its resume command takes. Like
 * every `x-toolmask-*` header, never forwarded upstream.
 */
export const CLIENT_SESSION_HEADER = 'x-toolmask-client-session';

/** The first value of a header. */
function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The session signal of a request; `raw` is read only when no header has one. One past the
 * bounds (server/caller-values.ts: too long, or not printable ASCII) counts as none.
 */
export async function sessionSignal(
  protocol: Protocol,
  headers: IncomingHttpHeaders,
  raw: Buffer | undefined,
): Promise<string | undefined> {
  return boundedSession(
    headerValue(headers, SESSION_HEADER) ?? (await clientSessionSignal(protocol, headers, raw)),
  );
}

/**
 * The client's own session id, the launcher's header aside: what its resume command takes
 * (`claude --resume <id>`, `codex resume <id>`, `opencode -s <id>`, `qwen --resume <id>`);
 * bounded like the signal.
 */
export async function clientSessionSignal(
  protocol: Protocol,
  headers: IncomingHttpHeaders,
  raw: Buffer | undefined,
): Promise<string | undefined> {
  return boundedSession(
    (protocol.sessionHeader ? headerValue(headers, protocol.sessionHeader) : undefined) ??
      headerValue(headers, OPENCODE_SESSION_HEADER) ??
      headerValue(headers, CLIENT_SESSION_HEADER) ??
      (raw ? await protocol.codec.session?.(raw) : undefined),
  );
}
