/**
 * What a shell call reads and writes (`run_shell_command`, `Bash`, `bash`, Codex's `shell` argv
 * and `shell_command`/`exec_command`/`local_shell`, a Responses `shell_call`'s commands): its
 * rerun key is the command's text and the directory the call names; its script (shellScript.ts)
 * is walked pipeline by pipeline, `cd DIR` moving the directory later relative paths are taken
 * from. The call shows files only when every pipeline that prints is a read (shellReads.ts):
 * set-up (`cd`, `export`), writes, `echo` and quiet programs print nothing that counts. A script
 * the parser calls complex (control flow, subshells) reads and writes nothing.
 */
import { stringArg } from './callArguments.js';
import { NO_FACTS, normalizePath, type CallFacts } from './fileRanges.js';
import { rerunKeyOf, shellRerunKey } from './rerunKey.js';
import {
  parseShellScript,
  type ShellScript,
  type ShellWord,
  type SimpleCommand,
} from './shellScript.js';
import { pipelineRead } from './shellReads.js';
import { basename, commandWords, inPlace, type ShellState } from './shellWords.js';
import { collectWrites } from './shellWrites.js';

/** Programs that only set up the shell (or wait): nothing they print is content. */
const SETUP = new Set([
  'cd',
  'pushd',
  'popd',
  'export',
  'unset',
  'source',
  '.',
  'set',
  'shopt',
  'alias',
  'true',
  ':',
  'ulimit',
  'umask',
  'sleep',
  'clear',
  'local',
  'declare',
]);
/** Programs that print no content of their own on success (their writes are read apart). */
const QUIET = new Set(['mkdir', 'touch', 'chmod', 'ln', 'cp', 'mv', 'rm', 'rmdir', 'tee']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash']);

/** The facts of a shell tool's call (see the module comment). */
export function shellCallFacts(name: string, args: Record<string, unknown>): CallFacts {
  const commands = args['commands'];
  const command =
    args['command'] ??
    args['cmd'] ??
    // A Responses `shell_call` action: several commands, run in turn.
    (Array.isArray(commands) && commands.every((item) => typeof item === 'string')
      ? commands.join('\n')
      : undefined);
  const rawDirectory = stringArg(
    args,
    'workdir',
    'working_directory',
    'dir_path',
    'directory',
    'cwd',
  );
  if (typeof command !== 'string' && !Array.isArray(command)) return { rerunKey: '', ...NO_FACTS };
  const rerunKey =
    typeof command === 'string'
      ? shellRerunKey(name, command, rawDirectory ?? null)
      : rerunKeyOf(name, { command, directory: rawDirectory ?? null });
  const directory = rawDirectory === undefined ? undefined : normalizeDirectory(rawDirectory);
  if (directory === null) return { rerunKey, ...NO_FACTS };
  const script = scriptOf(command);
  if (!script || script.complex) return { rerunKey, ...NO_FACTS };
  return { rerunKey, ...scriptFacts(script, directory) };
}

/** The call's directory: undefined for the project's own (`.`), null when not usable. */
function normalizeDirectory(raw: string): string | undefined | null {
  if (raw === '' || raw === '.' || raw === './') return undefined;
  return normalizePath(raw) ?? null;
}

/** A command as a script: a string is parsed; an argv runs as it is, or `bash -lc SCRIPT`. */
function scriptOf(command: unknown): ShellScript | undefined {
  if (typeof command === 'string') return parseShellScript(command);
  if (!Array.isArray(command) || command.length === 0) return undefined;
  if (!command.every((word) => typeof word === 'string')) return undefined;
  const words = command as string[];
  const program = basename(words[0] as string);
  if (SHELLS.has(program) && words.length === 3 && /^-[a-z]*c$/.test(words[1] as string)) {
    return parseShellScript(words[2] as string);
  }
  if (words.reduce((sum, word) => sum + word.length, 0) > 8_192) return undefined;
  return {
    pipelines: [[{ words: words.map((text) => ({ text, dynamic: false })), redirects: [] }]],
    complex: false,
  };
}

/** Where a command's standard output goes into a file (it then prints nothing). */
function stdoutRedirected(command: SimpleCommand): boolean {
  return command.redirects.some(
    (redirect) =>
      ((redirect.op === '>' || redirect.op === '>>' || redirect.op === '>|') &&
        (redirect.fd === undefined || redirect.fd === 1)) ||
      redirect.op === '&>' ||
      redirect.op === '&>>',
  );
}

function scriptFacts(
  script: ShellScript,
  directory: string | undefined,
): Omit<CallFacts, 'rerunKey'> {
  const state: ShellState = { directory, reads: [], writes: [], other: false };
  for (const pipeline of script.pipelines) {
    for (const command of pipeline) collectWrites(command, state);
    const first = pipeline[0] as SimpleCommand;
    const words = commandWords(first);
    const program = basename(words[0]?.text ?? '');
    if (pipeline.length === 1 && (program === 'cd' || program === 'pushd')) {
      changeDirectory(words, state);
      continue;
    }
    if (words.length === 0 || SETUP.has(program)) continue;
    const last = pipeline[pipeline.length - 1] as SimpleCommand;
    if (stdoutRedirected(last)) continue;
    if (program === 'echo' || program === 'printf') continue;
    if (pipeline.length === 1 && quietProgram(program, words)) continue;
    const read = pipelineRead(pipeline, state);
    if (read) state.reads.push(...read);
    else state.other = true;
  }
  return { reads: state.other ? [] : state.reads, writes: state.writes };
}

function changeDirectory(words: ShellWord[], state: ShellState): void {
  const target = words[1];
  if (!target || target.dynamic || target.text === '-' || words.length > 2) {
    state.directory = null;
    return;
  }
  if (state.directory === null && !target.text.startsWith('/')) return;
  const next = normalizePath(target.text, state.directory ?? undefined);
  state.directory = next ?? null;
}

/** A program run alone that prints nothing worth reading (`sed -i`, `git checkout f`). */
function quietProgram(program: string, words: ShellWord[]): boolean {
  if (QUIET.has(program)) return true;
  if (program === 'sed' || program === 'perl') return inPlace(words);
  if (program === 'git') return words[1]?.text === 'checkout' || words[1]?.text === 'restore';
  return program === 'apply_patch';
}
