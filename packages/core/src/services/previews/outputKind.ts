/**
 * What kind of output a tool response is, decided from the tool's name, the call's arguments (a
 * shell command) and the output's text, first rule that matches:
 *
 * - `diff`: `git diff` / `git show` / `diff` commands, or an output with a `diff --git` line or a
 *   `--- ` / `+++ ` pair followed by an `@@` hunk header (a `submit` tool's patch included);
 * - `test or build run`: a test runner or build tool as the command (pytest, runtests.py,
 *   bin/test, tox, unittest, nosetests, `manage.py test`, make, sphinx-build, pylint, flake8,
 *   mypy, tsc, npm/yarn test, go test, cargo, `setup.py install` and the like, pip install), or an
 *   output with a pytest summary line (`==== 3 passed ... ====`) or unittest's `Ran N tests`;
 * - `search`: grep, rg, ag, ack, find, `git grep` as the command, or any of them in a later stage
 *   of a pipeline (`cat f | grep x`); a tool whose name says grep or search;
 * - `source read`: a file-reading tool (`read_file`, `read_many_files`, `Read`), or cat, sed (not
 *   `sed -i`), nl, head, tail, less, more, awk reading a file (not `cat <<EOF > f`, which writes);
 * - `log`: any other program run (python, node, ruby, bash, sh, a `./script`): what a program
 *   printed, tracebacks included;
 * - `other`: listings (ls, `list_directory`), edit results (write_file, replace, `sed -i`, heredoc
 *   writes), file operations (rm, mkdir, mv, cp), git status and the like.
 *
 * The command's main stage is found by splitting it on `&&`, `||`, `;` and new lines, dropping
 * `VAR=value` prefixes and `time` / `timeout N`, and skipping stages that only set up (cd,
 * export, source, set, pushd, and echo when another stage follows) or only write a file.
 *
 * Ported from the bench's classifier of section 3.7, with three of its slips fixed: `cat
 * setup.py` is a source read (only `setup.py install`, `build`, ... run a build), `sed -i` right
 * after `sed` is a write, and `./script` is a program run (its directory was dropped before the
 * test).
 *
 * The same rules classify outputs in the bench's per-kind tables (bench/outputKinds.mjs imports
 * this module), so a table's kind is the preview's kind. Bounded: the text's patterns are looked
 * for in its first and last `TEXT_SAMPLE_UNITS` code units only.
 */

export const OUTPUT_KINDS = [
  'source read',
  'diff',
  'search',
  'test or build run',
  'log',
  'other',
] as const;

export type OutputKind = (typeof OUTPUT_KINDS)[number];

/** Code units of an output's head, and of its tail, that its text patterns are looked for in. */
export const TEXT_SAMPLE_UNITS = 64 * 1024;

/**
 * Tools whose output is a file's content, by name in lower case: gemini-cli's and qwen-code's
 * `read_file` and `read_many_files`, Claude Code's `Read`, OpenCode's `read`.
 */
const FILE_READ_TOOLS: ReadonlySet<string> = new Set(['read_file', 'read_many_files', 'read']);

const SETUP = new Set(['cd', 'export', 'source', 'set', 'pushd', 'popd', 'true', ':']);
const READERS = new Set(['cat', 'sed', 'nl', 'head', 'tail', 'less', 'more', 'awk']);
const SEARCHERS = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'find']);
const FILE_OPERATIONS = new Set(['rm', 'mkdir', 'mv', 'cp', 'touch', 'chmod', 'ln']);
const PROGRAMS = /^(python[\d.]*|node|ruby|perl|bash|sh|php|java)$/;
const TEST_OR_BUILD =
  /(^|[\s/])(pytest|py\.test|runtests\.py|bin\/test|tox|nosetests|sphinx-build|pylint|flake8|mypy|tsc|make|cargo|mvn|gradle)(\s|$)|-m\s+(pytest|unittest|tox|mypy|pylint|flake8)\b|manage\.py\s+test\b|setup\.py\s+(?:install|build|develop|test|sdist|bdist\w*|egg_info)\b|\b(npm|yarn|pnpm)\s+(run\s+)?(test|build)\b|\bgo\s+(test|build)\b|\bpip3?\s+install\b/;
const TEST_SUMMARY = /^=+ .*\b(passed|failed|error|errors)\b.* =+$|^Ran \d+ tests? in /m;
const DIFF_TEXT = /^diff --git |^--- .*\n\+\+\+ .*\n@@ /m;
const HEREDOC = /(<<-?\s*['"]?(\w+)['"]?[^\n]*)\n[\s\S]*?\n\s*\2(\n|$)/g;

/** The words of a command stage with `VAR=value`, `time` and `timeout N` dropped. */
function wordsOf(stage: string): string[] {
  const words = stage.trim().split(/\s+/).filter(Boolean);
  while (words.length > 0) {
    const first = words[0] as string;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first) || first === 'time') words.shift();
    else if (first === 'timeout') words.splice(0, 2);
    else break;
  }
  return words;
}

/** `wordsOf(stage)[0]`, without splitting the rest of the stage. */
function firstWordOf(stage: string): string | undefined {
  const words = /\S+/g;
  for (let match = words.exec(stage); match !== null; match = words.exec(stage)) {
    const word = match[0];
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || word === 'time') continue;
    if (word !== 'timeout') return word;
    // `timeout N`: its duration is not the program either.
    if (words.exec(stage) === null) return undefined;
  }
  return undefined;
}

const programName = (word: string | undefined) =>
  word === undefined ? '' : word.slice(word.lastIndexOf('/') + 1);

/** A stage that writes a file and prints nothing: a heredoc or redirect into a file, `sed -i`. */
function writesOnly(stage: string): boolean {
  const first = stage.split(/\|(?!\|)/)[0] ?? '';
  if (FILE_OPERATIONS.has(programName(firstWordOf(first)))) return true;
  return (
    /(^|[^2&-])>>?\s*(?!\/dev\/null)[^&\s]/.test(first) || /^sed\s(?:.*\s)?-i/.test(first.trim())
  );
}

export interface MainStage {
  /** The stage, as written. */
  stage: string;
  /** Its pipeline's parts. */
  pipeline: string[];
  /** The program of its first part, without a directory. */
  program: string;
  /** The program of its first part as written (`./run.sh`). */
  command: string;
}

/** The stage of a shell command that does the work (see the module comment). */
export function mainStage(command: string): MainStage {
  // A heredoc's body is data, not commands: keep only the line that starts it.
  const withoutHeredocs = command.includes('<<') ? command.replace(HEREDOC, '$1\n') : command;
  const stages = withoutHeredocs
    .split(/&&|\|\||;|\n/)
    .map((stage) => stage.trim())
    .filter(Boolean);
  // The first stage that does work and prints, else the first that does work: each stage's
  // program is read once, and the stages after the chosen one not at all.
  let working: string | undefined;
  let chosen: string | undefined;
  for (const stage of stages) {
    const program = programName(firstWordOf(stage));
    if (SETUP.has(program)) continue;
    working ??= stage;
    if (program !== 'echo' && !writesOnly(stage)) {
      chosen = stage;
      break;
    }
  }
  chosen ??= working ?? '';
  const pipeline = chosen.split(/\|(?!\|)/).map((part) => part.trim());
  const first = firstWordOf(pipeline[0] ?? '') ?? '';
  return { stage: chosen, pipeline, program: programName(first), command: first };
}

/** The text's head and tail, where its patterns are looked for (the whole of a short text). */
function sampleOf(text: string): string {
  if (text.length <= 2 * TEXT_SAMPLE_UNITS) return text;
  return `${text.slice(0, TEXT_SAMPLE_UNITS)}\n${text.slice(text.length - TEXT_SAMPLE_UNITS)}`;
}

/**
 * Whether a line of `text` (after any line terminator an `m` expression's `^` follows) starts
 * with `char`.
 */
function someLineStartsWith(text: string, char: string): boolean {
  return (
    text.startsWith(char) ||
    text.includes(`\n${char}`) ||
    text.includes(`\r${char}`) ||
    text.includes(`\u2028${char}`) ||
    text.includes(`\u2029${char}`)
  );
}

/**
 * `DIFF_TEXT.test(sample)`, the expression tried only on a text holding what any match holds
 * (`diff --git ` or a new line before `+++ `): most outputs are read by one native search, not by
 * the expression at every line (issue 30).
 */
const hasDiffText = (sample: string) =>
  (sample.includes('diff --git ') || sample.includes('\n+++ ')) && DIFF_TEXT.test(sample);

/** `TEST_SUMMARY.test(sample)`, tried only when a line starts with `=` or the text holds `Ran `. */
const hasTestSummary = (sample: string) =>
  (sample.includes('Ran ') || someLineStartsWith(sample, '=')) && TEST_SUMMARY.test(sample);

/**
 * The kind of one tool output.
 * @param toolName the function name of the call and its response
 * @param args the call's arguments, when the call is known
 * @param text the output's text (the `output` string, or the response as JSON)
 */
export function classifyOutput(toolName: string, args: unknown, text: string): OutputKind {
  const record =
    args !== null && typeof args === 'object' ? (args as Record<string, unknown>) : undefined;
  // gemini-cli, qwen-code, Claude Code and OpenCode call it `command`; Codex's exec_command `cmd`.
  const given = record?.['command'] ?? record?.['cmd'];
  const command = typeof given === 'string' ? given : undefined;
  const sample = sampleOf(text);
  if (command === undefined) {
    if (hasDiffText(sample)) return 'diff';
    if (FILE_READ_TOOLS.has(toolName.toLowerCase())) return 'source read';
    if (/grep|search/i.test(toolName)) return 'search';
    return 'other';
  }
  const { stage, pipeline, program, command: written } = mainStage(command);
  // Only git's subcommand is read of the words after the program.
  const subcommand = program === 'git' ? (wordsOf(pipeline[0] ?? '')[1] ?? '') : '';
  if (program === 'diff' || (program === 'git' && /^(diff|show)$/.test(subcommand))) {
    return 'diff';
  }
  if (hasDiffText(sample)) return 'diff';
  if (TEST_OR_BUILD.test(stage) || hasTestSummary(sample)) return 'test or build run';
  if (program === 'git' && subcommand === 'grep') return 'search';
  if (SEARCHERS.has(program)) return 'search';
  const laterStages = pipeline.slice(1).map((part) => programName(firstWordOf(part)));
  if (laterStages.some((name) => SEARCHERS.has(name))) return 'search';
  if (READERS.has(program)) return writesOnly(pipeline[0] ?? '') ? 'other' : 'source read';
  if (PROGRAMS.test(program) || /^\.\/./.test(written)) return 'log';
  return 'other';
}
