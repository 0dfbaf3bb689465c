/**
 * The files a shell command writes: redirections into a file (`> f`, `>> f`, `&> f`, a heredoc
 * into a file), `tee f`, in-place edits (`sed -i`, `perl -pi`), the destination of `cp`, what `mv`
 * and `rm` name, `git checkout [--] PATH` and `git restore PATH`, and the files of an
 * `apply_patch`. What a program writes on its own (a script, `patch`, `git stash`) is unknown and
 * not guessed: a missed write only leaves an output unmasked. Nothing under `/dev/` counts.
 */
import { patchFiles } from './patchFiles.js';
import type { ShellWord, SimpleCommand } from './shellScript.js';
import { inPlace, operands, resolve, type ShellState } from './shellWords.js';

function addWrite(word: ShellWord | undefined, state: ShellState): void {
  const file = resolve(word, state);
  if (file && !file.startsWith('/dev/')) state.writes.push(file);
}

/** sed's and perl's options that take the next word: a script or a script file. */
const takesScript = (option: string) =>
  option === '-e' || option === '-f' || option === '--expression';
/** cp's options that take the next word (`-t DIR`, `-S SUFFIX`). */
const cpTakesValue = (option: string) => option === '-t' || option === '-S';

/**
 * Adds the files `command` writes to `state.writes`; `words` and `program` are its words without
 * a prefix and its program (commandWords, programOf), which the caller has already read.
 */
export function collectWrites(
  command: SimpleCommand,
  words: readonly ShellWord[],
  program: string,
  state: ShellState,
): void {
  for (const redirect of command.redirects) {
    const { op, target } = redirect;
    if (op === '>' || op === '>>' || op === '>|' || op === '&>' || op === '&>>') {
      addWrite(target, state);
    } else if (op === '>&' && !/^\d+$|^-$/.test(target.text)) {
      addWrite(target, state);
    }
  }
  if (program === 'tee') {
    for (const word of operands(words)) addWrite(word, state);
  } else if ((program === 'sed' || program === 'perl') && inPlace(words)) {
    const rest = operands(words, takesScript);
    let scripted = false;
    for (const word of words) if (word.text === '-e' || word.text === '-f') scripted = true;
    for (let index = scripted ? 0 : 1; index < rest.length; index++) addWrite(rest[index], state);
  } else if (program === 'cp') {
    const rest = operands(words, cpTakesValue);
    if (rest.length >= 2) addWrite(rest[rest.length - 1], state);
  } else if (program === 'mv' || program === 'rm') {
    for (const word of operands(words)) addWrite(word, state);
  } else if (program === 'git') {
    gitWrites(words, state);
  } else if (program === 'apply_patch') {
    const patch =
      command.redirects.find((redirect) => redirect.body !== undefined)?.body ?? words[1]?.text;
    if (patch) {
      for (const file of patchFiles(patch, state.directory ?? undefined)) state.writes.push(file);
    }
  }
}

/** `git checkout [--] PATH…` and `git restore PATH…` (not `--staged` alone): the paths. */
function gitWrites(words: readonly ShellWord[], state: ShellState): void {
  const subcommand = words[1]?.text;
  if (subcommand !== 'checkout' && subcommand !== 'restore') return;
  const texts = words.map((word) => word.text);
  if (texts.some((text) => text === '-b' || text === '-B' || text === '--orphan')) return;
  if (subcommand === 'restore' && texts.includes('--staged') && !texts.includes('--worktree')) {
    return;
  }
  const separator = texts.indexOf('--');
  const valued = (option: string) => option === '-s' || option === '--source';
  const candidates = separator >= 0 ? words.slice(separator + 1) : operands(words.slice(1), valued);
  for (const word of candidates) {
    // Without `--`, `git checkout NAME` may be a branch: only what looks like a path is one.
    if (separator < 0 && subcommand === 'checkout' && !/[./]/.test(word.text)) continue;
    addWrite(word, state);
  }
}
