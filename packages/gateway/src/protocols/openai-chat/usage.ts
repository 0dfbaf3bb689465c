/**
 * Usage in an OpenAI chat answer: `usage` of the last chunk (or of the whole answer); and which
 * requests are side requests (../side-requests.ts).
 */
import { isPlainObject } from '@toolmask/core/utils';
import { stringAt } from '../../body/json-layout.js';
import type { UsageReport } from '../protocol.js';
import { tokenCount } from '../token-count.js';

export function openAiChatUsage(event: unknown): UsageReport | undefined {
  if (!isPlainObject(event) || !isPlainObject(event['usage'])) return undefined;
  const usage = event['usage'];
  const report: UsageReport = {};
  const prompt = tokenCount(usage['prompt_tokens']);
  if (prompt !== undefined) report.promptTokens = prompt;
  const details = usage['prompt_tokens_details'];
  // Only an explicit count: many OpenAI-compatible servers cache without saying so.
  const cached = isPlainObject(details) ? tokenCount(details['cached_tokens']) : undefined;
  if (cached !== undefined) report.cachedTokens = cached;
  const output = tokenCount(usage['completion_tokens']);
  if (output !== undefined) report.outputTokens = output;
  return report;
}

/**
 * qwen-code's `generateJson` over OpenAI sends one `respond_in_schema` tool with `tool_choice:
 * "required"`, which a main turn never sets; `response_format` is OpenAI's own way.
 */
export async function openAiChatSideRequest(raw: Buffer): Promise<boolean> {
  return (
    (await stringAt(raw, ['tool_choice'])) === 'required' ||
    /^json_(schema|object)$/.test((await stringAt(raw, ['response_format', 'type'])) ?? '')
  );
}
