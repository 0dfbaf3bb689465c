/** The Gemini API, Vertex AI and Code Assist: one protocol family, three kinds. */
import { CACHE_ECONOMICS } from '@toolmask/core';
import type { Protocol, ProtocolKind } from '../protocol.js';
import { geminiCodec } from './codec.js';
import { googleErrorBody } from './errors.js';
import { withClientMaskingOff } from './client-masking.js';
import { geminiSideRequest, geminiUsage } from './usage.js';

function geminiProtocol(kind: ProtocolKind): Protocol {
  return {
    kind,
    codec: geminiCodec(kind),
    usage: (event) => geminiUsage(kind, event),
    errorBody: googleErrorBody,
    // Implicit caching: no write premium.
    cache: CACHE_ECONOMICS.gemini,
    isSideRequest: geminiSideRequest(kind),
    // gemini-cli reads its masking thresholds from `listExperiments` (Code Assist's, in practice).
    clientMaskingOff: (action) => (action === 'listExperiments' ? withClientMaskingOff : undefined),
  };
}

export const GEMINI_API_PROTOCOL = geminiProtocol('gemini-api');
export const VERTEX_PROTOCOL = geminiProtocol('vertex');
export const CODE_ASSIST_PROTOCOL = geminiProtocol('code-assist');
