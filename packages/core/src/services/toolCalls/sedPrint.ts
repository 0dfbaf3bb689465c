/**
 * `sed -n` as a read: a script that only prints lines by their addresses (`10,80p`, `5p`,
 * `/re/,/re/p`, `1,$p`, several joined by `;`) shows those lines of its file, a numeric pair
 * exactly, anything else only some lines of it (partial). Any other script (`s///`, `w`), no
 * `-n`, or an option not understood (`-i`) is no read. The script is read in one linear scan,
 * without regular expressions (it is model-chosen).
 */
import { WHOLE, type FileRange } from './fileRanges.js';
import { BACKSLASH, DOLLAR, NEWLINE, SEMICOLON, SPACE, TAB, isDigit } from './shellCharacters.js';
import type { ShellWord } from './shellScript.js';

/**
 * `sed -n SCRIPT [FILE]` whose script only prints addresses (`10,80p`, `5p`, `/re/,/re/p`,
 * `1,$p`, several joined by `;`): the range (partial unless one numeric address pair), and the
 * files. Anything else (`s///`, `w`, no `-n`, `-i`) is not a read.
 */
export function sedPrint(
  words: readonly ShellWord[],
): { range: Omit<FileRange, 'path'>; files: ShellWord[] } | undefined {
  let quiet = false;
  let script: string | undefined;
  const rest: ShellWord[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as ShellWord;
    const text = word.text;
    if (!text.startsWith('-') || text.length === 1) {
      rest.push(word);
    } else if (text === '-e' || text === '--expression') {
      if (script !== undefined) script += ';';
      script = (script ?? '') + (words[++index]?.text ?? '');
    } else if (text === '-n' || text === '--quiet' || text === '--silent') {
      quiet = true;
    } else if (/^-[nEr]+$/.test(text)) {
      if (text.includes('n')) quiet = true;
    } else {
      return undefined;
    }
  }
  if (!quiet) return undefined;
  if (script === undefined) {
    const first = rest.shift();
    if (!first || first.dynamic) return undefined;
    script = first.text;
  }
  const range = new SedScript(script).range();
  return range ? { range, files: rest } : undefined;
}

// The codes only a sed script's grammar tests (the shell's own are shellCharacters.ts').
const COMMA = 44;
const SLASH = 47;
const PRINT = 112; // p

/** A print-only sed script read in one linear scan, without regular expressions. */
class SedScript {
  private at = 0;

  constructor(private readonly script: string) {}

  /** The lines the script shows (see `sedPrint`), or undefined when it does anything else. */
  range(): Omit<FileRange, 'path'> | undefined {
    const script = this.script;
    let commands = 0;
    let first: number | undefined;
    let last: number | undefined;
    while (this.at < script.length) {
      this.skipBlanks();
      const code = script.charCodeAt(this.at);
      if (code === SEMICOLON || code === NEWLINE) {
        this.at++;
        continue;
      }
      const from = this.address();
      if (from === false) return undefined;
      let to: number | undefined | false = from;
      this.skipBlanks();
      if (script.charCodeAt(this.at) === COMMA) {
        this.at++;
        to = this.address();
        if (to === false) return undefined;
      }
      this.skipBlanks();
      if (script.charCodeAt(this.at) !== PRINT) return undefined;
      this.at++;
      this.skipBlanks();
      const after = script.charCodeAt(this.at);
      if (this.at < script.length && after !== SEMICOLON && after !== NEWLINE) return undefined;
      if (commands++ === 0) {
        first = from;
        last = to;
      }
    }
    if (commands !== 1 || first === undefined || last === undefined || first === Infinity) {
      return commands > 0 ? { ...WHOLE, partial: true } : undefined;
    }
    if (last < first) return undefined;
    return { first: Math.max(1, first), last, partial: false };
  }

  private skipBlanks(): void {
    for (;;) {
      const code = this.script.charCodeAt(this.at);
      if (code !== SPACE && code !== TAB) return;
      this.at++;
    }
  }

  /** One address: a line number (returned), `$` (Infinity) or `/re/` (undefined, partial). */
  private address(): number | undefined | false {
    const script = this.script;
    this.skipBlanks();
    const start = this.at;
    while (isDigit(script.charCodeAt(this.at))) this.at++;
    if (this.at > start) return this.at - start <= 9 ? Number(script.slice(start, this.at)) : false;
    const code = script.charCodeAt(this.at);
    if (code === DOLLAR) {
      this.at++;
      return Infinity;
    }
    if (code === SLASH) {
      this.at++;
      while (this.at < script.length && script.charCodeAt(this.at) !== SLASH) {
        this.at += script.charCodeAt(this.at) === BACKSLASH ? 2 : 1;
      }
      if (this.at >= script.length) return false;
      this.at++;
      return undefined;
    }
    return false;
  }
}
