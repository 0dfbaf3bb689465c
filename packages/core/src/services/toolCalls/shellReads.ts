/**
 * The lines of files a shell pipeline shows, when it shows lines of files and nothing else: its
 * first command reads (`cat FILE…`, `nl FILE`, `less`/`more FILE` whole; `head -n N`, `tail -n
 * +K`, `sed -n 'A,Bp'` a range; `tail -n N`, `sed -n '/re/p'` and `grep` on one file a part), and
 * each later stage narrows what the stages before it show (`| sed -n '10,80p'`, `| head`,
 * `| tail`, `| grep`, `| cat`). Any other stage makes the pipeline no read: a missed read only
 * leaves an output unmasked, a wrong one would hide what is still current.
 */
import { WHOLE, within, type FileRange } from './fileRanges.js';
import { grepFiles } from './grepFiles.js';
import { sedPrint } from './sedPrint.js';
import type { ShellWord, SimpleCommand } from './shellScript.js';
import { basename, commandWords, operands, resolve, type ShellState } from './shellWords.js';

/** A number of lines: digits only, at most 9 of them. */
function count(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,9}$/.test(text)) return undefined;
  return Number(text);
}

/** `-n N`, `-nN`, `-N`, `--lines=N`, `--lines N` of head and tail; `c` for bytes. */
function lineOption(words: ShellWord[]): { lines?: string; bytes: boolean; files: ShellWord[] } {
  let lines: string | undefined;
  let bytes = false;
  const files: ShellWord[] = [];
  for (let index = 1; index < words.length; index++) {
    const text = (words[index] as ShellWord).text;
    if (text === '-n' || text === '--lines') lines = words[++index]?.text;
    else if (text.startsWith('--lines=')) lines = text.slice('--lines='.length);
    else if (/^-n[+-]?\d+$/.test(text)) lines = text.slice(2);
    else if (/^-\d+$/.test(text)) lines = text.slice(1);
    else if (text === '-c' || text.startsWith('-c') || text.startsWith('--bytes')) bytes = true;
    else if (text.startsWith('-') && text.length > 1) continue;
    else files.push(words[index] as ShellWord);
  }
  return { ...(lines !== undefined ? { lines } : {}), bytes, files };
}

/** The lines a pipeline shows, when it shows lines of files and nothing else. */
export function pipelineRead(
  pipeline: SimpleCommand[],
  state: ShellState,
): FileRange[] | undefined {
  const [source, ...stages] = pipeline;
  let ranges = sourceRead(commandWords(source as SimpleCommand), state);
  if (!ranges) return undefined;
  for (const stage of stages) {
    if (!ranges) return undefined;
    ranges = narrow(ranges, commandWords(stage));
  }
  return ranges;
}

/** What the first command of a pipeline shows of files. */
function sourceRead(words: ShellWord[], state: ShellState): FileRange[] | undefined {
  const program = basename(words[0]?.text ?? '');
  const whole = (word: ShellWord) => {
    const file = resolve(word, state);
    return file ? { path: file, ...WHOLE } : undefined;
  };
  if (program === 'cat' || program === 'less' || program === 'more') {
    const files = operands(words);
    if (files.length === 0 || (program !== 'cat' && files.length > 1)) return undefined;
    const reads = files.map(whole);
    return reads.every((read) => read !== undefined) ? (reads as FileRange[]) : undefined;
  }
  if (program === 'nl') {
    const valued = (option: string) => /^-[bdfhilnsvw]$/.test(option);
    const files = operands(words, valued);
    if (files.length !== 1) return undefined;
    const read = whole(files[0] as ShellWord);
    return read ? [read] : undefined;
  }
  if (program === 'head' || program === 'tail') {
    const { lines, bytes, files } = lineOption(words);
    if (files.length !== 1) return undefined;
    const file = resolve(files[0], state);
    if (!file) return undefined;
    const range = narrowByLines({ path: file, ...WHOLE }, program, lines, bytes);
    return range ? [range] : undefined;
  }
  if (program === 'sed') {
    const parsed = sedPrint(words);
    if (!parsed || parsed.files.length !== 1) return undefined;
    const file = resolve(parsed.files[0], state);
    if (!file) return undefined;
    return [within({ path: file, ...WHOLE }, parsed.range)];
  }
  if (program === 'grep' || program === 'egrep' || program === 'fgrep') {
    const files = grepFiles(words);
    if (!files || files.length !== 1) return undefined;
    const file = resolve(files[0], state);
    return file ? [{ path: file, ...WHOLE, partial: true }] : undefined;
  }
  return undefined;
}

/** A later stage of a pipeline, applied to what the stages before it show. */
function narrow(ranges: FileRange[], words: ShellWord[]): FileRange[] | undefined {
  const program = basename(words[0]?.text ?? '');
  if ((program === 'cat' || program === 'nl') && operands(words).length === 0) return ranges;
  if (program === 'grep' || program === 'egrep' || program === 'fgrep') {
    const files = grepFiles(words);
    if (!files || files.length > 0) return undefined;
    return ranges.map((range) => ({ ...range, partial: true }));
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
  if (bytes) return { ...range, partial: true };
  const text = lines ?? '10';
  if (program === 'head') {
    const kept = count(text.startsWith('+') ? text.slice(1) : text);
    if (kept === undefined) return text.startsWith('-') ? { ...range, partial: true } : undefined;
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
  if (range.partial || range.last === Infinity) return { ...range, partial: true };
  return { ...range, first: Math.max(range.first, range.last - kept + 1) };
}
