/**
 * The read-back tool's name as each client's model sees it: each client prefixes an MCP tool its
 * own way (`mcp__toolmask__read_tool_output` in Claude Code and Codex, `toolmask_read_tool_output`
 * in OpenCode), and the snippets the gateway writes for their requests name it so
 * (protocols/anthropic-messages/codec.ts, openai-responses/codec.ts). gemini-cli and qwen-code
 * get the gateway's `readToolName` (`mcp_toolmask_read_tool_output` by default), as does a client
 * the gateway does not know.
 */
import { CLAUDE_READ_TOOL_NAME } from '../protocols/anthropic-messages/codec.js';
import { CODEX_READ_TOOL_NAME } from '../protocols/openai-responses/codec.js';
import { MCP_SERVER_NAME, MCP_TOOL_NAME } from '../server/mcp-endpoint.js';
import type { ClientKind } from '../usage/usage-record.js';

/** OpenCode names an MCP tool `<server>_<tool>`. */
export const OPENCODE_READ_TOOL_NAME = `${MCP_SERVER_NAME}_${MCP_TOOL_NAME}`;

export function readToolNames(configured: string): Record<ClientKind, string> {
  return {
    'gemini-cli': configured,
    'qwen-code': configured,
    'claude-code': CLAUDE_READ_TOOL_NAME,
    codex: CODEX_READ_TOOL_NAME,
    opencode: OPENCODE_READ_TOOL_NAME,
    other: configured,
  };
}
