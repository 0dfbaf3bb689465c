/**
 * Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`, as Claude Code 2.1.328
 * writes them) turned into what the model was sent, read one line at a time.
 *
 * Each line is one record with a `type`. What matters:
 * - `user`: `message.content` is the prompt (a string, or text and image blocks) or, after a tool
 *   call, `tool_result` blocks (`tool_use_id`, `content` as a string or text and image blocks);
 *   parallel results come one record each and go into one user content here;
 * - `assistant`: one record per content block (text, `tool_use`, `thinking`), the blocks of one
 *   answer sharing `message.id` and its `usage` (`input_tokens`, `cache_read_input_tokens`,
 *   `cache_creation_input_tokens`: the prompt is their sum). Answers Claude Code made up itself
 *   (model `<synthetic>`, e.g. an API error shown as text) never came from the API: left out;
 * - `system` with `subtype: "compact_boundary"`: the context was compacted; what follows is a new
 *   history (the summary is the next user record);
 * - an `attachment` of type `prompt_snapshot` holds the system prompt: it leads every history.
 * Records with `isSidechain: true` are a subagent's own conversation, not the main one: left out.
 * Thinking blocks are left out (2.1.328 records them with their text omitted), and so are other
 * records (queue operations, api-request bookkeeping, file snapshots, attachments rendered as
 * system reminders). Records are taken in file order (a rewound branch stays in).
 */
import type { Part } from '../replay/types.js';
import { isPlainObject } from '@toolmask/core/utils';
import { TimeSpan, type AgentSessionRead } from './agent-session.js';
import { HistoryBuilder, countOf, imagePart, timeOf } from './history-builder.js';
import { readJsonLines } from './json-lines.js';

type JsonObject = Record<string, unknown>;

/**
 * Record types only Claude Code writes (a transcript may start with any of them). An interactive
 * session's transcript (2.1.332) starts with the session's settings as records of their own:
 * `{"type":"mode","mode":…,"sessionId":…}`, then `permission-mode`, `agent-name`, ….
 */
const CLAUDE_RECORD_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'attachment',
  'queue-operation',
  'file-history-snapshot',
  'last-prompt',
  'custom-title',
  'ai-title',
  'mode',
  'permission-mode',
  'repl-mode',
  'agent-name',
  'agent-color',
  'agent-setting',
  'tag',
  'relocated',
]);

/** Whether a first line is a Claude Code transcript record. */
export function isClaudeTranscriptRecord(record: JsonObject): boolean {
  const type = record['type'];
  if (typeof type !== 'string' || !CLAUDE_RECORD_TYPES.has(type)) return false;
  // gemini-cli's metadata line has a sessionId too, with a projectHash Claude Code never writes.
  if ('projectHash' in record) return false;
  return (
    typeof record['sessionId'] === 'string' ||
    typeof record['leafUuid'] === 'string' ||
    typeof record['messageId'] === 'string'
  );
}

interface Counts {
  images: number;
  skippedBlocks: number;
}

function textOfBlocks(content: unknown, extra: Part[], counts: Counts): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const block of content) {
    if (!isPlainObject(block)) continue;
    if (block['type'] === 'text' && typeof block['text'] === 'string') texts.push(block['text']);
    else if (block['type'] === 'image') pushImage(block, extra, counts);
    else counts.skippedBlocks++;
  }
  return texts.join('\n');
}

function pushImage(block: JsonObject, parts: Part[], counts: Counts): void {
  const source = block['source'];
  const part = isPlainObject(source) ? imagePart(source['media_type'], source['data']) : undefined;
  if (part) {
    parts.push(part);
    counts.images++;
  } else counts.skippedBlocks++;
}

function userRecord(message: JsonObject, builder: HistoryBuilder, counts: Counts): void {
  const content = message['content'];
  if (typeof content === 'string') {
    builder.user(content ? [{ text: content }] : []);
    return;
  }
  if (!Array.isArray(content)) return;
  const parts: Part[] = [];
  for (const block of content) {
    if (!isPlainObject(block)) continue;
    if (block['type'] === 'tool_result') {
      // Results arrive on their own: text before them is flushed as its own content first.
      builder.user(parts.splice(0));
      const extra: Part[] = [];
      const output = textOfBlocks(block['content'], extra, counts);
      builder.toolResult(String(block['tool_use_id'] ?? ''), output, extra);
    } else if (block['type'] === 'text' && typeof block['text'] === 'string') {
      parts.push({ text: block['text'] });
    } else if (block['type'] === 'image') {
      pushImage(block, parts, counts);
    } else counts.skippedBlocks++;
  }
  builder.user(parts);
}

function assistantParts(message: JsonObject, counts: Counts): Part[] {
  const content = Array.isArray(message['content']) ? message['content'] : [];
  const parts: Part[] = [];
  for (const block of content) {
    if (!isPlainObject(block)) continue;
    if (block['type'] === 'text' && typeof block['text'] === 'string' && block['text']) {
      parts.push({ text: block['text'] });
    } else if (block['type'] === 'tool_use') {
      const input = block['input'];
      parts.push({
        functionCall: {
          id: String(block['id'] ?? ''),
          name: String(block['name'] ?? 'unknown'),
          args: isPlainObject(input) ? input : {},
        },
      });
    } else if (block['type'] !== 'thinking' && block['type'] !== 'redacted_thinking') {
      counts.skippedBlocks++;
    }
  }
  return parts;
}

function usageOf(message: JsonObject) {
  const usage = message['usage'];
  if (!isPlainObject(usage)) return undefined;
  const input = countOf(usage['input_tokens']);
  if (input === undefined) return undefined;
  const read = countOf(usage['cache_read_input_tokens']) ?? 0;
  const write = countOf(usage['cache_creation_input_tokens']) ?? 0;
  return { promptTokens: input + read + write, cachedTokens: read, cacheWriteTokens: write };
}

function systemPromptOf(record: JsonObject): string | undefined {
  const attachment = record['attachment'];
  if (!isPlainObject(attachment) || attachment['type'] !== 'prompt_snapshot') return undefined;
  const prompt = attachment['systemPrompt'];
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt)) return prompt.filter((text) => typeof text === 'string').join('\n');
  return undefined;
}

export async function readClaudeTranscript(file: string): Promise<AgentSessionRead> {
  const builder = new HistoryBuilder();
  const times = new TimeSpan();
  const counts: Counts = { images: 0, skippedBlocks: 0 };
  let systemPrompt: string | undefined;
  let answerId: unknown;
  let answer: { hasContent: boolean; usage: ReturnType<typeof usageOf> } = {
    hasContent: false,
    usage: undefined,
  };

  const read = await readJsonLines(file, (record) => {
    times.see(timeOf(record['timestamp']));
    if (record['isSidechain'] === true) return;
    const type = record['type'];
    const message = isPlainObject(record['message']) ? record['message'] : undefined;
    if (type === 'attachment') {
      systemPrompt ??= systemPromptOf(record);
    } else if (type === 'system' && record['subtype'] === 'compact_boundary') {
      builder.restart();
      answerId = undefined;
    } else if (type === 'user' && message) {
      userRecord(message, builder, counts);
    } else if (type === 'assistant' && message && message['model'] !== '<synthetic>') {
      if (message['id'] !== answerId) {
        builder.closeAnswer();
        answer = { hasContent: false, usage: undefined };
      }
      answerId = message['id'];
      const parts = assistantParts(message, counts);
      builder.model(parts);
      answer.hasContent ||= parts.length > 0;
      answer.usage = usageOf(message) ?? answer.usage;
      // Each block of an answer repeats its usage; a thinking-only first block has no content
      // yet, so the usage waits for one (and never lands on the previous answer).
      if (answer.hasContent && answer.usage) builder.usage(answer.usage);
    }
  });

  const warnings: string[] = [];
  if (read.tornLastLine) warnings.push(read.tornLastLine);
  if (counts.skippedBlocks > 0) {
    warnings.push(
      `${counts.skippedBlocks} content block(s) of other kinds left out (documents, server tools)`,
    );
  }
  if (builder.unknownCallIds > 0) {
    warnings.push(
      `${builder.unknownCallIds} tool result(s) answer a tool_use_id no answer announced (named "unknown")`,
    );
  }
  return {
    histories: builder.finish(systemPrompt),
    provider: 'anthropic',
    ...times.span,
    warnings,
  };
}
