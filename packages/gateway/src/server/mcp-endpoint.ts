/**
 * `/mcp`: a Streamable HTTP MCP server offering `read_tool_output`, the read-back tool of the
 * masked snippets, and `search_tool_outputs`, which finds lines in every saved output, with the
 * parameters, limits and confinement of the in-process tools (core's reader and search): only
 * files under the gateway's `tool-outputs/` folder are read. An MCP call does not
 * say which conversation it belongs to, so every conversation's folder of this gateway is open
 * to it (one person's gateway; a shared one needs an auth token, see docs/gateway.md); a team
 * gateway reads its shared store instead, for the outputs its tenancy lets the asker read.
 *
 * Stateless: the SDK requires a new server and transport per request. GET and DELETE (session
 * streams, session ends) answer 405, which clients handle. A Host header that is not a loopback
 * name is refused on a loopback-bound gateway (DNS rebinding).
 */
import { describeError } from '@toolmask/core/errors';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  READ_TOOL_OUTPUT_TEXT,
  SEARCH_TOOL_OUTPUTS_TEXT,
  SEARCH_TOOL_OUTPUTS_TOOL_NAME,
  readToolOutput,
  searchToolOutputs,
  ToolOutputReadError,
  type ReadToolOutputParams,
  type SearchToolOutputsParams,
} from '@toolmask/core/storage';
import type { ToolOutputAccess } from '@toolmask/core';
import type { Principal } from './tenancy.js';

/** One read-back, for whoever asks (access.ts: the principal of the request). */
export type ReadBack = (
  params: ReadToolOutputParams,
  principal: Principal | undefined,
) => Promise<{ text: string }>;

/** One search over the saved outputs, for whoever asks, scoped as its reads are. */
export type SearchBack = (
  params: SearchToolOutputsParams,
  principal: Principal | undefined,
) => Promise<{ text: string }>;

/**
 * Reading outputs from the gateway's own disk, confined by `access` (core's reader): an MCP call
 * does not name its conversation, so every session folder the access opens is open.
 */
export function diskReadBack(access: ToolOutputAccess): ReadBack {
  return (params) => readToolOutput(params, access);
}

/** Searching the gateway's own disk: every session folder the access opens, as for reads. */
export function diskSearchBack(access: ToolOutputAccess): SearchBack {
  return (params) => searchToolOutputs(params, access);
}

export const MCP_SERVER_NAME = 'toolmask';
export const MCP_TOOL_NAME = 'read_tool_output';

const METHOD_NOT_ALLOWED = JSON.stringify({
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Method not allowed.' },
  id: null,
});

/** A tool's answer, or its refusal as a tool error the model reads (never a protocol error). */
async function answer(tool: string, run: () => Promise<{ text: string }>): Promise<CallToolResult> {
  try {
    const result = await run();
    return { content: [{ type: 'text', text: result.text }] };
  } catch (error) {
    const message = error instanceof ToolOutputReadError ? error.message : describeError(error);
    return { content: [{ type: 'text', text: `${tool}: ${message}` }], isError: true };
  }
}

function registerReadTool(
  server: McpServer,
  read: (params: ReadToolOutputParams) => Promise<{ text: string }>,
): void {
  const text = READ_TOOL_OUTPUT_TEXT.parameters;
  server.registerTool(
    MCP_TOOL_NAME,
    {
      description: READ_TOOL_OUTPUT_TEXT.description,
      inputSchema: {
        file: z.string().describe(text.file),
        offset: z.number().int().min(1).optional().describe(text.offset),
        limit: z.number().int().min(1).optional().describe(text.limit),
        pattern: z.string().optional().describe(text.pattern),
      },
    },
    ({ file, offset, limit, pattern }) =>
      answer(MCP_TOOL_NAME, () =>
        read({
          file,
          ...(offset !== undefined ? { offset } : {}),
          ...(limit !== undefined ? { limit } : {}),
          ...(pattern !== undefined ? { pattern } : {}),
        }),
      ),
  );
}

function registerSearchTool(
  server: McpServer,
  search: (params: SearchToolOutputsParams) => Promise<{ text: string }>,
): void {
  const text = SEARCH_TOOL_OUTPUTS_TEXT.parameters;
  server.registerTool(
    SEARCH_TOOL_OUTPUTS_TOOL_NAME,
    {
      description: SEARCH_TOOL_OUTPUTS_TEXT.description,
      inputSchema: {
        query: z.string().describe(text.query),
        regex: z.boolean().optional().describe(text.regex),
        limit: z.number().int().min(1).optional().describe(text.limit),
      },
    },
    ({ query, regex, limit }) =>
      answer(SEARCH_TOOL_OUTPUTS_TOOL_NAME, () =>
        search({
          query,
          ...(regex !== undefined ? { regex } : {}),
          ...(limit !== undefined ? { limit } : {}),
        }),
      ),
  );
}

function buildServer(
  version: string,
  principal: Principal | undefined,
  backs: { read: ReadBack; search: SearchBack | undefined },
): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version });
  registerReadTool(server, (params) => backs.read(params, principal));
  const { search } = backs;
  if (search) registerSearchTool(server, (params) => search(params, principal));
  return server;
}

export function createMcpEndpoint(options: {
  version: string;
  /** Where outputs are read: the gateway's disk (`diskReadBack`), or a shared store. */
  read: ReadBack;
  /** Where outputs are searched, scoped as reads are (`diskSearchBack`); none: no search tool. */
  search?: SearchBack;
}): (
  request: IncomingMessage,
  response: ServerResponse,
  principal: Principal | undefined,
) => Promise<void> {
  const { read, search } = options;
  return async (request, response, principal) => {
    if (request.method !== 'POST') {
      response
        .writeHead(405, { 'content-type': 'application/json', allow: 'POST' })
        .end(METHOD_NOT_ALLOWED);
      return;
    }
    const server = buildServer(options.version, principal, { read, search });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, undefined);
  };
}
