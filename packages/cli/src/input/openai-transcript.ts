/**
 * OpenAI-style transcripts (qwen-code and other chat-completions agents) turned into the
 * `Content[]` the replay engine plays: a JSON array of chat messages, or a request body
 * `{ messages: [...], ... }` (its other fields, such as `tools`, are not part of the history).
 *
 * Conversion keeps what the model was sent, in gemini's shape:
 * - `system`/`developer` and `user` messages become user contents of their text (a system prompt
 *   counts toward every request, as it does on the wire);
 * - an `assistant` message becomes a model content: its text, then one `functionCall` per
 *   `tool_calls` entry with the arguments parsed (kept as a string when they are not JSON);
 * - consecutive `tool` messages become one user content of `functionResponse` parts (gemini's
 *   shape for parallel calls), named by the `tool_calls` entry of the same id, the text in
 *   `response.output`.
 * Parts that are not text (images, audio) are left out, with one warning saying how many.
 *
 * An assistant message may carry the `usage` of the response that produced it (as logging
 * proxies and some exporters record it): `prompt_tokens` and, where the provider reports it,
 * `prompt_tokens_details.cached_tokens`. It is kept beside the model content, so replay can price
 * that request with the cache the provider really gave.
 */
import type { Content, Part, RecordedUsage } from '../replay/types.js';
import { isPlainObject } from '@toolmask/core/utils';
import { ToolmaskError } from '@toolmask/core/errors';
import { parseArguments } from './history-builder.js';

type JsonObject = Record<string, unknown>;

const MESSAGE_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

export interface ConvertedTranscript {
  contents: Content[];
  /** Recorded usage by index in `contents` (set on the model content the request produced). */
  recordedUsage: (RecordedUsage | undefined)[];
  warnings: string[];
}

/** What is wrong with a transcript; the loader prefixes the file name. Code `INVALID_TRANSCRIPT`. */
export class OpenAiTranscriptError extends ToolmaskError<'INVALID_TRANSCRIPT'> {
  constructor(message: string) {
    super('INVALID_TRANSCRIPT', message);
  }
}

/** The messages when `value` is an OpenAI-style transcript or request body, else undefined. */
export function openAiMessagesOf(value: unknown): unknown[] | undefined {
  const messages = isPlainObject(value) ? value['messages'] : value;
  if (!Array.isArray(messages) || messages.length === 0) return undefined;
  // Gemini's Content has `parts`; a chat message has a role of its own and no parts.
  const first = messages[0];
  if (!isPlainObject(first) || 'parts' in first || !MESSAGE_ROLES.has(String(first['role']))) {
    return undefined;
  }
  return messages;
}

/** Text parts only; `skipped` counts the others. */
function textOf(content: unknown, skipped: { parts: number }): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (isPlainObject(part) && part['type'] === 'text' && typeof part['text'] === 'string') {
      texts.push(part['text']);
    } else {
      skipped.parts++;
    }
  }
  return texts.join('');
}

function finiteCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function recordedUsageOf(message: JsonObject): RecordedUsage | undefined {
  const usage = message['usage'];
  if (!isPlainObject(usage)) return undefined;
  const promptTokens = finiteCount(usage['prompt_tokens']);
  if (promptTokens === undefined) return undefined;
  const details = usage['prompt_tokens_details'];
  const cachedTokens = isPlainObject(details) ? finiteCount(details['cached_tokens']) : undefined;
  return cachedTokens === undefined ? { promptTokens } : { promptTokens, cachedTokens };
}

export function openAiTranscriptToContents(messages: readonly unknown[]): ConvertedTranscript {
  const contents: Content[] = [];
  const recordedUsage: (RecordedUsage | undefined)[] = [];
  const toolNames = new Map<string, string>();
  const skipped = { parts: 0 };
  let unknownCallIds = 0;
  /** The user content collecting the current run of tool messages. */
  let toolRun: Part[] | undefined;

  const push = (content: Content, usage?: RecordedUsage) => {
    contents.push(content);
    recordedUsage.push(usage);
  };

  messages.forEach((message, index) => {
    if (!isPlainObject(message) || !MESSAGE_ROLES.has(String(message['role']))) {
      throw new OpenAiTranscriptError(
        `message ${index}: expected an object with role system, developer, user, assistant or tool`,
      );
    }
    const role = message['role'] as string;
    if (role !== 'tool') toolRun = undefined;

    if (role === 'tool') {
      const id = typeof message['tool_call_id'] === 'string' ? message['tool_call_id'] : '';
      let name = toolNames.get(id);
      if (name === undefined) {
        unknownCallIds++;
        name = 'unknown';
      }
      const part: Part = {
        functionResponse: { id, name, response: { output: textOf(message['content'], skipped) } },
      };
      if (toolRun) toolRun.push(part);
      else {
        toolRun = [part];
        push({ role: 'user', parts: toolRun });
      }
      return;
    }

    const text = textOf(message['content'], skipped);
    if (role !== 'assistant') {
      push({ role: 'user', parts: text ? [{ text }] : [] });
      return;
    }
    const parts: Part[] = text ? [{ text }] : [];
    const calls = Array.isArray(message['tool_calls']) ? (message['tool_calls'] as unknown[]) : [];
    for (const call of calls) {
      const fn = isPlainObject(call) ? call['function'] : undefined;
      if (!isPlainObject(call) || !isPlainObject(fn) || typeof fn['name'] !== 'string') continue;
      const id = typeof call['id'] === 'string' ? call['id'] : '';
      toolNames.set(id, fn['name']);
      parts.push({ functionCall: { id, name: fn['name'], args: parseArguments(fn['arguments']) } });
    }
    push({ role: 'model', parts }, recordedUsageOf(message));
  });

  const warnings: string[] = [];
  if (skipped.parts > 0) {
    warnings.push(`${skipped.parts} non-text content part(s) left out (images, audio)`);
  }
  if (unknownCallIds > 0) {
    warnings.push(
      `${unknownCallIds} tool message(s) answer a tool_call_id no assistant message announced (named "unknown")`,
    );
  }
  return { contents, recordedUsage, warnings };
}
