/**
 * The Anthropic Messages conversation (Claude Code and other Messages API clients): `messages`,
 * each message one `Content` for the masking core (message-contents.ts), the `tool_result` blocks
 * of `user` messages its tool outputs; read and written by the shared message-array codec
 * (../message-array-codec.ts).
 *
 * Written back, only the messages whose tool results the pass masked are serialized again, and in
 * them only those results' `content`; every other message is its own bytes (the body layer copies
 * them), and everything outside `messages` (`system`, `tools`, `thinking`, `metadata`,
 * `context_management`...) is copied as it came. No `cache_control` breakpoint is ever added.
 *
 * Claude Code's first message (its reminders and the first prompt) stays the same for a session;
 * its breakpoint moves on to newer messages as soon as there are any: that message is the head.
 */
import { isReadBackTool } from '@toolmask/core';
import { isPlainObject } from '@toolmask/core/utils';
import type { BodyCodec } from '../../body/body-codec.js';
import { MCP_SERVER_NAME, MCP_TOOL_NAME } from '../../server/mcp-endpoint.js';
import { messageArrayCodec } from '../message-array-codec.js';
import { learnToolNames, toContent, withMaskedResults } from './message-contents.js';
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

export const ANTHROPIC_MESSAGES_CODEC: BodyCodec = messageArrayCodec({
  key: 'messages',
  session: anthropicSession,
  readToolName: (tools) => declaredReadTool(tools) ?? CLAUDE_READ_TOOL_NAME,
  // A tool result always follows the assistant message that called the tool.
  learnToolNames,
  toContent,
  withMasked: withMaskedResults,
});
