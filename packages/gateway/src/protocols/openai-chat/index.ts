/** OpenAI chat completions (qwen-code and other OpenAI-style agents). */
import { CACHE_ECONOMICS } from '@toolmask/core';
import type { Protocol } from '../protocol.js';
import { OPENAI_CHAT_CODEC } from './codec.js';
import { openAiErrorBody } from './errors.js';
import { openAiChatSideRequest, openAiChatUsage } from './usage.js';

export const OPENAI_CHAT_PROTOCOL: Protocol = {
  kind: 'openai',
  codec: OPENAI_CHAT_CODEC,
  usage: openAiChatUsage,
  errorBody: openAiErrorBody,
  // OpenAI's automatic caching, no write premium: what an OpenAI-compatible server is taken to do.
  cache: CACHE_ECONOMICS.openai,
  isSideRequest: openAiChatSideRequest,
  // Its clients' own masking is theirs to leave on: no answer is rewritten.
  clientMaskingOff: () => undefined,
};
