/**
 * The `query` of `search_tool_outputs`, checked before anything is read: literal words (the
 * default), or one regular expression when `regex` is set. Either way it becomes a pattern for the
 * same linear-time matcher as `read_tool_output`'s (readPattern.ts), so no query the model writes
 * runs in unbounded time or memory: words are escaped, a regex passes the same checks as a
 * `read_tool_output` pattern (patternSyntax.ts).
 *
 * Words match case-insensitively and any one of them makes a line a match; the ranking
 * (searchRanking.ts) puts lines with more of the words first.
 */
import { PatternError, checkReadPattern, type PatternSpec } from './patternSyntax.js';

export const SEARCH_LIMITS = {
  /** Characters of a query. */
  maxQueryChars: 500,
  /** Distinct words of a literal query (more are refused, not dropped: the model should choose). */
  maxWords: 12,
  /** Matching lines shown by default, and at most (`limit`). */
  defaultResults: 20,
  maxResults: 100,
  /** UTF-8 bytes of the answer. */
  maxBytes: 32 * 1024,
  /** Characters shown of a matching or context line. */
  lineChars: 300,
  /** Lines of context before and after each match. */
  contextLines: 1,
  /** Saved outputs looked at per call, newest first. */
  maxOutputs: 5_000,
  /** A search stops after this long and says how far it got. */
  searchTimeMs: 10_000,
} as const;

export interface SearchQuery {
  /** What the matcher runs. */
  spec: PatternSpec;
  /** The lower-cased words of a literal query (the ranking counts them); undefined for a regex. */
  words?: readonly string[];
  /** The query as the model wrote it, shortened, for messages. */
  shown: string;
}

/** RE2 and JavaScript share these metacharacters; escaped, a word matches only itself. */
const METACHARACTERS = /[\\^$.*+?()[\]{}|]/g;

function shownOf(query: string): string {
  return JSON.stringify(query.length > 80 ? `${query.slice(0, 80)}…` : query);
}

/** The query as the matcher runs it. Throws `PatternError` with a message for the model. */
export function parseSearchQuery(query: unknown, regex = false): SearchQuery {
  if (typeof query !== 'string' || query.trim().length === 0) {
    throw new PatternError(
      'query is required: one or more words that the output you look for contains (e.g. "ECONNREFUSED retryDelay").',
    );
  }
  const shown = shownOf(query);
  if (query.length > SEARCH_LIMITS.maxQueryChars) {
    throw new PatternError(
      `query ${shown} is longer than ${SEARCH_LIMITS.maxQueryChars} characters: search for a few distinctive words instead.`,
    );
  }
  if (regex) return { spec: { ...checkReadPattern(query), shown }, shown };
  const words = [...new Set(query.toLowerCase().split(/\s+/).filter(Boolean))];
  if (words.length > SEARCH_LIMITS.maxWords) {
    throw new PatternError(
      `query ${shown} has ${words.length} words; use at most ${SEARCH_LIMITS.maxWords}, the most distinctive ones.`,
    );
  }
  const body = words.map((word) => word.replace(METACHARACTERS, '\\$&')).join('|');
  return { spec: { body, flags: 'i', shown }, words, shown };
}

/** How many of the query's words `line` holds (1 for a regex match: every match ranks the same). */
export function wordsIn(line: string, query: SearchQuery): number {
  if (!query.words) return 1;
  const lower = line.toLowerCase();
  let found = 0;
  for (const word of query.words) if (lower.includes(word)) found++;
  return found;
}
