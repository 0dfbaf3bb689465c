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

/**
 * The files of a `grep` that shows matching lines of them: undefined when it shows something else
 * (`-l`, `-L`, `-c`, `-q`) or searches folders (`-r`, `-R`).
 */
export function grepFiles(words: ShellWord[]): ShellWord[] | undefined {
  const valued = new Set(['e', 'f', 'm', 'A', 'B', 'C', 'd', 'D']);
  const refused = new Set(['r', 'R', 'l', 'L', 'c', 'q', 'Z']);
  let pattern = false;
  const rest: ShellWord[] = [];
  let options = true;
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as ShellWord;
    const text = word.text;
    if (options && text === '--') {
      options = false;
    } else if (options && text.startsWith('--')) {
      const name = text.slice(2).split('=')[0] as string;
      if (GREP_REFUSED_LONG.has(name)) return undefined;
      if (name === 'regexp' || name === 'file') pattern = true;
      if (
        !text.includes('=') &&
        /^(regexp|file|max-count|after-context|before-context|context)$/.test(name)
      ) {
        index++;
      }
    } else if (options && text.startsWith('-') && text.length > 1) {
      for (let at = 1; at < text.length; at++) {
        const flag = text[at] as string;
        if (refused.has(flag)) return undefined;
        if (valued.has(flag)) {
          if (flag === 'e' || flag === 'f') pattern = true;
          if (at === text.length - 1) index++;
          break;
        }
      }
    } else {
      rest.push(word);
    }
  }
  if (!pattern) rest.shift();
  return rest;
}
