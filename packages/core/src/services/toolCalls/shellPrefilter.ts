/**
 * Whether a shell script may read or write files at all, from its text alone, before it is
 * parsed (issue 30: a cold pass reads every call of a history, and about a third of a shell
 * agent's commands run a program of the project, `python x.py`, `pytest`, `ls`, `find`).
 *
 * Exact where it answers no: in a script without quotes, escapes or expansions (`' " \ $` and a
 * backquote), every word is its text as written, and a command's program (after a prefix such as
 * `VAR=x` or `timeout 5`) is a whole word, or the last part of one after a `/`, that starts after
 * a blank, an operator or the script's start and ends at a blank, an operator or the end. A
 * script where no program that reads (shellReads.ts) stands so reads nothing; one where, besides,
 * no program that writes (shellWrites.ts) stands so and no `>` is written writes nothing. Words
 * in a heredoc body or a comment only make it answer yes (the full walk then decides).
 */
import type { WantedFacts } from './fileRanges.js';

/** What makes a word not its text as written. */
const QUOTE_ESCAPE_OR_EXPANSION = /['"\\$`]/;
/** Where a program's name can start and end (a word's edge, or a `/` before it). */
const BEFORE = '(?:^|[\\s;&|()<>/])';
const AFTER = '(?=$|[\\s;&|()<>])';

/** Programs whose pipeline can show lines of files (shellReads.ts, `sourceRead`). */
export const READING_PROGRAMS = [
  'cat',
  'less',
  'more',
  'nl',
  'head',
  'tail',
  'sed',
  'grep',
  'egrep',
  'fgrep',
] as const;
/** Programs that can write files (shellWrites.ts, `collectWrites`); redirections have a `>`. */
export const WRITING_PROGRAMS = [
  'tee',
  'sed',
  'perl',
  'cp',
  'mv',
  'rm',
  'git',
  'apply_patch',
] as const;

const READING = new RegExp(`${BEFORE}(?:${READING_PROGRAMS.join('|')})${AFTER}`);
const WRITING = new RegExp(`>|${BEFORE}(?:${WRITING_PROGRAMS.join('|')})${AFTER}`);

/**
 * False when the script surely reads nothing and (if writes are wanted) writes nothing, as its
 * walk would find (see the module comment); true when it may, or when its text cannot tell.
 */
export function mayReadOrWrite(script: string, wanted: WantedFacts): boolean {
  if (!wanted.reads && !wanted.writes) return false;
  if (QUOTE_ESCAPE_OR_EXPANSION.test(script)) return true;
  return (wanted.reads && READING.test(script)) || (wanted.writes && WRITING.test(script));
}
