/**
 * Where each API really is. Defaults are the public endpoints; each can be overridden (a
 * person's own proxy, a test's loopback fake). Vertex AI picks its regional endpoint from the
 * location in the path unless an upstream is given.
 */
import type { RouteMatch, UpstreamName } from './routes.js';

export interface UpstreamUrls {
  gemini: string;
  /** Unset: `https://<location>-aiplatform.googleapis.com` (global: aiplatform.googleapis.com). */
  vertex?: string;
  codeAssist: string;
  /** An OpenAI-compatible server (`.../v1`); unset: chat completions are refused with a clear error. */
  openai?: string;
  /**
   * More OpenAI-compatible servers, by route name: `<gateway>/openai/~<name>/...` goes to
   * `openaiNamed[name]` (one per model provider of a qwen setup, launch/qwen-launch.ts).
   */
  openaiNamed?: Record<string, string>;
}

export const DEFAULT_UPSTREAMS: UpstreamUrls = {
  gemini: 'https://generativelanguage.googleapis.com',
  codeAssist: 'https://cloudcode-pa.googleapis.com',
};

function vertexDefault(location: string | undefined): string {
  return !location || location === 'global'
    ? 'https://aiplatform.googleapis.com'
    : `https://${location}-aiplatform.googleapis.com`;
}

function trimSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

/**
 * The full upstream URL of a request, or undefined when that API has no upstream. The OpenAI
 * base conventionally ends in `/v1` and chat paths start with `/v1/chat/...` or `/chat/...`:
 * the `/v1` is not doubled.
 */
export function upstreamUrl(upstreams: UpstreamUrls, route: RouteMatch): string | undefined {
  const base: Record<UpstreamName, string | undefined> = {
    gemini: upstreams.gemini,
    vertex: upstreams.vertex ?? vertexDefault(route.location),
    codeAssist: upstreams.codeAssist,
    openai: route.openaiRoute ? upstreams.openaiNamed?.[route.openaiRoute] : upstreams.openai,
  };
  const root = base[route.upstream];
  if (!root) return undefined;
  let path = route.upstreamPath;
  if (route.upstream === 'openai' && /\/v1$/.test(trimSlash(root)) && path.startsWith('/v1/')) {
    path = path.slice(3);
  }
  return trimSlash(root) + path;
}
