/** Every protocol front by kind. */
import type { FrontKind } from '../usage/usage-record.js';
import type { Front } from './front.js';
import { CODE_ASSIST_FRONT, GEMINI_API_FRONT, VERTEX_FRONT } from './gemini-fronts.js';
import { OPENAI_FRONT } from './openai-front.js';

export const FRONTS: Record<FrontKind, Front> = {
  'gemini-api': GEMINI_API_FRONT,
  vertex: VERTEX_FRONT,
  'code-assist': CODE_ASSIST_FRONT,
  openai: OPENAI_FRONT,
};
