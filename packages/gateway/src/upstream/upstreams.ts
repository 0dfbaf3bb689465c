/**
 * Where each API really is. Defaults are the public endpoints; each can be overridden (a
 * person's own proxy, a test's loopback fake). Vertex AI picks its regional endpoint from the
 * location in the path unless an upstream is given.
 */
import type { ModelRoute, UpstreamName } from '../protocols/protocol.js';

export interface UpstreamUrls {
  gemini: string;
  /** Unset: `https://<location>-aiplatform.googleapis.com` (global: aiplatform.googleapis.com). */
  vertex?: string;
  codeAssist: string;
  /** An OpenAI-compatible server (`.../v1`); unset: chat completions are refused with a clear error. */
  openai?: string;
  /**
   * More OpenAI-compatible servers, by route name: `<gateway>/openai/~<name>/...` goes to
   * `openaiNamed[name]` (one per model provider of a qwen setup: the CLI's launch/qwen-launch.ts).
   */
  openaiNamed?: Record<string, string>;
  /** The Anthropic Messages API (Claude Code's `ANTHROPIC_BASE_URL`, without `/v1`). */
  anthropic: string;
}

export const DEFAULT_UPSTREAMS: UpstreamUrls = {
  gemini: 'https://generativelanguage.googleapis.com',
  codeAssist: 'https://cloudcode-pa.googleapis.com',
  anthropic: 'https://api.anthropic.com',
};

/**
 * A Vertex AI location as Google names them (`us-central1`, `europe-west4`, `global`): it becomes
 * part of a host name, so nothing else is let through (a `\` or `:` would move the request to a
 * host of the caller's choosing).
 */
const VERTEX_LOCATION = /^[a-z0-9-]{1,63}$/;

export function isVertexLocation(location: string): boolean {
  return VERTEX_LOCATION.test(location);
}

/** The regional endpoint of a location (global, or none: the global endpoint). */
function vertexDefault(location: string | undefined): string {
  return !location || location === 'global'
    ? 'https://aiplatform.googleapis.com'
    : `https://${location}-aiplatform.googleapis.com`;
}

function trimSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

export type UpstreamTarget =
  | { kind: 'url'; url: string }
  /** That API has no upstream (OpenAI without `--openai-upstream`). */
  | { kind: 'none' }
  /** The path names a Vertex AI location that is not one. */
  | { kind: 'bad-location'; location: string }
  /** The path would leave the upstream's origin (never for a path that starts with `/`). */
  | { kind: 'bad-path' };

/**
 * The full upstream URL of a request. The OpenAI base conventionally ends in `/v1` and chat paths
 * start with `/v1/chat/...` or `/chat/...`: the `/v1` is not doubled. The URL is parsed and must
 * keep the upstream's origin, so no part of a request's path can choose the host.
 */
export function upstreamTarget(upstreams: UpstreamUrls, route: ModelRoute): UpstreamTarget {
  if (route.location !== undefined && !isVertexLocation(route.location)) {
    return { kind: 'bad-location', location: route.location };
  }
  const base: Record<UpstreamName, string | undefined> = {
    gemini: upstreams.gemini,
    vertex: upstreams.vertex ?? vertexDefault(route.location),
    codeAssist: upstreams.codeAssist,
    openai: route.openaiRoute ? upstreams.openaiNamed?.[route.openaiRoute] : upstreams.openai,
    anthropic: upstreams.anthropic,
  };
  const root = base[route.upstream];
  if (!root) return { kind: 'none' };
  let path = route.upstreamPath;
  if (route.upstream === 'openai' && /\/v1$/.test(trimSlash(root)) && path.startsWith('/v1/')) {
    path = path.slice(3);
  }
  let rootUrl: URL;
  let url: URL;
  try {
    rootUrl = new URL(root);
    url = new URL(trimSlash(root) + path);
  } catch {
    // An upstream that is not a URL (a person's setting): the request fails and the
    // client gets the 502 for an unreachable upstream.
    return { kind: 'url', url: trimSlash(root) + path };
  }
  // The path is normalised (`..`, `%2e%2e`) by the URL parser: it must stay under the upstream's
  // own path (`/openai/../../admin` would leave an OpenAI base of `https://host/v1`).
  const basePath = trimSlash(rootUrl.pathname);
  const underBase = url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
  return url.origin === rootUrl.origin && underBase
    ? { kind: 'url', url: url.href }
    : { kind: 'bad-path' };
}

/**
 * `url` without the user name and password it may carry (`http://user:pass@host`): what is shown
 * (`/api/status`, the CLI) and stored (`gateway.json`). Not a URL: as it is.
 */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/**
 * `url` without its credentials, and those as a Basic `Authorization` header: a URL is shown and
 * logged in places, a header is not.
 */
export function splitCredentials(url: string): { url: string; authorization?: string } {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return { url };
    const user = decodeURIComponent(parsed.username);
    const password = decodeURIComponent(parsed.password);
    return {
      url: withoutCredentials(url),
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    };
  } catch {
    return { url };
  }
}

/** Every URL of `upstreams` without credentials (withoutCredentials). */
export function shownUpstreams<T extends Partial<UpstreamUrls>>(upstreams: T): T {
  const shown: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(upstreams)) {
    shown[name] =
      typeof value === 'string'
        ? withoutCredentials(value)
        : value && typeof value === 'object'
          ? Object.fromEntries(
              Object.entries(value).map(([key, url]) => [key, withoutCredentials(String(url))]),
            )
          : value;
  }
  return shown as T;
}
