/**
 * Whether a running standalone gateway (`toolmask gateway`, its `gateway.json`) may carry this
 * launch: only when it sends each request this client makes where the client would send it
 * without toolmask. A launch that asks for no upstream of its own wants the public endpoints (the
 * gateway's defaults), so a gateway started with `--upstream http://127.0.0.1:PORT` for a test
 * must not capture a plain `toolmask gemini`. Only the APIs the client can call are compared:
 * gemini calls the Gemini API, Vertex AI and Code Assist (which one depends on its auth type, and
 * the launcher routes all three); claude calls the Anthropic Messages API; qwen, opencode and codex
 * call the OpenAI routes they were given.
 */
import { DEFAULT_UPSTREAMS, type UpstreamUrls } from '@toolmask/gateway';

export type LaunchClientName = 'gemini' | 'qwen' | 'claude' | 'opencode' | 'codex';

/** Where a gateway started with `upstreams` sends each API (unset Vertex AI: its regional default). */
function effective(upstreams: Partial<UpstreamUrls>): UpstreamUrls {
  return { ...DEFAULT_UPSTREAMS, ...upstreams };
}

/** Whether a gateway started with `has` sends `client`'s requests where `wanted` says. */
export function servesUpstreams(
  client: LaunchClientName,
  has: Partial<UpstreamUrls>,
  wanted: Partial<UpstreamUrls>,
): boolean {
  if (client === 'gemini') {
    const [gateway, own] = [effective(has), effective(wanted)];
    return (['gemini', 'vertex', 'codeAssist'] as const).every((api) => gateway[api] === own[api]);
  }
  if (client === 'claude') return effective(has).anthropic === effective(wanted).anthropic;
  // qwen, opencode and codex reach only the routes their launch names: a base URL, one per provider.
  if (wanted.openai !== undefined && has.openai !== wanted.openai) return false;
  return Object.entries(wanted.openaiNamed ?? {}).every(
    ([name, url]) => has.openaiNamed?.[name] === url,
  );
}

/** Where gemini's requests of an auth type go, for the banner (`has` as in servesUpstreams). */
export function geminiUpstreamShown(
  upstreams: Partial<UpstreamUrls>,
  api: 'gemini' | 'vertex' | 'codeAssist',
): string {
  return effective(upstreams)[api] ?? "each request's regional Vertex AI endpoint";
}
