/**
 * The Responses API's paths: `POST /v1/responses` (or `/responses` under a base path, as the chat
 * front takes `/chat/completions`) carries a conversation; every other path under it (retrieve,
 * cancel, `input_items`, Codex's `compact`) goes to the OpenAI upstream as it is, unmasked. The
 * upstream is the chat front's (`--openai-upstream`, and the named `/openai/~<name>/` routes);
 * the protocol is this one's, whatever the prefix (model-routes.ts).
 */
import type { ProtocolRoute } from '../protocol.js';

const RESPONSES = /^(?:\/v1)?\/responses$/;
const UNDER_RESPONSES = /^(?:\/v1)?\/responses\//;

export const OPENAI_RESPONSES_ROUTE: ProtocolRoute = {
  upstream: 'openai',
  protocol: 'openai-responses',
  match(pathname) {
    if (RESPONSES.test(pathname)) return { action: 'mask', model: '' };
    return UNDER_RESPONSES.test(pathname) ? { action: 'forward', model: '' } : undefined;
  },
};
