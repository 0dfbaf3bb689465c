/**
 * The OpenAI chat completions conversation (qwen-code and other OpenAI-style agents). The conversation is
 * `messages`; tool outputs are `role: "tool"` messages whose `content` is a string or an array of
 * text parts, each paired by `tool_call_id` with the assistant's `tool_calls` entry that names the
 * tool (for exemptions and previews). For the one masking core each message becomes one `Content`:
 * a tool message a `functionResponse` with `{ output: <its text> }`; the others a text entry (the
 * core counts tool outputs only, and needs the rest for positions and the cold signal).
 *
 * Written back: only the `content` of the tool messages the pass masked is replaced, by the
 * snippet, in the shape it came in (a string, or one text part). Everything else in the body
 * keeps its value: vendor fields, `cache_control` markers, `reasoning_content`, images, options.
 * A tool message whose content is of another kind (an image part), or whose `tool_call_id` no
 * assistant message announced, is left as it is, never masked; the usage record counts it as a
 * failure once, in the request that brings it.
 */
import { isReadBackTool, type Content, type Part } from '@toolmask/core';
import { isPlainObject } from '@toolmask/core/utils';
import type { BodyCodec, WholeBody } from '../../body/body-codec.js';
import { callArguments } from '../call-arguments.js';

/** The text of a message content: a string, or text parts only; undefined for anything else. */
export function textOfContent(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    if (!isPlainObject(part) || part['type'] !== 'text' || typeof part['text'] !== 'string')
      return undefined;
    texts.push(part['text'] as string);
  }
  return texts.join('');
}

/** Tool names by call id, from the assistant messages' `tool_calls`. */
function toolNames(messages: readonly unknown[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (!isPlainObject(message) || !Array.isArray(message['tool_calls'])) continue;
    for (const call of message['tool_calls'] as unknown[]) {
      if (!isPlainObject(call) || typeof call['id'] !== 'string') continue;
      const fn = call['function'];
      const name =
        isPlainObject(fn) && typeof fn['name'] === 'string' ? (fn['name'] as string) : '';
      names.set(call['id'] as string, name);
    }
  }
  return names;
}

/** Tool messages left alone, and why. */
interface OpenAiSkips {
  unexpectedContent: number;
  unknownCallId: number;
}

function toContent(message: unknown, names: Map<string, string>, skips: OpenAiSkips): Content {
  if (!isPlainObject(message)) return { role: 'user', parts: [] };
  const role = message['role'];
  if (role === 'tool') {
    const callId = message['tool_call_id'];
    const text = textOfContent(message['content']);
    const name = typeof callId === 'string' ? names.get(callId) : undefined;
    if (text === undefined) skips.unexpectedContent++;
    else if (name === undefined) skips.unknownCallId++;
    else {
      return {
        role: 'user',
        parts: [{ functionResponse: { id: callId as string, name, response: { output: text } } }],
      };
    }
    return { role: 'user', parts: [{ text: '[tool message left as it is]' }] };
  }
  const text = textOfContent(message['content']) ?? '';
  const parts: Part[] = text ? [{ text }] : [];
  if (role === 'assistant') {
    for (const call of Array.isArray(message['tool_calls'])
      ? (message['tool_calls'] as unknown[])
      : []) {
      const fn = isPlainObject(call) ? call['function'] : undefined;
      if (isPlainObject(call) && isPlainObject(fn) && typeof fn['name'] === 'string') {
        parts.push({
          functionCall: {
            id: String(call['id'] ?? ''),
            name: fn['name'] as string,
            args: callArguments(fn['arguments']),
          },
        });
      }
    }
    return { role: 'model', parts };
  }
  return { role: role === 'system' ? 'system' : 'user', parts };
}

/** The name of the declared read-back tool (an MCP tool, prefixed by the client: `isReadBackTool`). */
function declaredReadTool(tools: unknown): string | undefined {
  for (const tool of Array.isArray(tools) ? tools : []) {
    const fn = isPlainObject(tool) ? tool['function'] : undefined;
    const name = isPlainObject(fn) ? fn['name'] : undefined;
    if (typeof name === 'string' && isReadBackTool(name)) return name;
  }
  return undefined;
}

/** Adds the tool names the assistant messages among `messages` announce. */
function learnToolNames(messages: readonly unknown[], names: Map<string, string>): void {
  for (const [id, name] of toolNames(messages)) names.set(id, name);
}

/**
 * A message written back: its content replaced by the snippet, in the shape it came in. Text
 * parts become one, which keeps the last part's other keys (a DashScope `cache_control` marker
 * sits there: the provider's cache breakpoint stays where the client put it).
 */
function withMaskedContent(original: unknown, sent: Content): unknown {
  const response = sent.parts?.[0]?.functionResponse?.response as { output?: unknown } | undefined;
  if (
    !isPlainObject(original) ||
    original['role'] !== 'tool' ||
    typeof response?.output !== 'string'
  ) {
    return original;
  }
  const content = original['content'];
  if (typeof content === 'string') return { ...original, content: response.output };
  const last = Array.isArray(content) ? content.at(-1) : undefined;
  return {
    ...original,
    content: [{ ...(isPlainObject(last) ? last : {}), type: 'text', text: response.output }],
  };
}

function readWhole(body: unknown): WholeBody | undefined {
  if (!isPlainObject(body) || !Array.isArray(body['messages'])) return undefined;
  const messages = body['messages'] as unknown[];
  if (messages.length === 0) return undefined;
  const names = toolNames(messages);
  const skips: OpenAiSkips = { unexpectedContent: 0, unknownCallId: 0 };
  const contents = messages.map((message) => toContent(message, names, skips));
  const readToolName = declaredReadTool(body['tools']);
  return {
    contents,
    ...(readToolName ? { readToolName } : {}),
    unmaskable: skips.unexpectedContent + skips.unknownCallId,
    head: messages.slice(0, 2),
    model: typeof body['model'] === 'string' ? body['model'] : '',
    write(sent, changed) {
      for (const index of changed) {
        messages[index] = withMaskedContent(messages[index], sent[index] as Content);
      }
      return JSON.stringify(body);
    },
  };
}

export const OPENAI_CHAT_CODEC: BodyCodec = {
  arrayPath: ['messages'],
  // qwen-code: its system message and the first user message stay the same for a conversation.
  headElements: 2,
  createState: () => new Map<string, string>(),
  toContents(elements, state) {
    const names = state as Map<string, string>;
    const contents: Content[] = [];
    const unmaskable: number[] = [];
    for (const element of elements) {
      // A tool message always follows the assistant message that announced its call.
      learnToolNames([element], names);
      const skips: OpenAiSkips = { unexpectedContent: 0, unknownCallId: 0 };
      contents.push(toContent(element, names, skips));
      unmaskable.push(skips.unexpectedContent + skips.unknownCallId);
    }
    return { contents, unmaskable };
  },
  toElement: (sent, original) => withMaskedContent(original, sent),
  describe(outside, routeModel) {
    const body = isPlainObject(outside) ? outside : {};
    const readToolName = declaredReadTool(body['tools']);
    return {
      model: typeof body['model'] === 'string' ? (body['model'] as string) : routeModel,
      ...(readToolName ? { readToolName } : {}),
    };
  },
  readWhole: (body) => readWhole(body),
};
