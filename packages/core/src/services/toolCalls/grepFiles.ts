/**
 * `grep` as a read: the files whose matching lines it shows, one or none given (a later stage of
 * a pipeline), the pattern skipped whether given first or by `-e`/`-f`. A grep that shows
 * something else (`-l`, `-L`, `-c`, `-q`, `-Z` and their long forms) or searches folders (`-r`,
 * `-R`) is no read; a search is a part of its file (covered only by a whole read).
 */
import type { ShellWord } from './shellScript.js';

/** grep's long options that make it show something other than matching lines of one file. */
const GREP_REFUSED_LONG = new Set([
  'recursive',
  'dereference-recursive',
  'files-with-matches',
  'files-without-match',
  'count',
  'quiet',
  'silent',
  'null',
]);

/** grep's long options that take the next word as their value (unless given `--name=value`). */
const GREP_VALUED_LONG = new Set([
  'regexp',
  'file',
  'max-count',
  'after-context',
  'before-context',
  'context',
]);
/** grep's short options that take a value (the rest of the word, or the next word). */
const GREP_VALUED = new Set(['e', 'f', 'm', 'A', 'B', 'C', 'd', 'D']);
/** grep's short options that make it show something other than matching lines of one file. */
const GREP_REFUSED = new Set(['r', 'R', 'l', 'L', 'c', 'q', 'Z']);

/**
 * The files of a `grep` that shows matching lines of them: undefined when it shows something else
 * (`-l`, `-L`, `-c`, `-q`) or searches folders (`-r`, `-R`).
 */
export function grepFiles(words: readonly ShellWord[]): ShellWord[] | undefined {
  let pattern = false;
  const rest: ShellWord[] = [];
  let options = true;
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as ShellWord;
    const text = word.text;
    if (!options || !text.startsWith('-') || text.length === 1) {
      rest.push(word);
    } else if (text === '--') {
      options = false;
    } else if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = equals < 0 ? text.slice(2) : text.slice(2, equals);
      if (GREP_REFUSED_LONG.has(name)) return undefined;
      if (name === 'regexp' || name === 'file') pattern = true;
      if (equals < 0 && GREP_VALUED_LONG.has(name)) index++;
    } else {
      for (let at = 1; at < text.length; at++) {
        const flag = text[at] as string;
        if (GREP_REFUSED.has(flag)) return undefined;
        if (GREP_VALUED.has(flag)) {
          if (flag === 'e' || flag === 'f') pattern = true;
          if (at === text.length - 1) index++;
          break;
        }
      }
    }
  }
  if (!pattern) rest.shift();
  return rest;
}
