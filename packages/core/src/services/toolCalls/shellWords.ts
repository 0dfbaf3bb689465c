/**
 * The words of a parsed shell command (shellScript.ts) as the reads and writes of a script are
 * found from them: the program's name, its words without a prefix that only runs it (`VAR=x`,
 * `time`, `timeout 5`, `nice`, `env`), its operands, and a word resolved to a path against the
 * directory the script has moved to. A word the shell would expand (`$x`, a glob) is no path,
 * nor is a relative one after a `cd` that could not be followed.
 */
import { normalizePath, type FileRange } from './fileRanges.js';
import { isDigit, isNameChar } from './shellCharacters.js';
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
export function basename(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash < 0 ? word : word.slice(slash + 1);
}

const EQUALS = 61;

/** `NAME=…` (a letter or `_`, then letters, digits or `_`): a variable set for the command. */
function isAssignment(text: string): boolean {
  const first = text.charCodeAt(0);
  if (!isNameChar(first) || isDigit(first)) return false;
  for (let at = 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === EQUALS) return true;
    if (!isNameChar(code)) return false;
  }
  return false;
}

/**
 * A command's words without `VAR=value`, `time`, `timeout [opts] N`, `env`, `nohup`, `nice`: the
 * command's own array when there is no such prefix (callers only read it).
 */
export function commandWords(command: SimpleCommand): ShellWord[] {
  const words = command.words;
  let start = 0;
  while (start < words.length) {
    const text = (words[start] as ShellWord).text;
    if (isAssignment(text) || text === 'time' || text === 'nohup' || text === 'env') {
      start++;
    } else if (text === 'timeout' || text === 'nice') {
      start++;
      while (start < words.length && (words[start] as ShellWord).text.startsWith('-')) start++;
      if (text === 'timeout') start++;
    } else {
      break;
    }
  }
  return start === 0 ? words : words.slice(start);
}

/** The program a command's words run: the first word without its folder, `''` for none. */
export const programOf = (words: readonly ShellWord[]) =>
  words.length === 0 ? '' : basename((words[0] as ShellWord).text);

/** The path a word names, from the script's directory; undefined when it names none for sure. */
export function resolve(word: ShellWord | undefined, state: ShellState): string | undefined {
  if (!word || word.dynamic || word.text.startsWith('-')) return undefined;
  if (state.directory === null && !word.text.startsWith('/')) return undefined;
  return normalizePath(word.text, state.directory ?? undefined);
}

/** `-i…`, `-pi…` (short options ending where `i` is) or `--in-place`: an in-place edit. */
const IN_PLACE_OPTION = /^-[A-Za-z]*i/;

/** `sed -i`, `perl -pi`: an in-place edit. */
export function inPlace(words: readonly ShellWord[]): boolean {
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as ShellWord;
    if (word.dynamic || !word.text.startsWith('-')) continue;
    if (IN_PLACE_OPTION.test(word.text) || word.text.startsWith('--in-place')) return true;
  }
  return false;
}

/** An option that takes no value. */
const noValue = () => false;

/** Non-option words after the program (`--` ends the options). */
export function operands(
  words: readonly ShellWord[],
  takesValue: (option: string) => boolean = noValue,
): ShellWord[] {
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
