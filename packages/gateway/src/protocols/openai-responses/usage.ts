/**
 * Usage in a Responses answer. Streamed, the final event carries the whole response with its
 * `usage`: `response.completed` (also `response.incomplete` and `response.failed`, which are
 * billed the same way); an answer that is not streamed is the response itself (`object:
 * "response"`) with `usage` at its top.
 *
 * `input_tokens` is the whole prompt, `input_tokens_details.cached_tokens` the part read from the
 * provider's cache (only an explicit count, as for chat completions: a server that leaves it out
 * may cache without saying so), `output_tokens` the answer (reasoning included).
 *
 * And which requests are side requests (../side-requests.ts).
 */
import { isPlainObject } from '@toolmask/core/utils';
import { stringAt } from '../../body/json-layout.js';
import type { UsageReport } from '../protocol.js';
import { JSON_SCHEMA, withoutTools } from '../side-requests.js';
import { tokenCount } from '../token-count.js';

const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

function reportOf(usage: unknown): UsageReport | undefined {
  if (!isPlainObject(usage)) return undefined;
  const report: UsageReport = {};
  const prompt = tokenCount(usage['input_tokens']);
  if (prompt !== undefined) report.promptTokens = prompt;
  const details = usage['input_tokens_details'];
  const cached = isPlainObject(details) ? tokenCount(details['cached_tokens']) : undefined;
  if (cached !== undefined) report.cachedTokens = cached;
  const output = tokenCount(usage['output_tokens']);
  if (output !== undefined) report.outputTokens = output;
  return report;
}

export function openAiResponsesUsage(event: unknown): UsageReport | undefined {
  if (!isPlainObject(event)) return undefined;
  const type = event['type'];
  if (typeof type === 'string' && FINAL_EVENTS.has(type)) {
    return isPlainObject(event['response']) ? reportOf(event['response']['usage']) : undefined;
  }
  return event['object'] === 'response' ? reportOf(event['usage']) : undefined;
}

/**
 * Codex (0.169.0, its terminal UI) names a session with a Responses call of `tools: []` and
 * `text.format.type: "json_schema"` (`codex_output_schema`, a `title`), seen from the real binary
 * against a loopback fake; `codex exec` makes none. A schema alone is not enough: `codex exec
 * --output-schema` puts one on its main turns too, which carry the agent's tools.
 */
export async function openAiResponsesSideRequest(raw: Buffer): Promise<boolean> {
  return (
    (await stringAt(raw, ['text', 'format', 'type'])) === JSON_SCHEMA && (await withoutTools(raw))
  );
}
