/**
 * One Messages API message as the masking core's `Content`, and a masked `Content` written back
 * into the message it came from.
 *
 * - A `user` message: its text as text parts and each `tool_result` block as a `functionResponse`
 *   (`id`: the `tool_use_id`; `name`: the tool of the matching `tool_use` block; `response`:
 *   `{ output: <its text> }`). All the results of one turn are in one message, so the pass sees
 *   them as one entry, as in Gemini's shape.
 * - An `assistant` message (role `model`): its text, and each `tool_use` as a `functionCall`.
 *   Thinking, server tools and anything else add no part: the core counts tool outputs only, and
 *   needs the rest for positions and the cold signal.
 * - A `system` message between turns (Claude Code sends them): role `system`, text only.
 *
 * A tool result whose `tool_use_id` no earlier `tool_use` announced, or whose content has an
 * unexpected shape, adds no part (it is no person's prompt, so it must not look like one to the
 * cold signal) and is counted as left alone. Written back, only the `content` of the tool results
 * whose text the pass replaced changes; every other block and key, `is_error` and `cache_control`
 * included, is the client's own value.
 */
import type { Content, Part } from '@toolmask/core';
import { isPlainObject } from '@toolmask/core/utils';
import { callArguments } from '../call-arguments.js';
import { toolResultText, withSnippet } from './tool-result-content.js';
import type { ToolNames } from '../message-array-codec.js';

type JsonObject = Record<string, unknown>;

/** The blocks of a message's content; a string is one text block. */
function blocksOf(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

/** Adds the tools an assistant message calls (`tool_use` blocks) to `names`. */
export function learnToolNames(message: unknown, names: ToolNames): void {
  if (!isPlainObject(message) || message['role'] !== 'assistant') return;
  for (const block of blocksOf(message['content'])) {
    if (!isPlainObject(block) || block['type'] !== 'tool_use') continue;
    const { id, name } = block;
    if (typeof id === 'string') names.set(id, typeof name === 'string' ? name : '');
  }
}

function textPart(block: unknown): Part | undefined {
  return isPlainObject(block) &&
    block['type'] === 'text' &&
    typeof block['text'] === 'string' &&
    block['text']
    ? { text: block['text'] }
    : undefined;
}

/** A tool result as a function response, or undefined when it is left as it came. */
function toolResultPart(block: JsonObject, names: ToolNames): Part | undefined {
  const id = block['tool_use_id'];
  const name = typeof id === 'string' ? names.get(id) : undefined;
  const text = toolResultText(block['content']);
  if (name === undefined || text === undefined) return undefined;
  return { functionResponse: { id: id as string, name, response: { output: text } } };
}

/** `message` as a Content; `unmaskable`: its tool results left as they came. */
export function toContent(
  message: unknown,
  names: ToolNames,
): { content: Content; unmaskable: number } {
  if (!isPlainObject(message)) return { content: { role: 'user', parts: [] }, unmaskable: 0 };
  const role = message['role'];
  const parts: Part[] = [];
  let unmaskable = 0;
  for (const block of blocksOf(message['content'])) {
    const text = textPart(block);
    if (text) parts.push(text);
    else if (role === 'assistant' && isPlainObject(block) && block['type'] === 'tool_use') {
      const name = typeof block['name'] === 'string' ? block['name'] : '';
      const args = callArguments(block['input']);
      parts.push({ functionCall: { id: String(block['id'] ?? ''), name, args } });
    } else if (role === 'user' && isPlainObject(block) && block['type'] === 'tool_result') {
      const result = toolResultPart(block, names);
      if (result) parts.push(result);
      else unmaskable++;
    }
  }
  const contentRole = role === 'assistant' ? 'model' : role === 'system' ? 'system' : 'user';
  return { content: { role: contentRole, parts }, unmaskable };
}

/** The output text the pass sent for each tool call id of `sent`. */
function sentOutputs(sent: Content): Map<string, string> {
  const outputs = new Map<string, string>();
  for (const part of sent.parts ?? []) {
    const response = part.functionResponse;
    const output = (response?.response as { output?: unknown } | undefined)?.output;
    if (response?.id !== undefined && typeof output === 'string') outputs.set(response.id, output);
  }
  return outputs;
}

/**
 * `original` with the pass's output in each tool result whose text it changed (matched by
 * `tool_use_id`), in the shape its content came in; the message itself when nothing changed.
 */
export function withMaskedResults(original: unknown, sent: Content): unknown {
  if (
    !isPlainObject(original) ||
    original['role'] !== 'user' ||
    !Array.isArray(original['content'])
  ) {
    return original;
  }
  const outputs = sentOutputs(sent);
  let changed = false;
  const content = (original['content'] as unknown[]).map((block) => {
    if (!isPlainObject(block) || block['type'] !== 'tool_result') return block;
    const output = outputs.get(block['tool_use_id'] as string);
    if (output === undefined || output === toolResultText(block['content'])) return block;
    changed = true;
    return { ...block, content: withSnippet(block['content'], output) };
  });
  return changed ? { ...original, content } : original;
}
