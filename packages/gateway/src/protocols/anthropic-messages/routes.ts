/**
 * The Messages API's paths: `POST /v1/messages` carries a conversation (Claude Code adds
 * `?beta=true`, kept in the query); every other path under `/v1/messages/` (`count_tokens`, the
 * batches) goes to the Anthropic upstream as it is, unmasked.
 */
import type { ProtocolRoute } from '../protocol.js';

const MESSAGES = '/v1/messages';

export const ANTHROPIC_MESSAGES_ROUTE: ProtocolRoute = {
  upstream: 'anthropic',
  match(pathname) {
    if (pathname === MESSAGES) return { action: 'mask', model: '' };
    return pathname.startsWith(`${MESSAGES}/`) ? { action: 'forward', model: '' } : undefined;
  },
};
