/**
 * What a file tool's call reads and writes, from its name and arguments as each host writes them:
 * gemini-cli's and qwen's `read_file` (`start_line`/`end_line`, or a 0-based `offset` and `limit`),
 * `read_many_files` and their writers; Claude Code's `Read` (a 1-based `offset`) and editors;
 * OpenCode's `read`/`edit`/`write`; Anthropic's editor tool (`view` reads, any other command
 * writes); `apply_patch` by its operation's path or its patch text. A glob, a range that makes no
 * sense or a path that cannot be compared reads nothing.
 */
import { integerArg, record, stringArg } from './callArguments.js';
import { NO_FACTS, WHOLE, normalizePath, type CallFacts, type FileRange } from './fileRanges.js';
import { patchFiles } from './patchFiles.js';

const WRITE_TOOLS = new Set([
  'write_file',
  'replace',
  'edit',
  'Edit',
  'MultiEdit',
  'Write',
  'write',
  'NotebookEdit',
  'create_file',
]);
const EDITOR_TOOLS = new Set(['str_replace_based_edit_tool', 'str_replace_editor']);
const PATCH_TOOLS = new Set(['apply_patch']);

/** What the call of a file tool (any tool but a shell) reads and writes. */
export function fileToolFacts(
  name: string,
  args: Record<string, unknown>,
): Omit<CallFacts, 'rerunKey'> {
  const filePath = stringArg(
    args,
    'file_path',
    'absolute_path',
    'filePath',
    'path',
    'notebook_path',
  );
  const file = filePath === undefined ? undefined : normalizePath(filePath);
  if (name === 'read_file' || name === 'Read' || name === 'read') {
    if (!file) return NO_FACTS;
    return { reads: [{ path: file, ...readRange(name, args) }], writes: [] };
  }
  if (name === 'read_many_files') {
    const listed = Array.isArray(args['paths']) ? args['paths'] : args['include'];
    if (!Array.isArray(listed) || listed.length === 0) return NO_FACTS;
    const reads: FileRange[] = [];
    for (const item of listed) {
      // A glob names files the output lists, not a file: no read.
      if (typeof item !== 'string' || /[*?[{]/.test(item)) return NO_FACTS;
      const normalized = normalizePath(item);
      if (!normalized) return NO_FACTS;
      reads.push({ path: normalized, ...WHOLE });
    }
    return { reads, writes: [] };
  }
  if (WRITE_TOOLS.has(name)) return { reads: [], writes: file ? [file] : [] };
  if (EDITOR_TOOLS.has(name)) {
    if (!file) return NO_FACTS;
    if (args['command'] !== 'view') return { reads: [], writes: [file] };
    const range = args['view_range'];
    if (!Array.isArray(range) || range.length !== 2) {
      return { reads: [{ path: file, ...WHOLE }], writes: [] };
    }
    const [first, last] = range as unknown[];
    if (typeof first !== 'number' || typeof last !== 'number' || first < 1) return NO_FACTS;
    const end = last === -1 ? Infinity : last;
    if (end < first) return NO_FACTS;
    return { reads: [{ path: file, first, last: end, partial: false }], writes: [] };
  }
  if (PATCH_TOOLS.has(name)) {
    // A Responses `apply_patch_call` names its file in `operation.path`.
    const operation = record(args['operation']);
    const operationPath = typeof operation['path'] === 'string' ? operation['path'] : undefined;
    const target = operationPath === undefined ? undefined : normalizePath(operationPath);
    if (target) return { reads: [], writes: [target] };
    const patch = stringArg(args, 'input', 'patch', 'patchText');
    return { reads: [], writes: patch === undefined ? [] : patchFiles(patch, undefined) };
  }
  return NO_FACTS;
}

/** The lines a file tool's call asks for (whole when it names none). */
function readRange(name: string, args: Record<string, unknown>): Omit<FileRange, 'path'> {
  const startLine = integerArg(args, 'start_line');
  const endLine = integerArg(args, 'end_line');
  if (startLine !== undefined || endLine !== undefined) {
    const first = Math.max(1, startLine ?? 1);
    return { first, last: Math.max(first, endLine ?? Infinity), partial: false };
  }
  const offset = integerArg(args, 'offset');
  const limit = integerArg(args, 'limit');
  if (offset === undefined && limit === undefined) return WHOLE;
  // Claude Code's Read counts lines from 1; gemini-cli's (older), qwen's and OpenCode's from 0.
  const first = name === 'Read' ? Math.max(1, offset ?? 1) : (offset ?? 0) + 1;
  return { first, last: limit === undefined ? Infinity : first + limit - 1, partial: false };
}
