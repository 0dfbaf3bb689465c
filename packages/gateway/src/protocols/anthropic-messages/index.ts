/** The Anthropic Messages API (Claude Code and other Messages clients). */
import type { Protocol } from '../protocol.js';
import { ANTHROPIC_MESSAGES_CODEC } from './codec.js';
import { anthropicErrorBody } from './errors.js';
import { CLAUDE_CODE_SESSION_HEADER } from './session.js';
import { anthropicUsage } from './usage.js';

export const ANTHROPIC_MESSAGES_PROTOCOL: Protocol = {
  kind: 'anthropic',
  codec: ANTHROPIC_MESSAGES_CODEC,
  usage: anthropicUsage,
  errorBody: anthropicErrorBody,
  sessionHeader: CLAUDE_CODE_SESSION_HEADER,
};
