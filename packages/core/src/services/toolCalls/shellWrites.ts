/**
 * The files a shell command writes: redirections into a file (`> f`, `>> f`, `&> f`, a heredoc
 * into a file), `tee f`, in-place edits (`sed -i`, `perl -pi`), the destination of `cp`, what `mv`
 * and `rm` name, `git checkout [--] PATH` and `git restore PATH`, and the files of an
 * `apply_patch`. What a program writes on its own (a script, `patch`, `git stash`) is unknown and
 * not guessed: a missed write only leaves an output unmasked. Nothing under `/dev/` counts.
 */
import { patchFiles } from './patchFiles.js';
import type { ShellWord, SimpleCommand } from './shellScript.js';
import {
  basename,
  commandWords,
  inPlace,
  operands,
  resolve,
  type ShellState,
} from './shellWords.js';

function addWrite(word: ShellWord | undefined, state: ShellState): void {
  const file = resolve(word, state);
  if (file && !file.startsWith('/dev/')) state.writes.push(file);
}

/** Adds the files `command` writes to `state.writes`. */
export function collectWrites(command: SimpleCommand, state: ShellState): void {
  for (const redirect of command.redirects) {
    const { op, target } = redirect;
    const numeric = /^\d+$|^-$/.test(target.text);
    if (op === '>' || op === '>>' || op === '>|' || op === '&>' || op === '&>>') {
      addWrite(target, state);
    } else if (op === '>&' && !numeric) {
      addWrite(target, state);
    }
  }
  const words = commandWords(command);
  const program = basename(words[0]?.text ?? '');
  if (program === 'tee') {
    for (const word of operands(words)) addWrite(word, state);
  } else if ((program === 'sed' || program === 'perl') && inPlace(words)) {
    const script = (option: string) =>
      option === '-e' || option === '-f' || option === '--expression';
    const rest = operands(words, script);
    const scripted = words.some((word) => word.text === '-e' || word.text === '-f');
    for (const word of scripted ? rest : rest.slice(1)) addWrite(word, state);
  } else if (program === 'cp') {
    const rest = operands(words, (option) => option === '-t' || option === '-S');
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
function gitWrites(words: ShellWord[], state: ShellState): void {
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
