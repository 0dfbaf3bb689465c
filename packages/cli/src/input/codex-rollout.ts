/**
 * Codex session files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, as Codex 0.169.0 writes
 * them) turned into what the model was sent, read one line at a time.
 *
 * Each line is `{ timestamp, type, payload }`. What matters:
 * - `session_meta`: the session's id, cwd and `base_instructions.text` (the instructions sent
 *   with every request: they lead the history);
 * - `response_item`: the Responses API items as they went to and came from the model: `message`
 *   (`developer` / `user` input, `assistant` output), `function_call` / `custom_tool_call` /
 *   `local_shell_call` and their `*_output` items matched by `call_id` (the output item types are
 *   the gateway's own list, `@toolmask/gateway/responses-item-types`, so the replay and the
 *   gateway read the same items as tool outputs), `reasoning` (encrypted: left out, its size is
 *   unknown);
 * - usage: `token_usage_record` (`usage.input_tokens`, `cached_input_tokens`) after each answer,
 *   or, in files without those, the `event_msg` of type `token_count` (`info.last_token_usage`);
 * - `compacted`: Codex replaced the history (its `replacement_history` when recorded): what
 *   follows is a new history.
 * Other records (turn contexts, UI events, world state) are not part of the conversation.
 */
import type { Part } from '../replay/types.js';
import { isPlainObject } from '@toolmask/core/utils';
import {
  TEXTLESS_OUTPUT_ITEM_TYPES,
  TOOL_OUTPUT_ITEM_TYPES,
} from '@toolmask/gateway/responses-item-types';
import { TimeSpan, type AgentSessionRead } from './agent-session.js';
import { HistoryBuilder, countOf, imagePart, parseArguments, timeOf } from './history-builder.js';
import { readJsonLines } from './json-lines.js';

type JsonObject = Record<string, unknown>;

const CODEX_RECORD_TYPES = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'token_usage_record',
  'compacted',
]);

/** Whether a first line is a Codex rollout record. */
export function isCodexRolloutRecord(record: JsonObject): boolean {
  return (
    typeof record['type'] === 'string' &&
    CODEX_RECORD_TYPES.has(record['type']) &&
    isPlainObject(record['payload'])
  );
}

/**
 * Items that answer a call, each a tool result of the history: a tool's output, and a tool
 * search's loaded tools (no text: an empty result, which keeps the rollout's turns where they are).
 */
const OUTPUT_TYPES = new Set<string>([...TOOL_OUTPUT_ITEM_TYPES, ...TEXTLESS_OUTPUT_ITEM_TYPES]);

interface Counts {
  reasoning: number;
  other: number;
}

/** An image given as a data URL (`data:image/png;base64,...`). */
function dataUrlImage(url: unknown): Part | undefined {
  if (typeof url !== 'string') return undefined;
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? imagePart(match[1], match[2]) : undefined;
}

/** Text of a message's content items, images as parts beside it. */
function contentParts(content: unknown): Part[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  const parts: Part[] = [];
  for (const item of content) {
    if (!isPlainObject(item)) continue;
    if (typeof item['text'] === 'string' && item['text']) parts.push({ text: item['text'] });
    else if (item['type'] === 'input_image') {
      const image = dataUrlImage(item['image_url']);
      if (image) parts.push(image);
    }
  }
  return parts;
}

/** An output item's text (a string, content items, or `{ content }`), images beside it. */
function outputOf(output: unknown): { text: string; images: Part[] } {
  if (typeof output === 'string') return { text: output, images: [] };
  const items = isPlainObject(output) ? output['content'] : output;
  if (typeof items === 'string') return { text: items, images: [] };
  const parts = contentParts(items);
  return {
    text: parts
      .map((part) => part.text ?? '')
      .filter(Boolean)
      .join('\n'),
    images: parts.filter((part) => part.inlineData),
  };
}

function responseItem(item: JsonObject, builder: HistoryBuilder, counts: Counts): void {
  const type = item['type'];
  const callId = String(item['call_id'] ?? item['id'] ?? '');
  if (type === 'message') {
    const parts = contentParts(item['content']);
    if (item['role'] === 'assistant') builder.model(parts);
    else builder.user(parts);
  } else if (type === 'function_call') {
    // MCP tools are called with their namespace (`mcp__<server>`): part of the tool's name.
    const name = String(item['name'] ?? 'unknown');
    const namespace = typeof item['namespace'] === 'string' ? `${item['namespace']}__` : '';
    builder.model([
      {
        functionCall: {
          id: callId,
          name: namespace + name,
          args: parseArguments(item['arguments']),
        },
      },
    ]);
  } else if (type === 'custom_tool_call') {
    const args = { input: item['input'] ?? '' };
    builder.model([
      { functionCall: { id: callId, name: String(item['name'] ?? 'unknown'), args } },
    ]);
  } else if (type === 'local_shell_call') {
    const action = isPlainObject(item['action']) ? item['action'] : {};
    builder.model([{ functionCall: { id: callId, name: 'local_shell', args: action } }]);
  } else if (typeof type === 'string' && OUTPUT_TYPES.has(type)) {
    const { text, images } = outputOf(item['output']);
    builder.toolResult(callId, text, images);
  } else if (type === 'reasoning') {
    counts.reasoning++;
  } else {
    counts.other++;
  }
}

function usageOf(usage: unknown) {
  if (!isPlainObject(usage)) return undefined;
  const promptTokens = countOf(usage['input_tokens']);
  if (promptTokens === undefined) return undefined;
  const cachedTokens = countOf(usage['cached_input_tokens']) ?? 0;
  const write = countOf(usage['cache_write_input_tokens']);
  return { promptTokens, cachedTokens, ...(write ? { cacheWriteTokens: write } : {}) };
}

export async function readCodexRollout(file: string): Promise<AgentSessionRead> {
  const builder = new HistoryBuilder();
  const times = new TimeSpan();
  const counts: Counts = { reasoning: 0, other: 0 };
  let instructions: string | undefined;
  let usageRecords = false;

  const read = await readJsonLines(file, (record) => {
    times.see(timeOf(record['timestamp']));
    const payload = isPlainObject(record['payload']) ? record['payload'] : {};
    switch (record['type']) {
      case 'session_meta': {
        const base = payload['base_instructions'];
        const text = isPlainObject(base) ? base['text'] : payload['instructions'];
        if (typeof text === 'string' && text) instructions ??= text;
        break;
      }
      case 'response_item':
        responseItem(payload, builder, counts);
        break;
      case 'token_usage_record': {
        const usage = usageOf(payload['usage']);
        if (usage) {
          usageRecords = true;
          builder.usage(usage);
          builder.closeAnswer();
        }
        break;
      }
      case 'event_msg': {
        // Older files have only these; in newer ones they repeat the usage records.
        if (payload['type'] !== 'token_count' || usageRecords) break;
        const info = payload['info'];
        const usage = isPlainObject(info) ? usageOf(info['last_token_usage']) : undefined;
        if (usage && !builder.latestAnswerHasUsage()) builder.usage(usage);
        break;
      }
      case 'compacted': {
        builder.restart();
        const replacement = payload['replacement_history'];
        if (Array.isArray(replacement)) {
          for (const item of replacement)
            if (isPlainObject(item)) responseItem(item, builder, counts);
        }
        break;
      }
    }
  });

  const warnings: string[] = [];
  if (read.tornLastLine) warnings.push(read.tornLastLine);
  if (builder.unknownCallIds > 0) {
    warnings.push(
      `${builder.unknownCallIds} tool output(s) answer a call_id no call announced (named "unknown")`,
    );
  }
  return { histories: builder.finish(instructions), provider: 'openai', ...times.span, warnings };
}
