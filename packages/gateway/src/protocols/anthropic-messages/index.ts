/** The Anthropic Messages API (Claude Code and other Messages clients). */
import { CACHE_ECONOMICS } from '@toolmask/core';
import type { Protocol } from '../protocol.js';
import { ANTHROPIC_MESSAGES_CODEC } from './codec.js';
import { anthropicErrorBody } from './errors.js';
import { CLAUDE_CODE_SESSION_HEADER } from './session.js';
import { anthropicSideRequest, anthropicUsage } from './usage.js';

export const ANTHROPIC_MESSAGES_PROTOCOL: Protocol = {
  kind: 'anthropic',
  codec: ANTHROPIC_MESSAGES_CODEC,
  usage: anthropicUsage,
  errorBody: anthropicErrorBody,
  sessionHeader: CLAUDE_CODE_SESSION_HEADER,
  // Writes at 1.25x (5-minute time to live), reads at 0.1x: a warm break must free more to pay.
  cache: CACHE_ECONOMICS.anthropic,
  isSideRequest: anthropicSideRequest,
  // Its clients' own masking is theirs to leave on: no answer is rewritten.
  clientMaskingOff: () => undefined,
};
