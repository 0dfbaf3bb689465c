/**
 * Which upstream a request goes to, and whether it carries a conversation to mask.
 *
 * A launcher gives each API its own path prefix (`/gemini`, `/vertex`, `/code-assist`, `/openai`):
 * gemini-cli keeps a prefix of its base URLs, so one port tells them apart. Without a prefix the
 * path itself says: `/v1internal:<method>` is Code Assist, `/<version>/[projects/<p>/locations/<l>/]
 * publishers/google/models/<m>:<method>` is Vertex AI, `/<version>/models/<m>:<method>` the Gemini
 * API, `/v1/chat/completions` an OpenAI-compatible API. Anything else goes to the Gemini API
 * upstream as it is.
 */
import type { FrontKind } from '../usage/usage-record.js';

export type UpstreamName = 'gemini' | 'vertex' | 'codeAssist' | 'openai';

/** What the gateway does with a request besides forwarding it. */
export type Action = 'mask' | 'countTokens' | 'listExperiments' | 'forward';

export interface RouteMatch {
  upstream: UpstreamName;
  front: FrontKind;
  /** The path to request upstream (prefix removed), with the query string. */
  upstreamPath: string;
  action: Action;
  model: string;
  /** Vertex: the location in the path, which picks the regional endpoint. */
  location?: string;
  /** OpenAI: a named upstream (`/openai/~<name>/...`). */
  openaiRoute?: string;
}

const PREFIXES: ReadonlyArray<[string, UpstreamName]> = [
  ['/gemini', 'gemini'],
  ['/vertex', 'vertex'],
  ['/code-assist', 'codeAssist'],
  ['/openai', 'openai'],
];

const CODE_ASSIST = /^\/v1[a-z0-9]*internal:([A-Za-z]+)$/;
const VERTEX =
  /^\/v1[a-z0-9]*\/(?:projects\/[^/]+\/locations\/([^/]+)\/)?publishers\/google\/models\/([^/:]+):([A-Za-z]+)$/;
const GEMINI = /^\/v1[a-z0-9]*\/(?:tuned)?models\/([^/:]+):([A-Za-z]+)$/;
const OPENAI = /^(?:\/v1)?\/chat\/completions$/;

function actionOf(method: string): Action {
  if (method === 'generateContent' || method === 'streamGenerateContent') return 'mask';
  if (method === 'countTokens') return 'countTokens';
  if (method === 'listExperiments') return 'listExperiments';
  return 'forward';
}

const FRONT_OF: Record<UpstreamName, FrontKind> = {
  gemini: 'gemini-api',
  vertex: 'vertex',
  codeAssist: 'code-assist',
  openai: 'openai',
};

export function matchRoute(method: string, rawUrl: string): RouteMatch {
  const queryAt = rawUrl.indexOf('?');
  let pathname = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
  const query = queryAt < 0 ? '' : rawUrl.slice(queryAt);
  let forced: UpstreamName | undefined;
  for (const [prefix, upstream] of PREFIXES) {
    if (pathname === prefix || pathname.startsWith(`${prefix}/`)) {
      forced = upstream;
      pathname = pathname.slice(prefix.length) || '/';
      break;
    }
  }
  let openaiRoute: string | undefined;
  const named = forced === 'openai' ? /^\/~([A-Za-z0-9_-]{1,32})(\/.*)$/.exec(pathname) : null;
  if (named) {
    openaiRoute = named[1];
    pathname = named[2] as string;
  }
  const post = method === 'POST';
  const result = (upstream: UpstreamName, action: Action, model = '', location?: string) => ({
    upstream: forced ?? upstream,
    front: FRONT_OF[forced ?? upstream],
    upstreamPath: pathname + query,
    action: post ? action : 'forward',
    model,
    ...(location ? { location } : {}),
    ...(openaiRoute ? { openaiRoute } : {}),
  });
  let match: RegExpExecArray | null;
  if ((match = CODE_ASSIST.exec(pathname)))
    return result('codeAssist', actionOf(match[1] as string));
  if ((match = VERTEX.exec(pathname))) {
    return result('vertex', actionOf(match[3] as string), match[2], match[1]);
  }
  if ((match = GEMINI.exec(pathname)))
    return result('gemini', actionOf(match[2] as string), match[1]);
  if (OPENAI.test(pathname)) return result('openai', 'mask');
  return { ...result('gemini', 'forward'), action: 'forward' };
}
