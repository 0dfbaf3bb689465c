/**
 * Usage in a Messages answer. Streamed: `message_start` carries `message.usage` (the prompt's
 * figures) and `message_delta` the final `usage.output_tokens`; an answer that is not streamed
 * carries `usage` at its top (`type: "message"`).
 *
 * Anthropic counts a prompt in three parts: `input_tokens` (after the last cache breakpoint),
 * `cache_read_input_tokens` and `cache_creation_input_tokens`. The report's `promptTokens` is the
 * whole prompt (their sum, as the other protocols report it), `cachedTokens` the reads and
 * `cacheWriteTokens` the writes (an absent or null part is 0).
 *
 * And which requests are side requests (../side-requests.ts).
 */
import { isPlainObject } from '@toolmask/core/utils';
import { stringAt } from '../../body/json-layout.js';
import type { UsageReport } from '../protocol.js';
import { JSON_SCHEMA, withoutTools } from '../side-requests.js';
import { tokenCount } from '../token-count.js';

/**
 * The report of one `usage` object; the prompt's figures only when it has `input_tokens`. In a
 * `message_delta` (`partial`), a cache part that is null or absent means "as before", not 0: the
 * prompt's figures are then left as `message_start` gave them (the tap keeps the last value of
 * each field), or a delta would wipe the cache reads the start reported.
 */
function reportOf(usage: unknown, partial = false): UsageReport | undefined {
  if (!isPlainObject(usage)) return undefined;
  const report: UsageReport = {};
  const input = tokenCount(usage['input_tokens']);
  const readPart = tokenCount(usage['cache_read_input_tokens']);
  const writtenPart = tokenCount(usage['cache_creation_input_tokens']);
  const complete = !partial || (readPart !== undefined && writtenPart !== undefined);
  if (input !== undefined && complete) {
    const read = readPart ?? 0;
    const written = writtenPart ?? 0;
    report.promptTokens = input + read + written;
    report.cachedTokens = read;
    report.cacheWriteTokens = written;
  }
  const output = tokenCount(usage['output_tokens']);
  if (output !== undefined) report.outputTokens = output;
  return report;
}

export function anthropicUsage(event: unknown): UsageReport | undefined {
  if (!isPlainObject(event)) return undefined;
  switch (event['type']) {
    case 'message_start':
      return isPlainObject(event['message']) ? reportOf(event['message']['usage']) : undefined;
    case 'message_delta':
      return reportOf(event['usage'], true);
    case 'message':
      return reportOf(event['usage']);
    default:
      return undefined;
  }
}

/**
 * Claude Code (2.1.328, interactive) names a session with a Messages call of `tools: []` and
 * `output_config.format.type: "json_schema"` (a `title` object), seen from the real binary
 * against a loopback fake; its headless runs (`claude -p`) make none. A schema alone is not
 * enough: a structured turn carries the agent's tools.
 */
export async function anthropicSideRequest(raw: Buffer): Promise<boolean> {
  return (
    (await stringAt(raw, ['output_config', 'format', 'type'])) === JSON_SCHEMA &&
    (await withoutTools(raw))
  );
}
