/**
 * What a call reads and writes, in the form calls are compared in (callFacts.ts): the lines of a
 * file an output shows (`FileRange`) and paths normalized as written. A relative path stays
 * relative (joined to the directory the call names, when it names one), so it is never matched
 * to an absolute one; a path that cannot be compared (empty, too long, a NUL, above its start)
 * is none at all.
 */
import * as path from 'node:path';

/** Lines of one file an output shows: `first`..`last`, 1-based and inclusive. */
export interface FileRange {
  path: string;
  first: number;
  last: number;
  /** Some lines of that range (a search, the last N lines): covered only by a whole-file read. */
  partial: boolean;
}

export interface CallFacts {
  /**
   * The call's tool and arguments, canonical (a rerun has the same key); hashed when long. Empty
   * for a call without arguments (or a shell call without a command): nothing to compare.
   */
  rerunKey: string;
  /** What the output shows when it shows files and nothing else; empty otherwise. */
  reads: readonly FileRange[];
  /** Files the call writes, edits, creates or removes, when it succeeds. */
  writes: readonly string[];
}

/**
 * Which facts a caller uses: the reads (read again, edited) and the writes (edited); the rerun
 * key is always given. What is not wanted is left empty, its work not done (a pass that does
 * not look for edits parses no command for its writes).
 */
export interface WantedFacts {
  reads: boolean;
  writes: boolean;
}

/** Every fact. */
export const ALL_FACTS: WantedFacts = { reads: true, writes: true };

/** Every line of a file. */
export const WHOLE = { first: 1, last: Infinity, partial: false } as const;
/** What a call not understood reads and writes: nothing. */
export const NO_FACTS = { reads: [], writes: [] } as const;

/** Longest path compared; a longer one is no path. */
const MAX_PATH_CHARS = 4_096;

/**
 * What `path.posix.normalize` would change: an empty segment (`//`) or a `.` or `..` one. A path
 * without them is its own normal form, and most paths a call names are (`path.posix.normalize`
 * walks every character in JavaScript: a tenth of the superseded facts on a cold pass, issue 30).
 */
const NOT_NORMAL = /\/\/|(?:^|\/)\.\.?(?:\/|$)/;

/** A path as compared: joined to `directory` when relative, normalized; undefined if unusable. */
export function normalizePath(raw: string, directory?: string): string | undefined {
  if (raw.length === 0 || raw.length > MAX_PATH_CHARS || raw.includes('\u0000')) return undefined;
  const joined = raw.startsWith('/') || directory === undefined ? raw : `${directory}/${raw}`;
  const normalized = NOT_NORMAL.test(joined) ? path.posix.normalize(joined) : joined;
  if (normalized === '.' || normalized === '/' || normalized.startsWith('../')) return undefined;
  if (normalized === '..') return undefined;
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}

/** Every line of `file`. */
export const wholeFile = (file: string): FileRange => ({
  path: file,
  first: 1,
  last: Infinity,
  partial: false,
});

/** Some lines of what `range` shows (covered only by a whole read). */
export const partOf = (range: FileRange): FileRange => ({
  path: range.path,
  first: range.first,
  last: range.last,
  partial: true,
});

/** Stream lines `part.first..part.last` of what `range` shows. */
export function within(range: FileRange, part: Omit<FileRange, 'path'>): FileRange {
  if (range.partial || part.partial) return partOf(range);
  const first = range.first + Math.max(1, part.first) - 1;
  const last = Math.min(range.last, range.first + part.last - 1);
  return { path: range.path, first, last: Math.max(first, last), partial: false };
}
