/**
 * Reading an offloaded output back: the logic behind the `read_tool_output` tool (the tool itself,
 * bound to gemini-cli-core, is geminiCliHost/readToolOutputTool.ts).
 *
 * Access is confined to this project's `tool-outputs/` folder: the file must be a regular file
 * directly inside the current session's folder (or, when `allowOtherSessions`, inside another
 * `session-*` folder of the same project). The argument is checked as written (no NUL, no `..`)
 * and as it really is on disk (`realpath`: a symlink leading out is refused; the folders on the
 * way must be real folders, not links). Every refusal says what to do instead, so the model can
 * recover on its own.
 *
 * A read is bounded: at most `READ_LIMITS.maxLines` lines and `READ_LIMITS.maxBytes` bytes per
 * call, each line cut at `READ_LIMITS.maxLineChars` characters, with a footer that says which
 * lines were shown and how to get the rest.
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  isOutputOfCall,
  outputsRoot,
  sessionDirectory,
  sessionIdOfFolder,
} from './outputLayout.js';
import { formatCount } from '../utils/formatCount.js';

export const READ_TOOL_OUTPUT_TOOL_NAME = 'read_tool_output';

export const READ_LIMITS = {
  /** Lines per call in range mode (also the default `limit`). */
  maxLines: 2_000,
  /** UTF-8 bytes of returned text per call. */
  maxBytes: 64 * 1024,
  /** Characters kept of a single line. */
  maxLineChars: 2_000,
  /** Lines of context around each match in pattern mode. */
  contextLines: 2,
  /** Matching lines per call in pattern mode (`limit` is capped here). */
  maxMatches: 500,
  /** Default `limit` in pattern mode. */
  defaultMatches: 100,
} as const;

export interface ReadToolOutputParams {
  /** The `file` path of a masked snippet, a file name in the session's folder, or a call id. */
  file: string;
  /** 1-based first line to return (range mode) or to search from (pattern mode). Default 1. */
  offset?: number;
  /** Lines to return (range mode) or matching lines to return (pattern mode). */
  limit?: number;
  /** A JavaScript regular expression (`error|fail`, or `/timeout/i` with flags). */
  pattern?: string;
}

/** Where the outputs of the current session are, and whether other sessions may be read. */
export interface ToolOutputAccess {
  projectTempDir: string;
  sessionId: string;
  allowOtherSessions: boolean;
}

export type ToolOutputReadErrorCode =
  | 'INVALID_PARAMS'
  | 'INVALID_PATTERN'
  | 'OUTSIDE'
  | 'OTHER_SESSION'
  | 'NOT_FOUND'
  | 'NOT_A_FILE'
  | 'READ_FAILED';

/** A refusal or failure, with a message written for the model. */
export class ToolOutputReadError extends Error {
  constructor(
    readonly code: ToolOutputReadErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ToolOutputReadError';
  }
}

export interface ReadToolOutputResult {
  /** What the model gets: the lines and a footer. */
  text: string;
  /** The real path that was read. */
  filePath: string;
  totalLines: number;
  /** 1-based range of lines shown (range mode) or searched (pattern mode). */
  firstLine: number;
  lastLine: number;
  /** More lines (or matches) follow than were shown. */
  truncated: boolean;
  /** Pattern mode: matching lines in the searched range, and how many are shown. */
  matches?: number;
  matchesShown?: number;
  /** A short line for the person (the tool's `returnDisplay`). */
  summary: string;
}

const FLAGGED_PATTERN = /^\/([\s\S]+)\/([a-z]*)$/;
const ALLOWED_FLAGS = /^[imsu]*$/;

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 200)) : String(value);
}

/** `error|fail` or `/error/i`; `g` and `y` are refused (they make `test` stateful). */
export function compileReadPattern(pattern: string): RegExp {
  const flagged = FLAGGED_PATTERN.exec(pattern);
  try {
    if (flagged && ALLOWED_FLAGS.test(flagged[2] ?? '')) {
      return new RegExp(flagged[1] ?? '', flagged[2]);
    }
    return new RegExp(pattern);
  } catch (error) {
    throw new ToolOutputReadError(
      'INVALID_PATTERN',
      `invalid pattern ${describe(pattern)}: ${(error as Error).message}. pattern is a JavaScript regular expression, e.g. "error|fail" or "/timeout/i".`,
    );
  }
}

/** Checks the parameters without touching the disk; null when they are usable. */
export function validateReadToolOutputParams(params: ReadToolOutputParams): string | null {
  const { file, offset, limit, pattern } = params;
  if (typeof file !== 'string' || file.trim().length === 0) {
    return 'file is required: pass the file path from the <tool_output_masked ... file="..."> snippet.';
  }
  if (file.includes('\0')) return 'file must not contain a NUL character.';
  if (offset !== undefined && (!Number.isInteger(offset) || offset < 1)) {
    return `offset must be a whole number of at least 1 (the first line is 1), got ${describe(offset)}.`;
  }
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    return `limit must be a whole number of at least 1, got ${describe(limit)}.`;
  }
  if (pattern !== undefined) {
    if (typeof pattern !== 'string' || pattern.length === 0) {
      return 'pattern must be a non-empty regular expression.';
    }
    try {
      compileReadPattern(pattern);
    } catch (error) {
      return (error as Error).message;
    }
  }
  return null;
}

function hasParentSegment(file: string): boolean {
  return file.split(/[\\/]+/).some((segment) => segment === '..');
}

async function lstatOrUndefined(target: string) {
  try {
    return await fs.lstat(target);
  } catch {
    return undefined;
  }
}

/** A real folder (not a symlink); undefined when missing. Throws when it is something else. */
async function checkRealFolder(folder: string, what: string): Promise<boolean> {
  const stats = await lstatOrUndefined(folder);
  if (!stats) return false;
  if (stats.isSymbolicLink() || !stats.isDirectory()) {
    throw new ToolOutputReadError(
      'OUTSIDE',
      `${what} ${folder} is not a plain folder (a symlink or a file); toolmask does not read through it.`,
    );
  }
  return true;
}

/** Output files of `folder` for this call id (outputLayout.ts names them). */
async function filesForCallId(folder: string, callId: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(folder);
  } catch {
    return [];
  }
  return names
    .filter((name) => isOutputOfCall(name, callId))
    .sort()
    .map((name) => path.join(folder, name));
}

async function otherSessionFolders(root: string, current: string): Promise<string[]> {
  try {
    const entries = await fs.readdir(root, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory() && sessionIdOfFolder(entry.name) !== undefined)
      .map((entry) => path.join(root, entry.name))
      .filter((folder) => folder !== current);
  } catch {
    return [];
  }
}

/** A call id (no separator, not a file name): the one file of the session that carries it. */
async function resolveCallId(
  callId: string,
  root: string,
  sessionFolder: string,
  access: ToolOutputAccess,
): Promise<string> {
  let found = await filesForCallId(sessionFolder, callId);
  if (found.length === 0 && access.allowOtherSessions) {
    for (const folder of await otherSessionFolders(root, sessionFolder)) {
      found = found.concat(await filesForCallId(folder, callId));
    }
  }
  if (found.length === 1) return found[0] as string;
  if (found.length === 0) {
    throw new ToolOutputReadError(
      'NOT_FOUND',
      `no offloaded output for ${describe(callId)} in this session; pass the exact file path from the snippet's file="..." attribute.`,
    );
  }
  throw new ToolOutputReadError(
    'INVALID_PARAMS',
    `${describe(callId)} matches ${found.length} outputs; pass one of these paths as file: ${found.join(', ')}`,
  );
}

/**
 * A path given in its real form (symlinks of the temp dir resolved, e.g. macOS `/private/var/...`
 * for `/var/...`) is mapped back onto `root` as the snippets write it; anything else as it is.
 */
async function asWrittenUnder(root: string, projectTempDir: string, candidate: string) {
  if (candidate.startsWith(`${root}${path.sep}`)) return candidate;
  try {
    const realRoot = outputsRoot(await fs.realpath(projectTempDir));
    if (realRoot !== root && candidate.startsWith(`${realRoot}${path.sep}`)) {
      return path.join(root, path.relative(realRoot, candidate));
    }
  } catch {
    // No temp dir yet: nothing to map.
  }
  return candidate;
}

/**
 * The real path of the output `file` names, after every access check (see the module comment).
 * Throws `ToolOutputReadError` with a message for the model.
 */
export async function resolveToolOutputFile(
  file: string,
  access: ToolOutputAccess,
): Promise<string> {
  const argument = file.trim();
  if (argument.length === 0 || argument.includes('\0')) {
    throw new ToolOutputReadError(
      'INVALID_PARAMS',
      'file must be the path from the snippet, without NUL characters.',
    );
  }
  const root = path.resolve(outputsRoot(access.projectTempDir));
  const sessionFolder = path.resolve(sessionDirectory(access.projectTempDir, access.sessionId));
  const useSnippetPath = `use the exact path from the snippet's file="..." attribute`;
  if (hasParentSegment(argument)) {
    throw new ToolOutputReadError(
      'OUTSIDE',
      `".." is not allowed in file: ${useSnippetPath} (this session's outputs are in ${sessionFolder}).`,
    );
  }

  let candidate: string;
  if (path.isAbsolute(argument)) {
    candidate = await asWrittenUnder(root, access.projectTempDir, path.resolve(argument));
  } else if (!/[\\/]/.test(argument)) {
    candidate = argument.endsWith('.txt')
      ? path.join(sessionFolder, argument)
      : await resolveCallId(argument, root, sessionFolder, access);
  } else {
    // `session-<id>/<name>.txt`: relative to the tool-outputs folder.
    candidate = path.resolve(root, argument);
  }

  // As written: directly inside this session's folder, or inside another session's folder.
  const folder = path.dirname(candidate);
  const inOtherSession =
    folder !== sessionFolder &&
    path.dirname(folder) === root &&
    sessionIdOfFolder(path.basename(folder)) !== undefined;
  if (folder !== sessionFolder && !inOtherSession) {
    throw new ToolOutputReadError(
      'OUTSIDE',
      `${candidate} is not an offloaded tool output of this session: read_tool_output only reads files in ${sessionFolder}; ${useSnippetPath}.`,
    );
  }
  if (inOtherSession && !access.allowOtherSessions) {
    throw new ToolOutputReadError(
      'OTHER_SESSION',
      `${candidate} belongs to another session (${path.basename(folder)}); reading other sessions' outputs is off (setting experimental.toolOutputMasking.allowOtherSessions). Only files in ${sessionFolder} can be read.`,
    );
  }

  // As it is on disk: real folders on the way, and the file really inside its folder.
  const rootExists = await checkRealFolder(root, 'the tool-outputs folder');
  const folderExists = rootExists && (await checkRealFolder(folder, 'the session folder'));
  if (!folderExists) {
    throw new ToolOutputReadError(
      'NOT_FOUND',
      `no offloaded outputs exist in ${folder}${inOtherSession ? '' : ' yet'}; ${useSnippetPath}.`,
    );
  }
  let real: string;
  let realFolder: string;
  try {
    realFolder = await fs.realpath(folder);
    real = await fs.realpath(candidate);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') {
      throw new ToolOutputReadError(
        'NOT_FOUND',
        `${candidate} does not exist: it may have been removed (session folders older than retentionDays are deleted) or the path is mistyped; ${useSnippetPath}.`,
      );
    }
    throw new ToolOutputReadError(
      'READ_FAILED',
      `cannot open ${candidate}: ${(error as Error).message}`,
    );
  }
  if (path.dirname(real) !== realFolder) {
    throw new ToolOutputReadError(
      'OUTSIDE',
      `${candidate} is a link that leads outside its session folder; refused.`,
    );
  }
  return real;
}

async function readText(filePath: string): Promise<string> {
  let handle: fs.FileHandle | undefined;
  try {
    // O_NOFOLLOW: a link swapped in after the checks is not followed.
    handle = await fs.open(filePath, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new ToolOutputReadError(
        'NOT_A_FILE',
        `${filePath} is ${stats.isDirectory() ? 'a folder' : 'not a regular file'}, not an output file.`,
      );
    }
    return await handle.readFile({ encoding: 'utf8' });
  } catch (error) {
    if (error instanceof ToolOutputReadError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'EISDIR') {
      throw new ToolOutputReadError('NOT_A_FILE', `${filePath} is a folder, not an output file.`);
    }
    if (code === 'ELOOP') {
      throw new ToolOutputReadError('OUTSIDE', `${filePath} became a symlink; refused.`);
    }
    throw new ToolOutputReadError(
      'READ_FAILED',
      `cannot read ${filePath}: ${(error as Error).message}`,
    );
  } finally {
    await handle?.close();
  }
}

/** Lines as the snippet header counts them: split at `\n`, a trailing `\r` dropped. */
function splitLines(text: string): string[] {
  return text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

interface Cut {
  text: string;
  cut: boolean;
}

function cutLine(line: string): Cut {
  if (line.length <= READ_LIMITS.maxLineChars) return { text: line, cut: false };
  return {
    text: `${line.slice(0, READ_LIMITS.maxLineChars)} … [${formatCount(line.length - READ_LIMITS.maxLineChars)} more characters cut]`,
    cut: true,
  };
}

/** Collects lines while they fit in the byte budget (the first one always fits). */
class Budget {
  private used = 0;
  readonly lines: string[] = [];
  add(line: string): boolean {
    const bytes = Buffer.byteLength(line, 'utf8') + 1;
    if (this.lines.length > 0 && this.used + bytes > READ_LIMITS.maxBytes) return false;
    this.used += bytes;
    this.lines.push(line);
    return true;
  }
}

function readRange(
  lines: readonly string[],
  params: ReadToolOutputParams,
  filePath: string,
): ReadToolOutputResult {
  const total = lines.length;
  const first = params.offset ?? 1;
  const limit = Math.min(params.limit ?? READ_LIMITS.maxLines, READ_LIMITS.maxLines);
  const budget = new Budget();
  let anyCut = false;
  let last = first - 1;
  for (let number = first; number <= total && number < first + limit; number++) {
    const cut = cutLine(lines[number - 1] as string);
    if (!budget.add(cut.text)) break;
    anyCut ||= cut.cut;
    last = number;
  }
  const truncated = last < total;
  let footer = `[read_tool_output: lines ${first}-${last} of ${total}`;
  if (truncated) {
    const why =
      last < first + limit - 1 ? ` (${formatCount(READ_LIMITS.maxBytes)}-byte limit per call)` : '';
    footer += `${why}; call again with offset=${last + 1} for more`;
  } else {
    footer += ', end of output';
  }
  if (anyCut)
    footer += `; lines longer than ${formatCount(READ_LIMITS.maxLineChars)} characters were cut, use pattern to search them`;
  footer += ']';
  return {
    text: [...budget.lines, footer].join('\n'),
    filePath,
    totalLines: total,
    firstLine: first,
    lastLine: last,
    truncated,
    summary: `Read lines ${first}-${last} of ${total} from ${path.basename(filePath)}`,
  };
}

function readMatches(
  lines: readonly string[],
  params: ReadToolOutputParams,
  filePath: string,
): ReadToolOutputResult {
  const regex = compileReadPattern(params.pattern as string);
  const total = lines.length;
  const first = params.offset ?? 1;
  const wanted = Math.min(params.limit ?? READ_LIMITS.defaultMatches, READ_LIMITS.maxMatches);
  const matching: number[] = [];
  for (let number = first; number <= total; number++) {
    if (regex.test(lines[number - 1] as string)) matching.push(number);
  }
  const isMatch = new Set(matching);

  // grep -n style: `n:` a matching line, `n-` context, `--` between groups that do not touch.
  const budget = new Budget();
  const context = READ_LIMITS.contextLines;
  let printedUpTo = first - 1;
  let shown = 0;
  let hitByteLimit = false;
  for (const number of matching) {
    if (shown >= wanted) break;
    const start = Math.max(first, number - context, printedUpTo + 1);
    const end = Math.min(total, number + context);
    if (end <= printedUpTo) continue; // printed whole as context of the group before
    const group: string[] = [];
    if (budget.lines.length > 0 && start > printedUpTo + 1) group.push('--');
    for (let line = start; line <= end; line++) {
      group.push(
        `${line}${isMatch.has(line) ? ':' : '-'}${cutLine(lines[line - 1] as string).text}`,
      );
    }
    const before = budget.lines.length;
    if (!group.every((line) => budget.add(line))) {
      // A group is shown whole or not at all.
      budget.lines.splice(before);
      hitByteLimit = true;
      break;
    }
    printedUpTo = end;
    // `matching` is ascending and printedUpTo only grows: count on from where the last group ended.
    while (shown < matching.length && (matching[shown] as number) <= printedUpTo) shown++;
  }
  const truncated = shown < matching.length;
  let footer: string;
  if (matching.length === 0) {
    footer = `[read_tool_output: no line matches ${params.pattern} in lines ${first}-${total} of ${total}]`;
  } else {
    footer = `[read_tool_output: ${shown} of ${matching.length} matching lines in lines ${first}-${total} of ${total}`;
    if (truncated) {
      const why = hitByteLimit
        ? `the ${formatCount(READ_LIMITS.maxBytes)}-byte limit per call`
        : `limit=${wanted}`;
      footer += `; stopped at ${why}: call again with the same pattern and offset=${printedUpTo + 1} for more`;
    }
    footer += ']';
  }
  return {
    text: [...budget.lines, footer].join('\n'),
    filePath,
    totalLines: total,
    firstLine: first,
    lastLine: total,
    truncated,
    matches: matching.length,
    matchesShown: shown,
    summary: `${matching.length} matching line${matching.length === 1 ? '' : 's'} for ${params.pattern} in ${path.basename(filePath)}${truncated ? ` (${shown} shown)` : ''}`,
  };
}

/** Reads a bounded slice (or the matching lines) of an offloaded output. Throws `ToolOutputReadError`. */
export async function readToolOutput(
  params: ReadToolOutputParams,
  access: ToolOutputAccess,
): Promise<ReadToolOutputResult> {
  const invalid = validateReadToolOutputParams(params);
  if (invalid) {
    throw new ToolOutputReadError(
      invalid.startsWith('invalid pattern') ? 'INVALID_PATTERN' : 'INVALID_PARAMS',
      invalid,
    );
  }
  const filePath = await resolveToolOutputFile(params.file, access);
  const lines = splitLines(await readText(filePath));
  const offset = params.offset ?? 1;
  if (offset > lines.length) {
    throw new ToolOutputReadError(
      'INVALID_PARAMS',
      `offset ${offset} is past the end: the output has ${lines.length} line${lines.length === 1 ? '' : 's'}.`,
    );
  }
  return params.pattern !== undefined
    ? readMatches(lines, params, filePath)
    : readRange(lines, params, filePath);
}
