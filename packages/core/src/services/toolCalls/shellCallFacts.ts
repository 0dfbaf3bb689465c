/**
 * What a shell call reads and writes (`run_shell_command`, `Bash`, `bash`, Codex's `shell` argv
 * and `shell_command`/`exec_command`/`local_shell`, a Responses `shell_call`'s commands): its
 * rerun key is the command's text and the directory the call names; its script (shellScript.ts)
 * is walked pipeline by pipeline, `cd DIR` moving the directory later relative paths are taken
 * from. The call shows files only when every pipeline that prints is a read (shellReads.ts):
 * set-up (`cd`, `export`), writes, `echo` and quiet programs print nothing that counts. A script
 * the parser calls complex (control flow, subshells) reads and writes nothing. A script whose text
 * shows it reads and writes nothing (shellPrefilter.ts: `python x.py`, `ls src`) is not parsed.
 */
import { stringArg } from './callArguments.js';
import {
  ALL_FACTS,
  NO_FACTS,
  normalizePath,
  type CallFacts,
  type WantedFacts,
} from './fileRanges.js';
import { rerunKeyOf, shellRerunKey } from './rerunKey.js';
import {
  parseShellScript,
  type ShellScript,
  type ShellWord,
  type SimpleCommand,
} from './shellScript.js';
import { mayReadOrWrite } from './shellPrefilter.js';
import { pipelineRead } from './shellReads.js';
import { basename, commandWords, inPlace, programOf, type ShellState } from './shellWords.js';
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

/** The facts of a shell tool's call (see the module comment), those `wanted` only. */
export function shellCallFacts(
  name: string,
  args: Record<string, unknown>,
  wanted: WantedFacts = ALL_FACTS,
): CallFacts {
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
  if (typeof command !== 'string' && !Array.isArray(command)) return noFacts('');
  const rerunKey =
    typeof command === 'string'
      ? shellRerunKey(name, command, rawDirectory ?? null)
      : rerunKeyOf(name, { command, directory: rawDirectory ?? null });
  if (
    typeof command === 'string' ? !mayReadOrWrite(command, wanted) : !wanted.reads && !wanted.writes
  ) {
    return noFacts(rerunKey);
  }
  const directory = rawDirectory === undefined ? undefined : normalizeDirectory(rawDirectory);
  if (directory === null) return noFacts(rerunKey);
  const script = scriptOf(command);
  if (!script || script.complex) return noFacts(rerunKey);
  const state: ShellState = { directory, reads: [], writes: [], other: !wanted.reads };
  walkScript(script, state, wanted.writes);
  return { rerunKey, reads: state.other ? NO_FACTS.reads : state.reads, writes: state.writes };
}

const noFacts = (rerunKey: string): CallFacts => ({
  rerunKey,
  reads: NO_FACTS.reads,
  writes: NO_FACTS.writes,
});

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
  for (const { op, fd } of command.redirects) {
    if ((op === '>' || op === '>>' || op === '>|') && (fd === undefined || fd === 1)) return true;
    if (op === '&>' || op === '&>>') return true;
  }
  return false;
}

/**
 * Walks the script pipeline by pipeline: the writes of every command (when `writes`), `cd`, and
 * the reads of each pipeline that prints, until one prints something else (`state.other`, set
 * from the start when reads are not wanted): from then on the call shows no files whatever
 * follows, and only the writes and the directory are followed.
 */
function walkScript(script: ShellScript, state: ShellState, writes: boolean): void {
  for (const pipeline of script.pipelines) {
    const first = pipeline[0] as SimpleCommand;
    const words = commandWords(first);
    const program = programOf(words);
    if (writes) {
      collectWrites(first, words, program, state);
      for (let index = 1; index < pipeline.length; index++) {
        const command = pipeline[index] as SimpleCommand;
        const stageWords = commandWords(command);
        collectWrites(command, stageWords, programOf(stageWords), state);
      }
    }
    if (pipeline.length === 1 && (program === 'cd' || program === 'pushd')) {
      changeDirectory(words, state);
      continue;
    }
    if (state.other || words.length === 0 || SETUP.has(program)) continue;
    if (stdoutRedirected(pipeline[pipeline.length - 1] as SimpleCommand)) continue;
    if (program === 'echo' || program === 'printf') continue;
    if (pipeline.length === 1 && quietProgram(program, words)) continue;
    const read = pipelineRead(pipeline, words, program, state);
    if (read) for (const range of read) state.reads.push(range);
    else state.other = true;
  }
}

function changeDirectory(words: readonly ShellWord[], state: ShellState): void {
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
function quietProgram(program: string, words: readonly ShellWord[]): boolean {
  if (QUIET.has(program)) return true;
  if (program === 'sed' || program === 'perl') return inPlace(words);
  if (program === 'git') return words[1]?.text === 'checkout' || words[1]?.text === 'restore';
  return program === 'apply_patch';
}
