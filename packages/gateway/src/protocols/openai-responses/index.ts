/** The OpenAI Responses API (Codex and other Responses clients). */
import { CACHE_ECONOMICS } from '@toolmask/core';
import { responsesErrorBody } from './errors.js';
import type { Protocol } from '../protocol.js';
import { OPENAI_RESPONSES_CODEC } from './codec.js';
import { CODEX_SESSION_HEADER } from './session.js';
import { openAiResponsesSideRequest, openAiResponsesUsage } from './usage.js';

export const OPENAI_RESPONSES_PROTOCOL: Protocol = {
  kind: 'openai-responses',
  codec: OPENAI_RESPONSES_CODEC,
  usage: openAiResponsesUsage,
  // OpenAI's error body, the same for both of its APIs.
  errorBody: responsesErrorBody,
  sessionHeader: CODEX_SESSION_HEADER,
  cache: CACHE_ECONOMICS.openai,
  isSideRequest: openAiResponsesSideRequest,
  // Its clients' own masking is theirs to leave on: no answer is rewritten.
  clientMaskingOff: () => undefined,
};
