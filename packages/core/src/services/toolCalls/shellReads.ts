/**
 * The lines of files a shell pipeline shows, when it shows lines of files and nothing else: its
 * first command reads (`cat FILE…`, `nl FILE`, `less`/`more FILE` whole; `head -n N`, `tail -n
 * +K`, `sed -n 'A,Bp'` a range; `tail -n N`, `sed -n '/re/p'` and `grep` on one file a part), and
 * each later stage narrows what the stages before it show (`| sed -n '10,80p'`, `| head`,
 * `| tail`, `| grep`, `| cat`). Any other stage makes the pipeline no read: a missed read only
 * leaves an output unmasked, a wrong one would hide what is still current.
 */
import { partOf, wholeFile, within, type FileRange } from './fileRanges.js';
import { grepFiles } from './grepFiles.js';
import { sedPrint } from './sedPrint.js';
import type { ShellWord, SimpleCommand } from './shellScript.js';
import { commandWords, operands, programOf, resolve, type ShellState } from './shellWords.js';

/** A number of lines: digits only, at most 9 of them. */
function count(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,9}$/.test(text)) return undefined;
  return Number(text);
}

/** `-n N`, `-nN`, `-N`, `--lines=N`, `--lines N` of head and tail; `c` for bytes. */
function lineOption(words: readonly ShellWord[]): {
  lines: string | undefined;
  bytes: boolean;
  files: ShellWord[];
} {
  let lines: string | undefined;
  let bytes = false;
  const files: ShellWord[] = [];
  for (let index = 1; index < words.length; index++) {
    const text = (words[index] as ShellWord).text;
    if (!text.startsWith('-') || text.length === 1) files.push(words[index] as ShellWord);
    else if (text === '-n' || text === '--lines') lines = words[++index]?.text;
    else if (text.startsWith('--lines=')) lines = text.slice('--lines='.length);
    else if (/^-n[+-]?\d+$/.test(text)) lines = text.slice(2);
    else if (/^-\d+$/.test(text)) lines = text.slice(1);
    else if (text === '-c' || text.startsWith('-c') || text.startsWith('--bytes')) bytes = true;
  }
  return { lines, bytes, files };
}

/**
 * The lines a pipeline shows, when it shows lines of files and nothing else. `words` and `program`
 * are its first command's (commandWords, programOf), which the caller has already read.
 */
export function pipelineRead(
  pipeline: readonly SimpleCommand[],
  words: readonly ShellWord[],
  program: string,
  state: ShellState,
): FileRange[] | undefined {
  let ranges = sourceRead(words, program, state);
  for (let index = 1; ranges && index < pipeline.length; index++) {
    ranges = narrow(ranges, commandWords(pipeline[index] as SimpleCommand));
  }
  return ranges;
}

/** The whole file a word names. */
function wholeRead(word: ShellWord, state: ShellState): FileRange | undefined {
  const file = resolve(word, state);
  return file ? wholeFile(file) : undefined;
}

/** nl's options that take a value (`-b a`, `-w 6`). */
const nlTakesValue = (option: string) => /^-[bdfhilnsvw]$/.test(option);

/** What the first command of a pipeline shows of files. */
function sourceRead(
  words: readonly ShellWord[],
  program: string,
  state: ShellState,
): FileRange[] | undefined {
  if (program === 'cat' || program === 'less' || program === 'more') {
    const files = operands(words);
    if (files.length === 0 || (program !== 'cat' && files.length > 1)) return undefined;
    const reads: FileRange[] = [];
    for (const word of files) {
      const read = wholeRead(word, state);
      if (!read) return undefined;
      reads.push(read);
    }
    return reads;
  }
  if (program === 'nl') {
    const files = operands(words, nlTakesValue);
    if (files.length !== 1) return undefined;
    const read = wholeRead(files[0] as ShellWord, state);
    return read ? [read] : undefined;
  }
  if (program === 'head' || program === 'tail') {
    const { lines, bytes, files } = lineOption(words);
    if (files.length !== 1) return undefined;
    const file = resolve(files[0], state);
    if (!file) return undefined;
    const range = narrowByLines(wholeFile(file), program, lines, bytes);
    return range ? [range] : undefined;
  }
  if (program === 'sed') {
    const parsed = sedPrint(words);
    if (!parsed || parsed.files.length !== 1) return undefined;
    const file = resolve(parsed.files[0], state);
    if (!file) return undefined;
    return [within(wholeFile(file), parsed.range)];
  }
  if (program === 'grep' || program === 'egrep' || program === 'fgrep') {
    const files = grepFiles(words);
    if (!files || files.length !== 1) return undefined;
    const file = resolve(files[0], state);
    return file ? [{ path: file, first: 1, last: Infinity, partial: true }] : undefined;
  }
  return undefined;
}

/** A later stage of a pipeline, applied to what the stages before it show. */
function narrow(ranges: FileRange[], words: readonly ShellWord[]): FileRange[] | undefined {
  const program = programOf(words);
  if ((program === 'cat' || program === 'nl') && operands(words).length === 0) return ranges;
  if (program === 'grep' || program === 'egrep' || program === 'fgrep') {
    const files = grepFiles(words);
    if (!files || files.length > 0) return undefined;
    return ranges.map(partOf);
  }
  // Line positions of the stream are the file's only when one file flows through it.
  if (ranges.length !== 1) return undefined;
  const range = ranges[0] as FileRange;
  if (program === 'head' || program === 'tail') {
    const { lines, bytes, files } = lineOption(words);
    if (files.length > 0) return undefined;
    const narrowed = narrowByLines(range, program, lines, bytes);
    return narrowed ? [narrowed] : undefined;
  }
  if (program === 'sed') {
    const parsed = sedPrint(words);
    if (!parsed || parsed.files.length > 0) return undefined;
    return [within(range, parsed.range)];
  }
  return undefined;
}

/** `head`/`tail` with their line option, on `range`; undefined when not understood. */
function narrowByLines(
  range: FileRange,
  program: string,
  lines: string | undefined,
  bytes: boolean,
): FileRange | undefined {
  if (bytes) return partOf(range);
  const text = lines ?? '10';
  if (program === 'head') {
    const kept = count(text.startsWith('+') ? text.slice(1) : text);
    if (kept === undefined) return text.startsWith('-') ? partOf(range) : undefined;
    return within(range, { first: 1, last: kept, partial: false });
  }
  if (text.startsWith('+')) {
    const from = count(text.slice(1));
    return from === undefined
      ? undefined
      : within(range, { first: from, last: Infinity, partial: false });
  }
  const kept = count(text.startsWith('-') ? text.slice(1) : text);
  if (kept === undefined) return undefined;
  if (range.partial || range.last === Infinity) return partOf(range);
  return {
    path: range.path,
    first: Math.max(range.first, range.last - kept + 1),
    last: range.last,
    partial: false,
  };
}
