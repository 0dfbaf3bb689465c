/**
 * `sed -n` as a read: a script that only prints lines by their addresses (`10,80p`, `5p`,
 * `/re/,/re/p`, `1,$p`, several joined by `;`) shows those lines of its file, a numeric pair
 * exactly, anything else only some lines of it (partial). Any other script (`s///`, `w`), no
 * `-n`, or an option not understood (`-i`) is no read. The script is read in one linear scan,
 * without regular expressions (it is model-chosen).
 */
import { WHOLE, type FileRange } from './fileRanges.js';
import type { ShellWord } from './shellScript.js';

/**
 * `sed -n SCRIPT [FILE]` whose script only prints addresses (`10,80p`, `5p`, `/re/,/re/p`,
 * `1,$p`, several joined by `;`): the range (partial unless one numeric address pair), and the
 * files. Anything else (`s///`, `w`, no `-n`, `-i`) is not a read.
 */
export function sedPrint(
  words: ShellWord[],
): { range: Omit<FileRange, 'path'>; files: ShellWord[] } | undefined {
  let quiet = false;
  let script: string | undefined;
  const rest: ShellWord[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as ShellWord;
    const text = word.text;
    if (text === '-e' || text === '--expression') {
      if (script !== undefined) script += ';';
      script = (script ?? '') + (words[++index]?.text ?? '');
    } else if (text === '-n' || text === '--quiet' || text === '--silent') {
      quiet = true;
    } else if (/^-[nEr]+$/.test(text)) {
      if (text.includes('n')) quiet = true;
    } else if (text.startsWith('-') && text.length > 1) {
      return undefined;
    } else {
      rest.push(word);
    }
  }
  if (!quiet) return undefined;
  if (script === undefined) {
    const first = rest.shift();
    if (!first || first.dynamic) return undefined;
    script = first.text;
  }
  const range = sedScriptRange(script);
  return range ? { range, files: rest } : undefined;
}

/** The lines a print-only sed script shows (see `sedPrint`). Linear, no regular expression. */
function sedScriptRange(script: string): Omit<FileRange, 'path'> | undefined {
  const commands: { first: number | undefined; last: number | undefined }[] = [];
  let at = 0;
  const skipBlanks = () => {
    while (script[at] === ' ' || script[at] === '\t') at++;
  };
  /** One address: a line number (returned), `$` (Infinity) or `/re/` (undefined, partial). */
  const address = (): number | undefined | false => {
    skipBlanks();
    const start = at;
    while (isDigitChar(script[at])) at++;
    if (at > start) return at - start <= 9 ? Number(script.slice(start, at)) : false;
    if (script[at] === '$') {
      at++;
      return Infinity;
    }
    if (script[at] === '/') {
      at++;
      while (at < script.length && script[at] !== '/') at += script[at] === '\\' ? 2 : 1;
      if (at >= script.length) return false;
      at++;
      return undefined;
    }
    return false;
  };
  while (at < script.length) {
    skipBlanks();
    if (script[at] === ';' || script[at] === '\n') {
      at++;
      continue;
    }
    const first = address();
    if (first === false) return undefined;
    let last: number | undefined | false = first;
    skipBlanks();
    if (script[at] === ',') {
      at++;
      last = address();
      if (last === false) return undefined;
    }
    skipBlanks();
    if (script[at] !== 'p') return undefined;
    at++;
    skipBlanks();
    if (at < script.length && script[at] !== ';' && script[at] !== '\n') return undefined;
    commands.push({ first, last });
  }
  const only = commands.length === 1 ? commands[0] : undefined;
  if (!only || only.first === undefined || only.last === undefined || only.first === Infinity) {
    return commands.length > 0 ? { ...WHOLE, partial: true } : undefined;
  }
  if (only.last < only.first) return undefined;
  return { first: Math.max(1, only.first), last: only.last, partial: false };
}

const isDigitChar = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
