/**
 * The masked form of a tool output, and the structural test for it.
 *
 * A masked response is exactly `{ output: "<tool_output_masked lines=.. bytes=.. file=..>\n...\n</tool_output_masked>" }`.
 * The `file` attribute is escaped so that the text a model copies from it reads back (see
 * utils/attributeEscaping.ts). The tool name and call id are not repeated: the part's own
 * `functionResponse.name` and `id` carry them.
 * Being masked is decided by that whole shape (single key, header with every attribute, closing
 * tag at the very end), never by a substring: a real output that merely quotes the tag, such as a
 * read of this very file, is an ordinary output and is masked when it is old.
 */
import { toWellFormed } from '../utils/codePoints.js';
import { decodeAttribute, escapeAttribute } from '../utils/attributeEscaping.js';

export const MASKED_TAG = 'tool_output_masked';

export interface MaskedSnippetFields {
  /** Line count and UTF-8 byte size of the full output on disk. */
  lines: number;
  bytes: number;
  /** Absolute path of the full output. */
  filePath: string;
  /** The high-signal preview (see toolOutputPreview.ts). */
  preview: string;
  /**
   * One line before the preview saying why the output was hidden (superseded/supersession.ts:
   * `Superseded: this file was read again later (call …).`), when there is one.
   */
  note?: string;
}

/** The read-back tool as the model sees it in-process (the gateway's MCP tool has a prefixed name). */
export const DEFAULT_READ_TOOL_NAME = 'read_tool_output';

/**
 * Our own read-back tool under any client's name for it: outputs of this tool are never counted
 * nor masked (masking what the agent just read back would loop), and a request that declares it
 * tells the snippets which name to give. An MCP tool reaches the model prefixed by its server's
 * name: `mcp__toolmask__read_tool_output` in Claude Code and Codex, `mcp_toolmask_read_tool_output`
 * in gemini-cli, `toolmask_read_tool_output` in OpenCode. Any prefix counts, not only `toolmask`'s:
 * a person may name the server otherwise, and masking our read-backs would loop, while another
 * server's tool of exactly this name (unlikely) would only be left whole.
 */
export function isReadBackTool(name: string): boolean {
  return name === DEFAULT_READ_TOOL_NAME || name.endsWith(`_${DEFAULT_READ_TOOL_NAME}`);
}

/** The search over saved outputs as the model sees it in-process (storage/searchOutputs.ts). */
export const DEFAULT_SEARCH_TOOL_NAME = 'search_tool_outputs';

/**
 * Our own tools under any client's name for them: the read-back tool (`isReadBackTool`) and the
 * search over saved outputs. Their outputs are never counted nor masked: hiding what the agent
 * just read back or found would loop.
 */
export function isOwnTool(name: string): boolean {
  return (
    isReadBackTool(name) ||
    name === DEFAULT_SEARCH_TOOL_NAME ||
    name.endsWith(`_${DEFAULT_SEARCH_TOOL_NAME}`)
  );
}

/**
 * The search tool's name beside a read-back tool of this name: the same server gives both the
 * same prefix (`mcp__toolmask__read_tool_output` → `mcp__toolmask__search_tool_outputs`).
 * Undefined for a read-back tool named otherwise.
 */
export function searchToolNameBeside(readToolName: string): string | undefined {
  if (!isReadBackTool(readToolName)) return undefined;
  const prefix = readToolName.slice(0, readToolName.length - DEFAULT_READ_TOOL_NAME.length);
  return `${prefix}${DEFAULT_SEARCH_TOOL_NAME}`;
}

/**
 * The last line tells the model how to get the rest back: the read-back tool's call, whose `file`
 * argument is the header's `file` attribute, and, where the host offers it, the search over every
 * saved output. Paid on every masked output, so kept short: 18 tokens, 28 with the search
 * (the estimator's count, default names; 37 with the gateway's prefixed ones).
 */
export function readBackHint(
  readToolName = DEFAULT_READ_TOOL_NAME,
  searchToolName?: string,
): string {
  const read = `Full output: ${readToolName}(file, offset, limit, pattern)`;
  return searchToolName ? `${read} or ${searchToolName}(query).` : `${read}.`;
}

export const READ_BACK_HINT = readBackHint();

/** What `escapeAttribute` may change: `&`, `"`, CR, LF. */
const NEEDS_ESCAPE = /[&"\r\n]/;

/**
 * The snippet. Its preview is made well-formed: a lone surrogate the tool itself wrote becomes
 * U+FFFD there (the full output on disk keeps it), so the snippet never holds one.
 */
export function formatMaskedSnippet(
  fields: MaskedSnippetFields,
  readToolName?: string,
  searchToolName?: string,
): string {
  // A path with nothing to escape (nearly all) skips the escaping's four expressions.
  const file = NEEDS_ESCAPE.test(fields.filePath)
    ? escapeAttribute(fields.filePath)
    : fields.filePath;
  const header = `<${MASKED_TAG} lines="${fields.lines}" bytes="${fields.bytes}" file="${file}">`;
  const preview = toWellFormed(fields.preview);
  const note = fields.note ? `${toWellFormed(fields.note.replace(/[\r\n]+/g, ' '))}\n` : '';
  return `${header}\n${note}${preview}\n${readBackHint(readToolName, searchToolName)}\n</${MASKED_TAG}>`;
}

const SNIPPET_PATTERN = new RegExp(
  `^<${MASKED_TAG} lines="(\\d+)" bytes="(\\d+)" file="([^"\\n]+)">\\n[\\s\\S]*\\n</${MASKED_TAG}>$`,
);

export interface ParsedMaskedSnippet {
  lines: number;
  bytes: number;
  filePath: string;
}

/** Parses a snippet produced by `formatMaskedSnippet`; undefined for anything else. */
export function parseMaskedSnippet(text: string): ParsedMaskedSnippet | undefined {
  if (!text.startsWith(`<${MASKED_TAG} `)) return undefined;
  const match = SNIPPET_PATTERN.exec(text);
  if (!match) return undefined;
  return {
    lines: Number(match[1]),
    bytes: Number(match[2]),
    filePath: decodeAttribute(match[3] ?? ''),
  };
}

/** True when `response` is a masked response written by toolmask (see the module comment). */
export function isMaskedResponse(response: unknown): boolean {
  if (response === null || typeof response !== 'object' || Array.isArray(response)) return false;
  const keys = Object.keys(response);
  if (keys.length !== 1 || keys[0] !== 'output') return false;
  const output = (response as { output: unknown }).output;
  return typeof output === 'string' && parseMaskedSnippet(output) !== undefined;
}
