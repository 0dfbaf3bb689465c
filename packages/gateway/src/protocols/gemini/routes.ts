/**
 * The Gemini family's paths: `/v1internal:<method>` is Code Assist, `/<version>/[projects/<p>/
 * locations/<l>/]publishers/google/models/<m>:<method>` Vertex AI, `/<version>/models/<m>:<method>`
 * the Gemini API. `generateContent` and `streamGenerateContent` are masked, `countTokens` counts
 * what would be sent, `listExperiments` (Code Assist) turns gemini-cli's own masking off.
 */
import type { Action, ProtocolRoute } from '../protocol.js';

const CODE_ASSIST = /^\/v1[a-z0-9]*internal:([A-Za-z]+)$/;
const VERTEX =
  /^\/v1[a-z0-9]*\/(?:projects\/[^/]+\/locations\/([^/]+)\/)?publishers\/google\/models\/([^/:]+):([A-Za-z]+)$/;
const GEMINI = /^\/v1[a-z0-9]*\/(?:tuned)?models\/([^/:]+):([A-Za-z]+)$/;

function actionOf(method: string): Action {
  if (method === 'generateContent' || method === 'streamGenerateContent') return 'mask';
  if (method === 'countTokens') return 'countTokens';
  if (method === 'listExperiments') return 'listExperiments';
  return 'forward';
}

export const CODE_ASSIST_ROUTE: ProtocolRoute = {
  upstream: 'codeAssist',
  match(pathname) {
    const match = CODE_ASSIST.exec(pathname);
    return match ? { action: actionOf(match[1] as string), model: '' } : undefined;
  },
};

export const VERTEX_ROUTE: ProtocolRoute = {
  upstream: 'vertex',
  match(pathname) {
    const match = VERTEX.exec(pathname);
    if (!match) return undefined;
    return {
      action: actionOf(match[3] as string),
      model: match[2] as string,
      ...(match[1] ? { location: match[1] } : {}),
    };
  },
};

export const GEMINI_API_ROUTE: ProtocolRoute = {
  upstream: 'gemini',
  match(pathname) {
    const match = GEMINI.exec(pathname);
    return match ? { action: actionOf(match[2] as string), model: match[1] as string } : undefined;
  },
};
