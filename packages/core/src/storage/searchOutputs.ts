/**
 * `search_tool_outputs`: finds lines in every output saved for the session (or, when
 * `allowOtherSessions`, the project), so the model can get back a line it needs without knowing
 * which masked output holds it. The answer names each output as `read_tool_output` takes it, with
 * line numbers, the matching lines and a line of context, ranked (searchRanking.ts).
 *
 * Bounded like `read_tool_output`: the query is checked first (searchQuery.ts) and run in the
 * same linear-time matcher in a worker (readPattern.ts), one worker for the whole call; outputs
 * are streamed (lineStream.ts) and opened through the reader's own confinement (outputAccess.ts);
 * at most `SEARCH_LIMITS.maxOutputs` outputs, newest first, and `SEARCH_LIMITS.searchTimeMs` per
 * call, after which the answer says how far the search got. No index: a scan of what the session
 * saved costs what reading it costs (docs/benchmarks.md measures it), and nothing is kept between
 * calls.
 */
import type { FileHandle } from 'node:fs/promises';
import { boundaryAtOrAfter } from '../utils/codePoints.js';
import { formatCount } from '../utils/formatCount.js';
import { lineBatches, type LineBatch } from './lineStream.js';
import { openToolOutput, resolveToolOutput, type ResolvedOutput } from './outputAccess.js';
import * as path from 'node:path';
import type { ToolOutputAccess } from './outputArgument.js';
import { PatternError } from './patternSyntax.js';
import { LineMatcher, MATCH_LINE_BYTES } from './readPattern.js';
import { RankedHits, formatHits, shownText, type SearchHit } from './searchRanking.js';
import { listSearchableOutputs, type SearchableOutput } from './searchableOutputs.js';
import { SEARCH_LIMITS, parseSearchQuery, wordsIn, type SearchQuery } from './searchQuery.js';
import { ToolOutputReadError, describeArgument } from './toolOutputReadError.js';

export const SEARCH_TOOL_OUTPUTS_TOOL_NAME = 'search_tool_outputs';

export interface SearchToolOutputsParams {
  /** Words the lines should hold (any of them; lines with more rank first), or a regex. */
  query: string;
  /** `query` is a regular expression (RE2 syntax), not words. */
  regex?: boolean;
  /** Matching lines to show. @default SEARCH_LIMITS.defaultResults */
  limit?: number;
}

export interface SearchToolOutputsOptions {
  signal?: AbortSignal;
  /** @default SEARCH_LIMITS.searchTimeMs */
  searchTimeMs?: number;
  /** Outputs looked at, newest first. @default SEARCH_LIMITS.maxOutputs */
  maxOutputs?: number;
}

export interface SearchToolOutputsResult {
  /** What the model gets. */
  text: string;
  /** The matches shown, best first. */
  hits: SearchHit[];
  /** Matching lines found, and in how many outputs. */
  matches: number;
  outputsMatched: number;
  /** Outputs searched to the end, and outputs there were. */
  outputsSearched: number;
  outputsTotal: number;
  /** The time limit ended the search before every output was searched. */
  timedOut: boolean;
  /** A short line for the person. */
  summary: string;
}

/** Checks the parameters without touching the disk; null when they are usable. */
export function validateSearchToolOutputsParams(params: SearchToolOutputsParams): string | null {
  const { limit, regex } = params;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    return `limit must be a whole number of at least 1, got ${describeArgument(limit)}.`;
  }
  if (regex !== undefined && typeof regex !== 'boolean') {
    return `regex must be true or false, got ${describeArgument(regex)}.`;
  }
  try {
    parseSearchQuery(params.query, regex === true);
  } catch (error) {
    return (error as Error).message;
  }
  return null;
}

const aborted = () => new ToolOutputReadError('ABORTED', 'the search was cancelled.');

/** Context lines of `index` in `batch` (only those in the same batch). */
function contextOf(batch: LineBatch, from: number, to: number) {
  const lines: { line: number; text: string }[] = [];
  for (let index = Math.max(0, from); index <= Math.min(batch.count - 1, to); index++) {
    const { text, length } = batch.line(index);
    lines.push({ line: batch.first + index, text: shownText(text, length) });
  }
  return lines;
}

/**
 * A matching line as shown: whole when short; else the stretch around the first query word (a
 * long line's match may lie far past its head).
 */
function excerptOf(text: string, length: number, query: SearchQuery): string {
  if (length <= SEARCH_LIMITS.lineChars || !query.words) return shownText(text, length);
  const lower = text.toLowerCase();
  const at = Math.min(...query.words.map((word) => lower.indexOf(word)).filter((i) => i >= 0));
  if (!Number.isFinite(at) || at < SEARCH_LIMITS.lineChars / 2) return shownText(text, length);
  const start = boundaryAtOrAfter(text, at - Math.floor(SEARCH_LIMITS.lineChars / 3));
  const excerpt = shownText(text.slice(start), length - start);
  return `[${formatCount(start)} characters] … ${excerpt}`;
}

/** Searches one open output; false when the time limit ended it. */
async function searchOutput(
  handle: FileHandle,
  { name: file, bytes }: SearchableOutput,
  order: number,
  search: { query: SearchQuery; matcher: LineMatcher; hits: RankedHits; deadline: number },
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const { query, matcher, hits, deadline } = search;
  const context = SEARCH_LIMITS.contextLines;
  // As much of a line as a read_tool_output pattern sees; a small output needs small buffers.
  const fits = Math.max(1, bytes + 1);
  for await (const batch of lineBatches(handle, {
    keepBytes: Math.min(MATCH_LINE_BYTES, fits),
    chunkBytes: Math.min(1 << 20, fits),
    ...(signal ? { signal } : {}),
  })) {
    const outcome = await matcher.match(batch.bytesFrom(0), batch.count, deadline, signal);
    if (outcome.kind === 'aborted') throw aborted();
    if (outcome.kind === 'timed-out') return false;
    for (const index of outcome.indices) {
      const { text, length } = batch.line(index);
      const score = wordsIn(text, query);
      hits.noteMatch(file);
      if (!hits.wants(score)) continue;
      hits.add({
        file,
        line: batch.first + index,
        text: excerptOf(text, length, query),
        before: contextOf(batch, index - context, index - 1),
        after: contextOf(batch, index + 1, index + context),
        score,
        order,
      });
    }
  }
  return true;
}

function answerOf(
  query: SearchQuery,
  hits: RankedHits,
  counts: { searched: number; total: number; listed: number; timedOut: boolean },
  limit: number,
): Pick<SearchToolOutputsResult, 'text' | 'hits' | 'summary'> {
  const best = hits.best();
  const { lines, shown } = formatHits(best);
  const matched = `${formatCount(hits.count)} matching line${hits.count === 1 ? '' : 's'} in ${hits.files.size} of ${formatCount(counts.total)} saved output${counts.total === 1 ? '' : 's'}`;
  const notes: string[] = [];
  if (shown < hits.count) {
    const why =
      shown < Math.min(limit, best.length)
        ? `the ${formatCount(SEARCH_LIMITS.maxBytes)}-byte limit`
        : `limit=${limit}`;
    notes.push(
      `showing the best ${shown} (${why}; at most ${SEARCH_LIMITS.maxResults}); add words to narrow it`,
    );
  }
  if (counts.timedOut) {
    notes.push(
      `the ${SEARCH_LIMITS.searchTimeMs / 1000} s time limit ended the search after ${counts.searched} output${counts.searched === 1 ? '' : 's'}, newest first`,
    );
  } else if (counts.listed < counts.total) {
    notes.push(`only the newest ${formatCount(counts.listed)} outputs were searched`);
  }
  notes.push('read more of an output with read_tool_output(file, offset)');
  const head =
    hits.count === 0
      ? `search_tool_outputs: no line matches ${query.shown} in ${formatCount(counts.total)} saved output${counts.total === 1 ? '' : 's'}.`
      : `search_tool_outputs: ${matched} for ${query.shown}${query.words ? ' (lines with more of the words first)' : ''}:`;
  const text = [
    head,
    '',
    ...lines,
    ...(lines.length > 0 ? [''] : []),
    `[${notes.join('; ')}]`,
  ].join('\n');
  const summary = `${hits.count} matching line${hits.count === 1 ? '' : 's'} for ${query.shown} in ${hits.files.size} output${hits.files.size === 1 ? '' : 's'}`;
  return { text, hits: best.slice(0, shown), summary };
}

/**
 * Searches the saved outputs the access opens. Throws `ToolOutputReadError` (`INVALID_PARAMS`,
 * `INVALID_PATTERN`, `ABORTED`); an output that cannot be opened is skipped.
 */
export async function searchToolOutputs(
  params: SearchToolOutputsParams,
  access: ToolOutputAccess,
  options: SearchToolOutputsOptions = {},
): Promise<SearchToolOutputsResult> {
  const invalid = validateSearchToolOutputsParams(params);
  if (invalid) {
    const code =
      params.regex === true && invalid.startsWith('invalid pattern')
        ? 'INVALID_PATTERN'
        : 'INVALID_PARAMS';
    throw new ToolOutputReadError(code, invalid);
  }
  const { signal } = options;
  const query = parseSearchQuery(params.query, params.regex === true);
  const limit = Math.min(params.limit ?? SEARCH_LIMITS.defaultResults, SEARCH_LIMITS.maxResults);
  const deadline = Date.now() + (options.searchTimeMs ?? SEARCH_LIMITS.searchTimeMs);
  const { outputs, total } = await listSearchableOutputs(
    access,
    Math.min(options.maxOutputs ?? SEARCH_LIMITS.maxOutputs, SEARCH_LIMITS.maxOutputs),
  );
  // The first output of each folder goes through every check of a read (outputAccess.ts); the
  // rest reuse its real folder, and openToolOutput's checks after the open still confine each.
  const realFolders = new Map<string, string>();
  const locate = async (name: string): Promise<ResolvedOutput> => {
    const folderName = path.dirname(name);
    const known = realFolders.get(folderName);
    if (known) return { path: path.join(known, path.basename(name)), folder: known };
    const resolved = await resolveToolOutput(name, access);
    realFolders.set(folderName, resolved.folder);
    return resolved;
  };
  const hits = new RankedHits(limit);
  const matcher = new LineMatcher(query.spec);
  let searched = 0;
  let timedOut = false;
  try {
    for (const [order, output] of outputs.entries()) {
      if (signal?.aborted) throw aborted();
      if (Date.now() >= deadline) {
        timedOut = true;
        break;
      }
      let handle: FileHandle;
      try {
        handle = await openToolOutput(await locate(output.name));
      } catch {
        continue; // removed or refused since it was listed: nothing to search
      }
      try {
        const search = { query, matcher, hits, deadline };
        if (!(await searchOutput(handle, output, order, search, signal))) {
          timedOut = true;
          break;
        }
        searched++;
      } finally {
        await handle.close();
      }
    }
  } catch (error) {
    if (error instanceof ToolOutputReadError) throw error;
    if (error instanceof PatternError)
      throw new ToolOutputReadError('INVALID_PATTERN', error.message);
    if (signal?.aborted) throw aborted();
    throw new ToolOutputReadError('READ_FAILED', `the search failed: ${(error as Error).message}`);
  } finally {
    matcher.close();
  }
  const counts = { searched, total, listed: outputs.length, timedOut };
  return {
    ...answerOf(query, hits, counts, limit),
    matches: hits.count,
    outputsMatched: hits.files.size,
    outputsSearched: searched,
    outputsTotal: total,
    timedOut,
  };
}
