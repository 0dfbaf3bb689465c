/**
 * The OpenAI Responses conversation (Codex and other Responses clients): `input`, each item one
 * `Content` for the masking core (input-items.ts), the tool output items its tool outputs, matched
 * to their calls by `call_id`.
 *
 * Written back, only the items whose output the pass masked are serialized again, and in them only
 * their `output`; every other item is its own bytes (the body layer copies them), reasoning items
 * and their `encrypted_content` included, and everything outside `input` (`instructions`,
 * `tools`, `reasoning`, `include`, `store`, `prompt_cache_key`, `client_metadata`...) is copied as
 * it came. An `input` that is a string (one user prompt) holds no tool output: the body goes out
 * as it came. Read and written by the shared message-array codec (../message-array-codec.ts).
 *
 * Codex's first item (its base instructions) is the same for every session: the session id (the
 * `session-id` header, or `prompt_cache_key`) tells its sessions apart, the item (the head) a new
 * conversation within one (a compaction that rewrites the history).
 */
import { isReadBackTool } from '@toolmask/core';
import { isPlainObject } from '@toolmask/core/utils';
import type { BodyCodec } from '../../body/body-codec.js';
import { MCP_SERVER_NAME, MCP_TOOL_NAME } from '../../server/mcp-endpoint.js';
import { messageArrayCodec } from '../message-array-codec.js';
import { learnToolNames, toContent, withMaskedOutput } from './input-items.js';
import { responsesSession } from './session.js';

/**
 * Codex declares an MCP server's tools as a namespace tool `mcp__<server>` whose functions keep
 * their own names, and the model calls `read_tool_output` with that namespace: the snippets name
 * it `mcp__toolmask__read_tool_output`, the name of the calls (input-items.ts) and Codex's own
 * spelling of MCP tools elsewhere. A request that declares no read-back tool gets the same name,
 * so the bytes of a snippet never depend on what the gateway remembers (a restart).
 */
export const CODEX_READ_TOOL_NAME = `mcp__${MCP_SERVER_NAME}__${MCP_TOOL_NAME}`;

/** A tool definition's name when it is the read-back tool (an MCP tool, named by the client). */
function readToolOf(tool: unknown, namespace?: string): string | undefined {
  if (!isPlainObject(tool)) return undefined;
  const name = tool['name'];
  if (typeof name !== 'string') return undefined;
  if (tool['type'] === 'namespace') {
    for (const inner of Array.isArray(tool['tools']) ? tool['tools'] : []) {
      const found = readToolOf(inner, name);
      if (found) return found;
    }
    return undefined;
  }
  const full = namespace ? `${namespace}__${name}` : name;
  return isReadBackTool(full) ? full : undefined;
}

function declaredReadTool(tools: unknown): string | undefined {
  for (const tool of Array.isArray(tools) ? tools : []) {
    const found = readToolOf(tool);
    if (found) return found;
  }
  return undefined;
}

export const OPENAI_RESPONSES_CODEC: BodyCodec = messageArrayCodec({
  key: 'input',
  session: responsesSession,
  readToolName: (tools) => declaredReadTool(tools) ?? CODEX_READ_TOOL_NAME,
  // An output always follows the call it answers.
  learnToolNames,
  toContent,
  withMasked: withMaskedOutput,
});
