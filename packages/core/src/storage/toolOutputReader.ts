/**
 * Reading an offloaded output back: the logic behind the `read_tool_output` tool (the tool itself,
 * bound to gemini-cli-core, is geminiCliHost/readToolOutputTool.ts).
 *
 * - Access (outputAccess.ts): only outputs of this session (and of the conversation's earlier
 *   sessions, or, when allowed, of the project's other sessions); what is opened is checked after
 *   the open, so a folder swapped for a link, a hard link or a FIFO is refused, not read.
 * - Bounded: at most `READ_LIMITS.maxLines` lines and `READ_LIMITS.maxBytes` bytes per call,
 *   each line cut at `READ_LIMITS.maxLineChars` characters, with a footer that says which lines
 *   were shown and how to get the rest (readSlices.ts).
 * - Streaming (lineStream.ts): the file is read chunk by chunk, and a call stops as soon as it has
 *   what it shows (outputs up to `READ_LIMITS.fullScanBytes` are read to the end for exact
 *   counts). Reading one line of a 200 MB output costs one chunk.
 * - Patterns (readPattern.ts) run on a linear-time engine in a worker thread: any pattern, any
 *   line, in bounded time (`READ_LIMITS.searchTimeMs` per call), the host's event loop never
 *   blocked, an abort honoured at once.
 *
 * Every refusal says what to do instead, so the model can recover on its own.
 */
import * as path from 'node:path';
import type { FileHandle } from 'node:fs/promises';
import { openToolOutput, resolveToolOutput, resolveToolOutputFile } from './outputAccess.js';
import type { ToolOutputAccess } from './outputArgument.js';
import {
  ToolOutputReadError,
  describeArgument,
  type ToolOutputReadErrorCode,
} from './toolOutputReadError.js';
import { lineBatches, type LineBatch } from './lineStream.js';
import { LineMatcher, MATCH_LINE_BYTES } from './readPattern.js';
import { PatternError, checkReadPattern, type PatternSpec } from './patternSyntax.js';
import {
  MatchSlice,
  READ_LIMITS,
  RangeSlice,
  type OutputExtent,
  type Slice,
} from './readSlices.js';
import { touchSessionFolder } from './sessionActivity.js';

export {
  READ_LIMITS,
  ToolOutputReadError,
  resolveToolOutputFile,
  type ToolOutputAccess,
  type ToolOutputReadErrorCode,
};

export const READ_TOOL_OUTPUT_TOOL_NAME = 'read_tool_output';

export interface ReadToolOutputParams {
  /** The `file` path of a masked snippet, a file name in the session's folder, or a call id. */
  file: string;
  /** 1-based first line to return (range mode) or to search from (pattern mode). Default 1. */
  offset?: number;
  /** Lines to return (range mode) or matching lines to return (pattern mode). */
  limit?: number;
  /** A regular expression (`error|fail`, or `/timeout/i` with flags), RE2 syntax. */
  pattern?: string;
}

export interface ReadToolOutputOptions {
  /** The tool call's abort signal: an aborted read stops at once (`ABORTED`). */
  signal?: AbortSignal;
  /** Time limit of a search. @default READ_LIMITS.searchTimeMs */
  searchTimeMs?: number;
}

export interface ReadToolOutputResult {
  /** What the model gets: the lines and a footer. */
  text: string;
  /** The real path that was read. */
  filePath: string;
  /** Lines of the output; undefined when the call stopped before the end of a large output. */
  totalLines: number | undefined;
  /** 1-based range of lines shown (range mode) or searched (pattern mode). */
  firstLine: number;
  lastLine: number;
  /** More lines (or matches) follow than were shown. */
  truncated: boolean;
  /** Pattern mode: matching lines in the searched range (when it was searched to the end). */
  matches?: number;
  matchesShown?: number;
  /** A short line for the person (the tool's `returnDisplay`). */
  summary: string;
}

/** Checks the parameters without touching the disk; null when they are usable. */
export function validateReadToolOutputParams(params: ReadToolOutputParams): string | null {
  const { file, offset, limit, pattern } = params;
  if (typeof file !== 'string' || file.trim().length === 0) {
    return 'file is required: pass the file path from the <tool_output_masked ... file="..."> snippet.';
  }
  if (file.includes('\0')) return 'file must not contain a NUL character.';
  if (offset !== undefined && (!Number.isInteger(offset) || offset < 1)) {
    return `offset must be a whole number of at least 1 (the first line is 1), got ${describeArgument(offset)}.`;
  }
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    return `limit must be a whole number of at least 1, got ${describeArgument(limit)}.`;
  }
  if (pattern !== undefined) {
    if (typeof pattern !== 'string' || pattern.length === 0) {
      return 'pattern must be a non-empty regular expression.';
    }
    try {
      checkReadPattern(pattern);
    } catch (error) {
      return (error as Error).message;
    }
  }
  return null;
}

function pastTheEnd(offset: number, total: number): ToolOutputReadError {
  return new ToolOutputReadError(
    'INVALID_PARAMS',
    `offset ${offset} is past the end: the output has ${total} line${total === 1 ? '' : 's'}.`,
  );
}

const aborted = () => new ToolOutputReadError('ABORTED', 'the read was cancelled.');

interface Scan {
  extent: OutputExtent;
  /** Lines of the output seen so far (all of them when `extent.totalLines` is set). */
  seen: number;
}

/** Streams the file into `take` until `done()` and the output is larger than a full scan. */
async function scan(
  handle: FileHandle,
  keepBytes: number,
  signal: AbortSignal | undefined,
  take: (batch: LineBatch) => Promise<boolean>,
  done: () => boolean,
): Promise<Scan> {
  const { size } = await handle.stat();
  const scanAll = size <= READ_LIMITS.fullScanBytes;
  let seen = 0;
  for await (const batch of lineBatches(handle, { keepBytes, ...(signal ? { signal } : {}) })) {
    seen = batch.first + batch.count - 1;
    if (!(await take(batch))) return { extent: { bytes: size }, seen };
    if (batch.last) return { extent: { bytes: size, totalLines: seen }, seen };
    if (done() && !scanAll) return { extent: { bytes: size }, seen };
  }
  return { extent: { bytes: size }, seen };
}

/** The result of a call: what its slice shows, and what is known of the whole output. */
function resultOf(
  slice: Slice,
  extent: OutputExtent,
  first: number,
  filePath: string,
  summary: string,
): ReadToolOutputResult {
  return {
    text: slice.text,
    filePath,
    totalLines: extent.totalLines,
    firstLine: first,
    lastLine: slice.lastLine,
    truncated: slice.truncated,
    summary,
  };
}

async function readRange(
  handle: FileHandle,
  params: ReadToolOutputParams,
  filePath: string,
  signal: AbortSignal | undefined,
): Promise<ReadToolOutputResult> {
  const first = params.offset ?? 1;
  const slice = new RangeSlice(
    first,
    Math.min(params.limit ?? READ_LIMITS.maxLines, READ_LIMITS.maxLines),
  );
  const { extent, seen } = await scan(
    handle,
    // A UTF-8 character takes at most 3 bytes per UTF-16 code unit: enough to show a cut line.
    3 * READ_LIMITS.maxLineChars,
    signal,
    async (batch) => {
      slice.take(batch);
      return true;
    },
    () => slice.complete,
  );
  if (first > seen) throw pastTheEnd(first, seen);
  const result = slice.finish(extent);
  const of = extent.totalLines !== undefined ? ` of ${extent.totalLines}` : '';
  const summary = `Read lines ${first}-${result.lastLine}${of} from ${path.basename(filePath)}`;
  return resultOf(result, extent, first, filePath, summary);
}

async function readMatches(
  handle: FileHandle,
  params: ReadToolOutputParams,
  pattern: PatternSpec,
  filePath: string,
  options: ReadToolOutputOptions,
): Promise<ReadToolOutputResult> {
  const { signal } = options;
  const first = params.offset ?? 1;
  const wanted = Math.min(params.limit ?? READ_LIMITS.defaultMatches, READ_LIMITS.maxMatches);
  const slice = new MatchSlice(first, wanted, params.pattern as string);
  const deadline = Date.now() + (options.searchTimeMs ?? READ_LIMITS.searchTimeMs);
  const matcher = new LineMatcher(pattern);
  try {
    const { extent, seen } = await scan(
      handle,
      MATCH_LINE_BYTES,
      signal,
      async (batch) => {
        // Only the lines from `first` on are searched.
        const skip = Math.max(0, first - batch.first);
        if (skip >= batch.count) return true;
        const outcome = await matcher.match(
          batch.bytesFrom(skip),
          batch.count - skip,
          deadline,
          signal,
        );
        if (outcome.kind === 'aborted') throw aborted();
        if (outcome.kind === 'timed-out') {
          slice.end('time');
          return false;
        }
        const matched = new Set<number>();
        for (const index of outcome.indices) matched.add(index + skip);
        slice.take(batch, matched);
        return true;
      },
      () => slice.complete,
    );
    if (first > seen && extent.totalLines !== undefined) throw pastTheEnd(first, seen);
    slice.end();
    const result = slice.finish(extent);
    const count = result.matches ?? result.matchesShown;
    const shown =
      result.matches === undefined || result.truncated ? ` (${result.matchesShown} shown)` : '';
    const summary = `${count}${result.matches === undefined ? '+' : ''} matching line${count === 1 ? '' : 's'} for ${params.pattern} in ${path.basename(filePath)}${shown}`;
    return {
      ...resultOf(result, extent, first, filePath, summary),
      ...(result.matches !== undefined ? { matches: result.matches } : {}),
      matchesShown: result.matchesShown,
    };
  } finally {
    matcher.close();
  }
}

/**
 * Reads a bounded slice (or the matching lines) of an offloaded output. Throws
 * `ToolOutputReadError` (code `ABORTED` when `options.signal` aborts).
 */
export async function readToolOutput(
  params: ReadToolOutputParams,
  access: ToolOutputAccess,
  options: ReadToolOutputOptions = {},
): Promise<ReadToolOutputResult> {
  const invalid = validateReadToolOutputParams(params);
  if (invalid) {
    throw new ToolOutputReadError(
      invalid.startsWith('invalid pattern') ? 'INVALID_PATTERN' : 'INVALID_PARAMS',
      invalid,
    );
  }
  const pattern = params.pattern !== undefined ? checkReadPattern(params.pattern) : undefined;
  const output = await resolveToolOutput(params.file, access);
  const handle = await openToolOutput(output);
  try {
    const result = pattern
      ? await readMatches(handle, params, pattern, output.path, options)
      : await readRange(handle, params, output.path, options.signal);
    // A read-back is a use of the folder: retention counts from it (another host's folder is
    // only read).
    if (!output.host) touchSessionFolder(output.folder);
    return result;
  } catch (error) {
    if (error instanceof ToolOutputReadError) throw error;
    if (error instanceof PatternError)
      throw new ToolOutputReadError('INVALID_PATTERN', error.message);
    if (options.signal?.aborted) throw aborted();
    throw new ToolOutputReadError(
      'READ_FAILED',
      `cannot read ${output.path}: ${(error as Error).message}`,
    );
  } finally {
    await handle.close();
  }
}
