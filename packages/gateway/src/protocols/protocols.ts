/**
 * Every protocol the gateway speaks, by kind, and the paths of each in the order they are tried
 * (model-routes.ts). A new protocol is a folder beside these (see protocol.ts), its kind in
 * `ProtocolKind`, a line in each table here, and, when it has an upstream of its own, its name in
 * `UpstreamName` and `UpstreamUrls` (upstream/upstreams.ts) and a path prefix in model-routes.ts;
 * one that shares another's upstream (the Responses API, on `openai`) names its protocol in its
 * route instead.
 */
import { CODE_ASSIST_PROTOCOL, GEMINI_API_PROTOCOL, VERTEX_PROTOCOL } from './gemini/index.js';
import { CODE_ASSIST_ROUTE, GEMINI_API_ROUTE, VERTEX_ROUTE } from './gemini/routes.js';
import { ANTHROPIC_MESSAGES_PROTOCOL } from './anthropic-messages/index.js';
import { ANTHROPIC_MESSAGES_ROUTE } from './anthropic-messages/routes.js';
import { OPENAI_CHAT_PROTOCOL } from './openai-chat/index.js';
import { OPENAI_CHAT_ROUTE } from './openai-chat/routes.js';
import { OPENAI_RESPONSES_PROTOCOL } from './openai-responses/index.js';
import { OPENAI_RESPONSES_ROUTE } from './openai-responses/routes.js';
import type { Protocol, ProtocolKind, ProtocolRoute, UpstreamName } from './protocol.js';

export const PROTOCOLS: Record<ProtocolKind, Protocol> = {
  'gemini-api': GEMINI_API_PROTOCOL,
  vertex: VERTEX_PROTOCOL,
  'code-assist': CODE_ASSIST_PROTOCOL,
  openai: OPENAI_CHAT_PROTOCOL,
  'openai-responses': OPENAI_RESPONSES_PROTOCOL,
  anthropic: ANTHROPIC_MESSAGES_PROTOCOL,
};

/** Tried in this order; the first that matches a path decides. */
export const PROTOCOL_ROUTES: readonly ProtocolRoute[] = [
  CODE_ASSIST_ROUTE,
  VERTEX_ROUTE,
  GEMINI_API_ROUTE,
  OPENAI_CHAT_ROUTE,
  OPENAI_RESPONSES_ROUTE,
  ANTHROPIC_MESSAGES_ROUTE,
];

/** The protocol of each upstream's requests, unless the route that matched says another. */
export const PROTOCOL_OF: Record<UpstreamName, ProtocolKind> = {
  gemini: 'gemini-api',
  vertex: 'vertex',
  codeAssist: 'code-assist',
  openai: 'openai',
  anthropic: 'anthropic',
};
