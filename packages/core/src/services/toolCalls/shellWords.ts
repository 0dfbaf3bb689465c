/**
 * The words of a parsed shell command (shellScript.ts) as the reads and writes of a script are
 * found from them: the program's name, its words without a prefix that only runs it (`VAR=x`,
 * `time`, `timeout 5`, `nice`, `env`), its operands, and a word resolved to a path against the
 * directory the script has moved to. A word the shell would expand (`$x`, a glob) is no path,
 * nor is a relative one after a `cd` that could not be followed.
 */
import { normalizePath, type FileRange } from './fileRanges.js';
import type { ShellWord, SimpleCommand } from './shellScript.js';

/** A script's walk so far: where it is, what it read and wrote, whether it printed anything else. */
export interface ShellState {
  /** Where relative paths start; undefined: as given; null: unknown (a `cd` not understood). */
  directory: string | undefined | null;
  reads: FileRange[];
  writes: string[];
  /** A pipeline printed something other than a file read. */
  other: boolean;
}

/** The program's name without its folder (`/usr/bin/cat` is `cat`). */
export const basename = (word: string) => word.slice(word.lastIndexOf('/') + 1);

/** A command's words without `VAR=value`, `time`, `timeout [opts] N`, `env`, `nohup`, `nice`. */
export function commandWords(command: SimpleCommand): ShellWord[] {
  const words = command.words;
  let start = 0;
  while (start < words.length) {
    const word = words[start] as ShellWord;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word.text)) {
      start++;
    } else if (word.text === 'time' || word.text === 'nohup' || word.text === 'env') {
      start++;
    } else if (word.text === 'timeout' || word.text === 'nice') {
      start++;
      while (start < words.length && (words[start] as ShellWord).text.startsWith('-')) start++;
      if (word.text === 'timeout') start++;
    } else {
      break;
    }
  }
  return words.slice(start);
}

/** The path a word names, from the script's directory; undefined when it names none for sure. */
export function resolve(word: ShellWord | undefined, state: ShellState): string | undefined {
  if (!word || word.dynamic || word.text.startsWith('-')) return undefined;
  if (state.directory === null && !word.text.startsWith('/')) return undefined;
  return normalizePath(word.text, state.directory ?? undefined);
}

/** `sed -i`, `perl -pi`: an in-place edit. */
export function inPlace(words: ShellWord[]): boolean {
  return words.some(
    (word, index) =>
      index > 0 &&
      !word.dynamic &&
      (/^-[A-Za-z]*i/.test(word.text) || word.text.startsWith('--in-place')),
  );
}

/** Non-option words after the program (`--` ends the options). */
export function operands(
  words: ShellWord[],
  takesValue: (option: string) => boolean = () => false,
) {
  const result: ShellWord[] = [];
  let options = true;
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as ShellWord;
    if (options && word.text === '--') {
      options = false;
    } else if (options && word.text.startsWith('-') && word.text.length > 1) {
      if (takesValue(word.text)) index++;
    } else {
      result.push(word);
    }
  }
  return result;
}
