/**
 * Usage in a Gemini answer: `usageMetadata` of a response (Code Assist wraps the response as
 * `{ response: {...} }`); and which requests are side requests (../side-requests.ts).
 */
import { isPlainObject } from '@toolmask/core/utils';
import { stringAt } from '../../body/json-layout.js';
import type { ProtocolKind, UsageReport } from '../protocol.js';
import { JSON_ANSWER } from '../side-requests.js';
import { tokenCount } from '../token-count.js';

export function geminiUsage(kind: ProtocolKind, event: unknown): UsageReport | undefined {
  if (!isPlainObject(event)) return undefined;
  const response =
    kind === 'code-assist' && isPlainObject(event['response']) ? event['response'] : event;
  const metadata = response['usageMetadata'];
  if (!isPlainObject(metadata)) return undefined;
  const report: UsageReport = {};
  const prompt = tokenCount(metadata['promptTokenCount']);
  if (prompt !== undefined) report.promptTokens = prompt;
  // Gemini omits the cached count when nothing was cached: then it is 0.
  if (prompt !== undefined)
    report.cachedTokens = tokenCount(metadata['cachedContentTokenCount']) ?? 0;
  const output = tokenCount(metadata['candidatesTokenCount']);
  if (output !== undefined) report.outputTokens = output;
  return report;
}

/**
 * gemini-cli's `generateJson` (the model router's complexity check, the next-speaker check) sets
 * `generationConfig.responseMimeType` to `application/json` with a `responseJsonSchema`; a main
 * turn never does. Code Assist wraps the request as `{ request: {...} }`.
 */
export function geminiSideRequest(kind: ProtocolKind): (raw: Buffer) => Promise<boolean> {
  const path =
    kind === 'code-assist'
      ? ['request', 'generationConfig', 'responseMimeType']
      : ['generationConfig', 'responseMimeType'];
  return async (raw) => (await stringAt(raw, path)) === JSON_ANSWER;
}
