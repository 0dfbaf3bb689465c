/**
 * One Responses `input` item as the masking core's `Content`, and a masked `Content` written back
 * into the item it came from. Each item is one entry (the conversation groups a run of tool
 * outputs into one turn for the pass: conversation/tool-runs.ts).
 *
 * - A message (`type: "message"`, or a bare `{ role, content }`): its text as text parts; role
 *   `model` for `assistant`, `system` for `system` and `developer`, else `user`.
 * - A tool call (`function_call`, `custom_tool_call`, `local_shell_call`, `shell_call`,
 *   `apply_patch_call`): role `model`, one `functionCall` named by the call (Codex's MCP tools
 *   carry a `namespace`: `mcp__<server>` and `<tool>` make `mcp__<server>__<tool>`).
 * - A tool output (`function_call_output`, `custom_tool_call_output`, `local_shell_call_output`,
 *   `shell_call_output`, `apply_patch_call_output`): role `user`, one `functionResponse`
 *   (`id`: the `call_id`; `name`: the tool of the call with that id; `response`: `{ output: <its
 *   text> }`).
 * - Anything else (reasoning with its `encrypted_content`, web searches, item references,
 *   compaction items...): role `model` and no part. The core counts tool outputs only, and needs
 *   the rest for positions and the cold signal.
 *
 * An output whose call no earlier item announced, or whose `output` has an unexpected shape, adds
 * no part (it is no person's prompt, so it must not look like one to the cold signal) and is
 * counted as left alone. Written back, only the `output` of the items whose text the pass replaced
 * changes; every other item and key (`id`, `call_id`, `status`...) is the client's own value.
 */
import type { Content, Part } from '@toolmask/core';
import { isPlainObject } from '@toolmask/core/utils';
import { callArguments } from '../call-arguments.js';
import { TOOL_OUTPUT_ITEM_TYPES } from './item-types.js';
import { outputText, withSnippet } from './tool-output-content.js';
import type { ToolNames } from '../message-array-codec.js';

type JsonObject = Record<string, unknown>;

/** The tool a call item of each type runs: its own `name`, or the built-in tool's. */
const CALL_TOOLS: Record<string, string | undefined> = {
  function_call: undefined,
  custom_tool_call: undefined,
  local_shell_call: 'local_shell',
  shell_call: 'shell',
  apply_patch_call: 'apply_patch',
};

const OUTPUT_TYPES = new Set<string>(TOOL_OUTPUT_ITEM_TYPES);

const TEXT_PART_TYPES = new Set(['input_text', 'output_text', 'text']);

const typeOf = (item: JsonObject) => (typeof item['type'] === 'string' ? item['type'] : undefined);

const isCall = (type: string | undefined) => type !== undefined && Object.hasOwn(CALL_TOOLS, type);

export const isToolOutput = (type: string | undefined) =>
  type !== undefined && OUTPUT_TYPES.has(type);

/** The tool a call item runs. */
function callName(item: JsonObject, type: string): string {
  const builtIn = CALL_TOOLS[type];
  if (builtIn) return builtIn;
  const name = typeof item['name'] === 'string' ? item['name'] : '';
  const namespace = item['namespace'];
  return typeof namespace === 'string' && namespace ? `${namespace}__${name}` : name;
}

/**
 * A call item's arguments (for the core's superseded outputs): a `function_call`'s `arguments`,
 * a `custom_tool_call`'s `input` (Codex's `apply_patch`), the `action` of a shell call, the
 * `operation` of an `apply_patch_call`.
 */
function callItemArguments(item: JsonObject, type: string): Record<string, unknown> {
  if (type === 'function_call') return callArguments(item['arguments']);
  if (type === 'custom_tool_call') {
    return typeof item['input'] === 'string' ? { input: item['input'] } : {};
  }
  if (type === 'apply_patch_call') return { operation: item['operation'] };
  return callArguments(item['action']);
}

/**
 * The call id an output item answers: its `call_id`; a `local_shell_call_output` may name its call
 * by `id` alone (the API's shape for that item).
 */
function answeredCallId(item: JsonObject, type: string): string | undefined {
  const callId = item['call_id'];
  if (typeof callId === 'string') return callId;
  const id = item['id'];
  return type === 'local_shell_call_output' && typeof id === 'string' ? id : undefined;
}

/** Adds the tool a call item runs to `names`, by its `call_id` (and a local shell call's `id`). */
export function learnToolNames(item: unknown, names: ToolNames): void {
  if (!isPlainObject(item)) return;
  const type = typeOf(item);
  if (!isCall(type)) return;
  const name = callName(item, type as string);
  const callId = item['call_id'];
  if (typeof callId === 'string') names.set(callId, name);
  if (type === 'local_shell_call' && typeof item['id'] === 'string') names.set(item['id'], name);
}

function textParts(content: unknown): Part[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  const parts: Part[] = [];
  for (const part of content) {
    if (!isPlainObject(part) || !TEXT_PART_TYPES.has(part['type'] as string)) continue;
    const text = part['text'];
    if (typeof text === 'string' && text) parts.push({ text });
  }
  return parts;
}

function messageRole(role: unknown): Content['role'] {
  if (role === 'assistant') return 'model';
  return role === 'system' || role === 'developer' ? 'system' : 'user';
}

/** `item` as a Content; `unmaskable`: 1 for a tool output left as it came. */
export function toContent(
  item: unknown,
  names: ToolNames,
): { content: Content; unmaskable: number } {
  if (!isPlainObject(item)) return { content: { role: 'model', parts: [] }, unmaskable: 0 };
  const type = typeOf(item);
  if (type === 'message' || (type === undefined && typeof item['role'] === 'string')) {
    return {
      content: { role: messageRole(item['role']), parts: textParts(item['content']) },
      unmaskable: 0,
    };
  }
  if (isCall(type)) {
    const id = typeof item['call_id'] === 'string' ? item['call_id'] : String(item['id'] ?? '');
    const name = callName(item, type as string);
    const call: Part = {
      functionCall: { id, name, args: callItemArguments(item, type as string) },
    };
    return { content: { role: 'model', parts: [call] }, unmaskable: 0 };
  }
  if (isToolOutput(type)) {
    const callId = answeredCallId(item, type as string);
    const name = callId === undefined ? undefined : names.get(callId);
    const text = outputText(type as string, item['output']);
    if (callId === undefined || name === undefined || text === undefined) {
      return { content: { role: 'user', parts: [] }, unmaskable: 1 };
    }
    const response: Part = { functionResponse: { id: callId, name, response: { output: text } } };
    return { content: { role: 'user', parts: [response] }, unmaskable: 0 };
  }
  return { content: { role: 'model', parts: [] }, unmaskable: 0 };
}

/** The output text the pass sent for a tool output's Content. */
function sentOutput(sent: Content): string | undefined {
  const response = sent.parts?.[0]?.functionResponse?.response as { output?: unknown } | undefined;
  return typeof response?.output === 'string' ? response.output : undefined;
}

/**
 * `original` with the pass's output in place of its text, in the shape its `output` came in; the
 * item itself when it is no tool output or its text did not change.
 */
export function withMaskedOutput(original: unknown, sent: Content): unknown {
  if (!isPlainObject(original)) return original;
  const type = typeOf(original);
  const output = sentOutput(sent);
  if (!isToolOutput(type) || output === undefined) return original;
  if (output === outputText(type as string, original['output'])) return original;
  return { ...original, output: withSnippet(type as string, original['output'], output) };
}
