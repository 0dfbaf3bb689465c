/**
 * qwen-code's chat recordings (`~/.qwen/projects/<project>/chats/<session>.jsonl`, as qwen-code
 * 0.24.4 writes them) turned into what the model was sent, read one line at a time.
 *
 * Each line is one record with a `type` and the session's `sessionId`, chained by `uuid` and
 * `parentUuid` (as Claude Code's transcripts are), but its `message` is a gemini Content
 * (`{ role, parts }`), which is what the replay models:
 * - `user`: the prompt;
 * - `assistant`: the model's answer (text, `functionCall` parts), with `usageMetadata`
 *   (`promptTokenCount`, `cachedContentTokenCount`) as the provider reported it;
 * - `tool_result`: the `functionResponse` parts of the calls' results;
 * - `system`: bookkeeping (telemetry, attribution snapshots): left out.
 * Records are taken in file order.
 */
import { isPlainObject } from '@toolmask/core/utils';
import type { Part } from '../replay/types.js';
import { TimeSpan, type AgentSessionRead } from './agent-session.js';
import { HistoryBuilder, countOf, timeOf } from './history-builder.js';
import { readJsonLines } from './json-lines.js';

type JsonObject = Record<string, unknown>;

const QWEN_RECORD_TYPES = new Set(['user', 'assistant', 'tool_result', 'system']);

/** The gemini parts of a record's message, or undefined when it has none. */
function partsOf(record: JsonObject): Part[] | undefined {
  const message = record['message'];
  if (!isPlainObject(message) || !Array.isArray(message['parts'])) return undefined;
  return (message['parts'] as unknown[]).filter(isPlainObject) as Part[];
}

/**
 * Whether a first line is a qwen-code chat record: a record type of its own and a Content as its
 * message, or the `provenance` Claude Code never writes.
 */
export function isQwenChatRecord(record: JsonObject): boolean {
  const type = record['type'];
  if (typeof type !== 'string' || !QWEN_RECORD_TYPES.has(type)) return false;
  if (typeof record['sessionId'] !== 'string' || 'projectHash' in record) return false;
  return partsOf(record) !== undefined || typeof record['provenance'] === 'string';
}

export async function readQwenChat(file: string): Promise<AgentSessionRead> {
  const builder = new HistoryBuilder();
  const time = new TimeSpan();
  const read = await readJsonLines(file, (record) => {
    time.see(timeOf(record['timestamp']));
    const parts = partsOf(record);
    if (!parts) return;
    switch (record['type']) {
      case 'user':
        builder.user(parts);
        return;
      case 'assistant': {
        builder.model(parts, { newAnswer: true });
        const usage = record['usageMetadata'];
        const prompt = isPlainObject(usage) ? countOf(usage['promptTokenCount']) : undefined;
        if (isPlainObject(usage) && prompt !== undefined) {
          const cached = countOf(usage['cachedContentTokenCount']);
          builder.usage({
            promptTokens: prompt,
            ...(cached !== undefined ? { cachedTokens: cached } : {}),
          });
        }
        return;
      }
      case 'tool_result':
        for (const part of parts) {
          const response = part.functionResponse;
          if (!response) continue;
          const output = response.response?.['output'];
          builder.toolResult(
            typeof response.id === 'string' ? response.id : '',
            typeof output === 'string' ? output : JSON.stringify(response.response ?? {}),
            [],
            typeof response.name === 'string' ? response.name : undefined,
          );
        }
        return;
      default:
    }
  });
  const warnings: string[] = [];
  if (read.tornLastLine) warnings.push(read.tornLastLine);
  return { histories: builder.finish(), provider: 'openai', warnings, ...time.span };
}
