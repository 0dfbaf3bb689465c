/**
 * Whether a running standalone gateway (`toolmask gateway`, its `gateway.json`) may carry a
 * launch: only when it sends each request the client makes where the client would send it
 * without toolmask. Each client declares how its requests reach the gateway's upstreams
 * (`UpstreamReuse`, in its adapter):
 *
 * - `apis`: the APIs it calls at the person's base URL, else at the public endpoint. A launch that
 *   asks for no upstream of its own wants the public endpoints (the gateway's defaults), so a
 *   gateway started with `--upstream http://127.0.0.1:PORT` for a test must not capture a plain
 *   `toolmask gemini`. gemini calls the Gemini API, Vertex AI and Code Assist (which one depends
 *   on its auth type, and the launcher routes all three); claude calls the Anthropic Messages API.
 * - `namedRoutes`: it calls only the OpenAI routes its launch names, a base URL and one per
 *   provider (qwen, opencode, codex): those must be the gateway's, and so must the Anthropic and
 *   Gemini API upstreams a launch names (opencode's built-in providers).
 *
 * Only the APIs the client can call are compared.
 */
import { DEFAULT_UPSTREAMS, type UpstreamUrls } from '@toolmask/gateway/launch';

/** An API a client may call at its public endpoint. */
export type PublicApi = 'gemini' | 'vertex' | 'codeAssist' | 'anthropic';

/** How a client's requests reach a gateway's upstreams (see the module comment). */
export type UpstreamReuse = { apis: readonly PublicApi[] } | { namedRoutes: true };

/** Where a gateway started with `upstreams` sends each API (unset Vertex AI: its regional default). */
export function effectiveUpstreams(upstreams: Partial<UpstreamUrls>): UpstreamUrls {
  return { ...DEFAULT_UPSTREAMS, ...upstreams };
}

/** Whether a gateway started with `has` sends a client's requests where `wanted` says. */
export function servesUpstreams(
  reuse: UpstreamReuse,
  has: Partial<UpstreamUrls>,
  wanted: Partial<UpstreamUrls>,
): boolean {
  if ('apis' in reuse) {
    const [gateway, own] = [effectiveUpstreams(has), effectiveUpstreams(wanted)];
    return reuse.apis.every((api) => gateway[api] === own[api]);
  }
  if (wanted.openai !== undefined && has.openai !== wanted.openai) return false;
  const gateway = effectiveUpstreams(has);
  for (const api of ['anthropic', 'gemini'] as const) {
    if (wanted[api] !== undefined && gateway[api] !== wanted[api]) return false;
  }
  return Object.entries(wanted.openaiNamed ?? {}).every(
    ([name, url]) => has.openaiNamed?.[name] === url,
  );
}
