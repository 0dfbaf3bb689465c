/**
 * One request of a `GeminiClient` through the middleware: the history is the client's
 * `getHistory()` (a merged copy whose parts are the live ones), the request is the `PartListUnion`
 * being sent as a user `Content`. The masked history is written back onto the live chat
 * (historyWriteBack.ts); the masked request replaces the original part for part, with the same
 * checks (same ids and names, nothing restructured).
 */
import type { Content, GeminiClient, Part } from '@google/gemini-cli-core';
import type { MaskingMiddleware } from '../services/maskingMiddleware.js';
import type { SendArgs } from './clientPatch.js';
import {
  collectPartReplacements,
  writeBackMaskedHistory,
  type WriteBackResult,
} from './historyWriteBack.js';
import type { MaskingPass } from './installationTypes.js';

/** What `sendMessageStream` accepts as a request (`@google/genai`'s PartListUnion). */
export type PartListUnion = SendArgs[0];

function toParts(request: PartListUnion): Part[] {
  const list = Array.isArray(request) ? request : [request];
  return list.map((item) => (typeof item === 'string' ? { text: item } : item));
}

export interface MaskedClientRequest {
  /** What to send: the original request unless one of its parts was masked. */
  request: PartListUnion;
  writeBack: WriteBackResult;
  pass: Omit<MaskingPass, 'promptId'>;
}

export async function maskClientRequest(
  client: GeminiClient,
  middleware: MaskingMiddleware,
  request: PartListUnion,
  signal: AbortSignal,
  /** Sees the history before the pass (the installation records restored snippets). */
  beforePass?: (history: readonly Content[]) => void,
  /** The search tool the host offers, named in new snippets beside the read-back tool. */
  searchToolName?: string,
): Promise<MaskedClientRequest> {
  const parts = toParts(request);
  const pending: Content = { role: 'user', parts };
  const history = client.getHistory();
  beforePass?.(history);
  const masked = await middleware.transformRequest({
    history,
    request: pending,
    signal,
    ...(searchToolName ? { searchToolName } : {}),
  });
  const writeBack = writeBackMaskedHistory(client.getChat(), history, masked.result);
  let finalRequest: PartListUnion = request;
  let requestPartsMasked = 0;
  if (masked.request !== pending) {
    const { replacements } = collectPartReplacements([pending], {
      newHistory: [masked.request],
      changedIndices: [0],
    });
    if (replacements.size > 0) {
      requestPartsMasked = replacements.size;
      finalRequest = parts.map((part) => replacements.get(part) ?? part);
    }
  }
  return {
    request: finalRequest,
    writeBack,
    pass: {
      result: masked.result,
      cacheLikelyCold: masked.cacheLikelyCold,
      writeBack,
      requestPartsMasked,
    },
  };
}
