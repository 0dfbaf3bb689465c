/**
 * The Anthropic Messages conversation (Claude Code and other Messages API clients): `messages`,
 * each message one `Content` for the masking core (message-contents.ts), the `tool_result` blocks
 * of `user` messages its tool outputs.
 *
 * Written back, only the messages whose tool results the pass masked are serialized again, and in
 * them only those results' `content`; every other message is its own bytes (the body layer copies
 * them), and everything outside `messages` (`system`, `tools`, `thinking`, `metadata`,
 * `context_management`...) is copied as it came. No `cache_control` breakpoint is ever added.
 */
import { isReadBackTool, type Content } from '@toolmask/core';
import { isPlainObject } from '@toolmask/core/utils';
import type { BodyCodec, WholeBody } from '../../body/body-codec.js';
import { MCP_SERVER_NAME, MCP_TOOL_NAME } from '../../server/mcp-endpoint.js';
import {
  learnToolNames,
  toContent,
  withMaskedResults,
  type ToolNames,
} from './message-contents.js';
import { anthropicSession } from './session.js';

/**
 * Claude Code names an MCP tool `mcp__<server>__<tool>`, and keeps MCP tools out of `tools` until
 * the model loads one (its `ToolSearch` tool; the names are listed in a system message). So a
 * request that declares no read-back tool still names it this way in new snippets, not with the
 * gateway's default (gemini-cli's `mcp_<server>_<tool>`): the same name on every request, whatever
 * was declared before, so the bytes do not depend on the gateway's memory (a restart).
 */
export const CLAUDE_READ_TOOL_NAME = `mcp__${MCP_SERVER_NAME}__${MCP_TOOL_NAME}`;

/** The name of the declared read-back tool (an MCP tool, prefixed by the client: `isReadBackTool`). */
function declaredReadTool(tools: unknown): string | undefined {
  for (const tool of Array.isArray(tools) ? tools : []) {
    const name = isPlainObject(tool) ? tool['name'] : undefined;
    if (typeof name === 'string' && isReadBackTool(name)) return name;
  }
  return undefined;
}

function describe(body: unknown, routeModel: string) {
  const outside = isPlainObject(body) ? body : {};
  return {
    model: typeof outside['model'] === 'string' ? outside['model'] : routeModel,
    readToolName: declaredReadTool(outside['tools']) ?? CLAUDE_READ_TOOL_NAME,
  };
}

/** Messages as Contents, in order, tool names learnt from the assistant messages as they come. */
function toContents(messages: readonly unknown[], names: ToolNames) {
  const contents: Content[] = [];
  const unmaskable: number[] = [];
  for (const message of messages) {
    // A tool result always follows the assistant message that called the tool.
    learnToolNames(message, names);
    const converted = toContent(message, names);
    contents.push(converted.content);
    unmaskable.push(converted.unmaskable);
  }
  return { contents, unmaskable };
}

function readWhole(body: unknown, routeModel: string): WholeBody | undefined {
  if (!isPlainObject(body) || !Array.isArray(body['messages'])) return undefined;
  const messages = body['messages'] as unknown[];
  if (messages.length === 0) return undefined;
  const converted = toContents(messages, new Map());
  return {
    ...describe(body, routeModel),
    contents: converted.contents,
    unmaskable: converted.unmaskable.reduce((sum, count) => sum + count, 0),
    // One element, as its bytes are in the incremental reader's head: the same key either way.
    head: messages[0],
    write(sent, changed) {
      for (const index of changed) {
        messages[index] = withMaskedResults(messages[index], sent[index] as Content);
      }
      return JSON.stringify(body);
    },
  };
}

export const ANTHROPIC_MESSAGES_CODEC: BodyCodec = {
  arrayPath: ['messages'],
  // Claude Code's first message (its reminders and the first prompt) stays the same for a
  // session; its breakpoint moves on to newer messages as soon as there are any.
  headElements: 1,
  session: anthropicSession,
  createState: (): ToolNames => new Map(),
  toContents: (elements, state) => toContents(elements, state as ToolNames),
  toElement: (sent, original) => withMaskedResults(original, sent),
  describe,
  readWhole,
};
