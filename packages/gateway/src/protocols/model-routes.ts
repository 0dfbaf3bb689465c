/**
 * Which protocol and upstream a model request goes to, and whether it carries a conversation to
 * mask.
 *
 * A launcher gives each API its own path prefix (`/gemini`, `/vertex`, `/code-assist`, `/openai`,
 * `/anthropic`):
 * gemini-cli keeps a prefix of its base URLs, so one port tells them apart. Without a prefix the
 * path itself says, by each protocol's routes (protocols.ts); `/openai` serves two protocols (chat
 * completions and the Responses API), told apart by their paths. Anything else goes to the Gemini API
 * upstream as it is. Only a POST is masked; any other method is forwarded.
 */
import { PROTOCOL_OF, PROTOCOL_ROUTES } from './protocols.js';
import type { ModelRoute, ProtocolKind, UpstreamName } from './protocol.js';

const PREFIXES: ReadonlyArray<[string, UpstreamName]> = [
  ['/gemini', 'gemini'],
  ['/vertex', 'vertex'],
  ['/code-assist', 'codeAssist'],
  ['/openai', 'openai'],
  ['/anthropic', 'anthropic'],
];

export function matchModelRoute(method: string, rawUrl: string): ModelRoute {
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
  let found: Pick<ModelRoute, 'upstream' | 'action' | 'model' | 'location'> & {
    protocol?: ProtocolKind;
  } = {
    upstream: 'gemini',
    action: 'forward',
    model: '',
  };
  for (const route of PROTOCOL_ROUTES) {
    const match = route.match(pathname);
    if (match) {
      found = {
        upstream: route.upstream,
        ...(route.protocol ? { protocol: route.protocol } : {}),
        ...match,
      };
      break;
    }
  }
  const upstream = forced ?? found.upstream;
  // A route's own protocol holds on its own upstream (`/openai/v1/responses`), not another's.
  const protocol =
    found.protocol && found.upstream === upstream ? found.protocol : PROTOCOL_OF[upstream];
  return {
    upstream,
    protocol,
    upstreamPath: pathname + query,
    action: method === 'POST' ? found.action : 'forward',
    model: found.model,
    ...(found.location ? { location: found.location } : {}),
    ...(openaiRoute ? { openaiRoute } : {}),
  };
}
