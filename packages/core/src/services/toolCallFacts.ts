/**
 * What one tool call shows and changes, for supersededOutputs.ts: the files (and line ranges) its
 * output shows, the files it writes, and the key that a rerun of the same call repeats. Read from
 * the call's name and arguments as each host writes them:
 *
 * - gemini-cli and qwen: `read_file` {file_path or absolute_path; start_line/end_line, or offset
 *   (0-based) and limit}, `read_many_files` {paths or include}; `write_file`, `replace`, `edit`
 *   {file_path}; `run_shell_command` {command, dir_path or directory}.
 * - Claude Code: `Read` {file_path, offset (1-based), limit}; `Edit`, `MultiEdit`, `Write`
 *   {file_path}, `NotebookEdit` {notebook_path}; `Bash` {command}.
 * - Codex: the shell for reads (`shell` {command: string[], workdir}, `shell_command`,
 *   `exec_command` {cmd}, `local_shell` {command, working_directory}, a `shell_call`'s
 *   {commands}); `apply_patch` {input} or {operation: {path}}, or `apply_patch` in the shell.
 * - OpenCode: `read` {filePath, offset (0-based), limit}; `edit`, `write` {filePath},
 *   `apply_patch` {patchText}; `bash` {command}.
 * - Anthropic's editor tool: `str_replace_based_edit_tool` / `str_replace_editor` {command: view,
 *   path, view_range} reads; its other commands write.
 *
 * In a shell command (shellScript.ts), each pipeline is read on its own, `cd DIR` moving the
 * directory later relative paths are taken from:
 * - reads: `cat FILE…`, `nl FILE`, `less`/`more FILE` (whole files); `head -n N FILE`, `tail -n +K
 *   FILE`, `sed -n 'A,Bp' FILE` (line ranges); `tail -n N FILE`, `sed -n '/re/p' FILE`, `grep …
 *   FILE` on one file (a part of the file, covered only by a whole read). Later stages of a
 *   pipeline narrow the range (`nl -ba f | sed -n '10,80p'`, `| head`, `| tail`, `| grep`); any
 *   other stage makes it no read. A command shows files only when every pipeline that prints is
 *   such a read (set-up such as `cd` and `export`, writes and `echo` print nothing that counts);
 * - writes: redirections into a file (`> f`, `>> f`, `cat <<'EOF' > f`), `tee f`, `sed -i … f`,
 *   `perl -i … f`, `cp … DEST`, `mv`, `rm`, `git checkout [--] PATH`, `git restore PATH`,
 *   `apply_patch` with its patch. What a program writes on its own (`python - <<'EOF'`,
 *   `patch`, `git stash`) is unknown and not guessed.
 *
 * Paths are compared as written, normalized (`./a/../b` is `b`), relative ones joined to the
 * directory the call names (`dir_path`, `workdir`) or moved to by `cd`; a relative path is never
 * matched to an absolute one. Anything not understood reads and writes nothing: a missed read or
 * write only leaves an output unmasked, a wrong one would hide what is still current.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import {
  parseShellScript,
  type ShellScript,
  type ShellWord,
  type SimpleCommand,
} from './shellScript.js';

/** Lines of one file an output shows: `first`..`last`, 1-based and inclusive. */
export interface FileRange {
  path: string;
  first: number;
  last: number;
  /** Some lines of that range (a search, the last N lines): covered only by a whole-file read. */
  partial: boolean;
}

export interface CallFacts {
  /**
   * The call's tool and arguments, canonical (a rerun has the same key); hashed when long. Empty
   * for a call without arguments (or a shell call without a command): nothing to compare.
   */
  rerunKey: string;
  /** What the output shows when it shows files and nothing else; empty otherwise. */
  reads: readonly FileRange[];
  /** Files the call writes, edits, creates or removes, when it succeeds. */
  writes: readonly string[];
}

const WHOLE = { first: 1, last: Infinity, partial: false } as const;
const NO_FACTS = { reads: [], writes: [] } as const;

/** Keys longer than this become their SHA-256 (a 1 MB `write_file` stays one short key). */
const MAX_PLAIN_KEY_CHARS = 512;
/** Deepest argument object read for the key; deeper parts are keyed by their JSON text. */
const MAX_KEY_DEPTH = 16;
/** Longest patch text scanned for its file names (a linear scan of its lines). */
const MAX_PATCH_CHARS = 1 << 20;
const MAX_PATH_CHARS = 4_096;

const SHELL_TOOLS = new Set([
  'run_shell_command',
  'Bash',
  'bash',
  'shell',
  'shell_command',
  'exec_command',
  'local_shell',
]);
const WRITE_TOOLS = new Set([
  'write_file',
  'replace',
  'edit',
  'Edit',
  'MultiEdit',
  'Write',
  'write',
  'NotebookEdit',
  'create_file',
]);
const EDITOR_TOOLS = new Set(['str_replace_based_edit_tool', 'str_replace_editor']);
const PATCH_TOOLS = new Set(['apply_patch']);
/** Arguments that describe a call without changing what it does. */
const DESCRIPTIVE_ARGS = new Set(['description']);

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const stringArg = (args: Record<string, unknown>, ...names: string[]): string | undefined => {
  for (const name of names) {
    const value = args[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
};
const integerArg = (args: Record<string, unknown>, name: string): number | undefined => {
  const value = args[name];
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
};

/** Sorted-key JSON of a value, depth-limited (model-chosen arguments). */
function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= MAX_KEY_DEPTH) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  }
  const fields = value as Record<string, unknown>;
  const entries = Object.keys(fields)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(fields[key], depth + 1)}`);
  return `{${entries.join(',')}}`;
}

function keyOf(name: string, args: unknown): string {
  const key = `${name}\u0000${canonicalJson(args)}`;
  return key.length <= MAX_PLAIN_KEY_CHARS
    ? key
    : `#${createHash('sha256').update(key).digest('hex')}`;
}

/** A path as compared: joined to `directory` when relative, normalized; undefined if unusable. */
export function normalizePath(raw: string, directory?: string): string | undefined {
  if (raw.length === 0 || raw.length > MAX_PATH_CHARS || raw.includes('\u0000')) return undefined;
  const joined = raw.startsWith('/') || directory === undefined ? raw : `${directory}/${raw}`;
  const normalized = path.posix.normalize(joined);
  if (normalized === '.' || normalized === '/' || normalized.startsWith('../')) return undefined;
  if (normalized === '..') return undefined;
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}

/** The facts of one call (see the module comment). Never throws on model-chosen arguments. */
export function callFacts(name: string, rawArgs: unknown): CallFacts {
  const args = record(rawArgs);
  if (SHELL_TOOLS.has(name)) return shellCallFacts(name, args);
  const keyed: Record<string, unknown> = {};
  for (const key of Object.keys(args)) if (!DESCRIPTIVE_ARGS.has(key)) keyed[key] = args[key];
  const rerunKey = Object.keys(keyed).length > 0 ? keyOf(name, keyed) : '';
  return { rerunKey, ...fileToolFacts(name, args) };
}

function fileToolFacts(name: string, args: Record<string, unknown>): Omit<CallFacts, 'rerunKey'> {
  const filePath = stringArg(
    args,
    'file_path',
    'absolute_path',
    'filePath',
    'path',
    'notebook_path',
  );
  const file = filePath === undefined ? undefined : normalizePath(filePath);
  if (name === 'read_file' || name === 'Read' || name === 'read') {
    if (!file) return NO_FACTS;
    return { reads: [{ path: file, ...readRange(name, args) }], writes: [] };
  }
  if (name === 'read_many_files') {
    const listed = Array.isArray(args['paths']) ? args['paths'] : args['include'];
    if (!Array.isArray(listed) || listed.length === 0) return NO_FACTS;
    const reads: FileRange[] = [];
    for (const item of listed) {
      // A glob names files the output lists, not a file: no read.
      if (typeof item !== 'string' || /[*?[{]/.test(item)) return NO_FACTS;
      const normalized = normalizePath(item);
      if (!normalized) return NO_FACTS;
      reads.push({ path: normalized, ...WHOLE });
    }
    return { reads, writes: [] };
  }
  if (WRITE_TOOLS.has(name)) return { reads: [], writes: file ? [file] : [] };
  if (EDITOR_TOOLS.has(name)) {
    if (!file) return NO_FACTS;
    if (args['command'] !== 'view') return { reads: [], writes: [file] };
    const range = args['view_range'];
    if (!Array.isArray(range) || range.length !== 2) {
      return { reads: [{ path: file, ...WHOLE }], writes: [] };
    }
    const [first, last] = range as unknown[];
    if (typeof first !== 'number' || typeof last !== 'number' || first < 1) return NO_FACTS;
    const end = last === -1 ? Infinity : last;
    if (end < first) return NO_FACTS;
    return { reads: [{ path: file, first, last: end, partial: false }], writes: [] };
  }
  if (PATCH_TOOLS.has(name)) {
    // A Responses `apply_patch_call` names its file in `operation.path`.
    const operation = record(args['operation']);
    const operationPath = typeof operation['path'] === 'string' ? operation['path'] : undefined;
    const target = operationPath === undefined ? undefined : normalizePath(operationPath);
    if (target) return { reads: [], writes: [target] };
    const patch = stringArg(args, 'input', 'patch', 'patchText');
    return { reads: [], writes: patch === undefined ? [] : patchFiles(patch, undefined) };
  }
  return NO_FACTS;
}

/** The lines a file tool's call asks for (whole when it names none). */
function readRange(name: string, args: Record<string, unknown>): Omit<FileRange, 'path'> {
  const startLine = integerArg(args, 'start_line');
  const endLine = integerArg(args, 'end_line');
  if (startLine !== undefined || endLine !== undefined) {
    const first = Math.max(1, startLine ?? 1);
    return { first, last: Math.max(first, endLine ?? Infinity), partial: false };
  }
  const offset = integerArg(args, 'offset');
  const limit = integerArg(args, 'limit');
  if (offset === undefined && limit === undefined) return WHOLE;
  // Claude Code's Read counts lines from 1; gemini-cli's (older), qwen's and OpenCode's from 0.
  const first = name === 'Read' ? Math.max(1, offset ?? 1) : (offset ?? 0) + 1;
  return { first, last: limit === undefined ? Infinity : first + limit - 1, partial: false };
}

/** Files a Codex/OpenCode patch adds, updates, deletes or moves to. */
function patchFiles(patch: string, directory: string | undefined): string[] {
  if (patch.length > MAX_PATCH_CHARS) return [];
  const files: string[] = [];
  const markers = ['*** Add File: ', '*** Update File: ', '*** Delete File: ', '*** Move to: '];
  for (let start = 0; start < patch.length;) {
    const end = patch.indexOf('\n', start);
    const lineEnd = end < 0 ? patch.length : end;
    if (patch.startsWith('*** ', start)) {
      const marker = markers.find((candidate) => patch.startsWith(candidate, start));
      if (marker) {
        const file = normalizePath(patch.slice(start + marker.length, lineEnd).trim(), directory);
        if (file) files.push(file);
      }
    }
    start = lineEnd + 1;
  }
  return files;
}

// --- shell commands -----------------------------------------------------------------------------

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

function shellCallFacts(name: string, args: Record<string, unknown>): CallFacts {
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
  const rerunKey = keyOf(name, { command, directory: rawDirectory ?? null });
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

const basename = (word: string) => word.slice(word.lastIndexOf('/') + 1);

/** A command's words without `VAR=value`, `time`, `timeout [opts] N`, `env`, `nohup`, `nice`. */
function commandWords(command: SimpleCommand): ShellWord[] {
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

interface ShellState {
  /** Where relative paths start; undefined: as given; null: unknown (a `cd` not understood). */
  directory: string | undefined | null;
  reads: FileRange[];
  writes: string[];
  /** A pipeline printed something other than a file read. */
  other: boolean;
}

function resolve(word: ShellWord | undefined, state: ShellState): string | undefined {
  if (!word || word.dynamic || word.text.startsWith('-')) return undefined;
  if (state.directory === null && !word.text.startsWith('/')) return undefined;
  return normalizePath(word.text, state.directory ?? undefined);
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

/** `sed -i`, `perl -pi`: an in-place edit. */
function inPlace(words: ShellWord[]): boolean {
  return words.some(
    (word, index) =>
      index > 0 &&
      !word.dynamic &&
      (/^-[A-Za-z]*i/.test(word.text) || word.text.startsWith('--in-place')),
  );
}

/** Non-option words after the program (`--` ends the options). */
function operands(words: ShellWord[], takesValue: (option: string) => boolean = () => false) {
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

function addWrite(word: ShellWord | undefined, state: ShellState): void {
  const file = resolve(word, state);
  if (file && !file.startsWith('/dev/')) state.writes.push(file);
}

function collectWrites(command: SimpleCommand, state: ShellState): void {
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

// --- reads in a pipeline ------------------------------------------------------------------------

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
function pipelineRead(pipeline: SimpleCommand[], state: ShellState): FileRange[] | undefined {
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

/** Stream lines `part.first..part.last` of what `range` shows. */
function within(range: FileRange, part: Omit<FileRange, 'path'>): FileRange {
  if (range.partial || part.partial) return { ...range, partial: true };
  const first = range.first + Math.max(1, part.first) - 1;
  const last = Math.min(range.last, range.first + part.last - 1);
  return { ...range, first, last: Math.max(first, last) };
}

/**
 * `sed -n SCRIPT [FILE]` whose script only prints addresses (`10,80p`, `5p`, `/re/,/re/p`,
 * `1,$p`, several joined by `;`): the range (partial unless one numeric address pair), and the
 * files. Anything else (`s///`, `w`, no `-n`, `-i`) is not a read.
 */
function sedPrint(
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

/**
 * The files of a `grep` that shows matching lines of them: undefined when it shows something else
 * (`-l`, `-L`, `-c`, `-q`) or searches folders (`-r`, `-R`).
 */
/** grep's long options that make it show something other than matching lines of one file. */
const GREP_REFUSED_LONG = new Set([
  'recursive',
  'dereference-recursive',
  'files-with-matches',
  'files-without-match',
  'count',
  'quiet',
  'silent',
  'null',
]);

function grepFiles(words: ShellWord[]): ShellWord[] | undefined {
  const valued = new Set(['e', 'f', 'm', 'A', 'B', 'C', 'd', 'D']);
  const refused = new Set(['r', 'R', 'l', 'L', 'c', 'q', 'Z']);
  let pattern = false;
  const rest: ShellWord[] = [];
  let options = true;
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as ShellWord;
    const text = word.text;
    if (options && text === '--') {
      options = false;
    } else if (options && text.startsWith('--')) {
      const name = text.slice(2).split('=')[0] as string;
      if (GREP_REFUSED_LONG.has(name)) return undefined;
      if (name === 'regexp' || name === 'file') pattern = true;
      if (
        !text.includes('=') &&
        /^(regexp|file|max-count|after-context|before-context|context)$/.test(name)
      ) {
        index++;
      }
    } else if (options && text.startsWith('-') && text.length > 1) {
      for (let at = 1; at < text.length; at++) {
        const flag = text[at] as string;
        if (refused.has(flag)) return undefined;
        if (valued.has(flag)) {
          if (flag === 'e' || flag === 'f') pattern = true;
          if (at === text.length - 1) index++;
          break;
        }
      }
    } else {
      rest.push(word);
    }
  }
  if (!pattern) rest.shift();
  return rest;
}
