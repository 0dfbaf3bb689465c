/** OpenAI chat completions: `/v1/chat/completions` (or `/chat/completions` under a base path). */
import type { ProtocolRoute } from '../protocol.js';

const CHAT_COMPLETIONS = /^(?:\/v1)?\/chat\/completions$/;

export const OPENAI_CHAT_ROUTE: ProtocolRoute = {
  upstream: 'openai',
  match: (pathname) =>
    CHAT_COMPLETIONS.test(pathname) ? { action: 'mask', model: '' } : undefined,
};
