/**
 * Usage in a Gemini answer: `usageMetadata` of a response (Code Assist wraps the response as
 * `{ response: {...} }`).
 */
import { isPlainObject } from '@toolmask/core/utils';
import type { ProtocolKind, UsageReport } from '../protocol.js';
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
