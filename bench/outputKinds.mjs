/**
 * What kind of output a tool response is, for the per-kind measurement of issue 25 (section 3):
 * which preview kinds hold the lines agents quote later, before any content-aware preview is
 * built. Decided from the tool's name, the call's arguments (a shell command) and the output's
 * text, first rule that matches:
 *
 * - diff: `git diff` / `git show` / `diff` commands, or an output with a `diff --git` line or a
 *   `--- ` / `+++ ` pair followed by an `@@` hunk header (the `submit` tool's patch included);
 * - test or build run: a test runner or build tool as the command (pytest, runtests.py, bin/test,
 *   tox, unittest, nosetests, `manage.py test`, make, sphinx-build, pylint, flake8, mypy, tsc,
 *   npm/yarn test, go test, cargo, `setup.py`, pip install), or an output with a pytest summary
 *   line (`==== 3 passed ... ====`) or unittest's `Ran N tests`;
 * - search: grep, rg, ag, ack, find, `git grep` as the command, or any of them in a later stage of
 *   a pipeline (`cat f | grep x`);
 * - source read: the `read_file` tool, or cat, sed (not `sed -i`), nl, head, tail, less, more, awk
 *   reading a file (not `cat <<EOF > f`, which writes one);
 * - log: any other program run (python, python3, node, ruby, bash, sh, a `./script`): what a
 *   program printed, tracebacks included;
 * - other: listings (ls, `list_directory`), edit results (write_file, replace, `sed -i`, heredoc
 *   writes), file operations (rm, mkdir, mv, cp), git status and the like.
 *
 * The command's main stage is found by splitting it on `&&`, `||`, `;` and new lines, dropping
 * `VAR=value` prefixes and `time` / `timeout N`, and skipping stages that only set up (cd,
 * export, source, set, pushd, and echo when another stage follows).
 */
import { responseText } from '../packages/cli/dist/replay/metrics/quoted-lines.js';
import { maskedAtOf, quoteUses, readBacksOf } from './readBacks.mjs';

export const KINDS = ['source read', 'diff', 'search', 'test or build run', 'log', 'other'];

const SETUP = new Set(['cd', 'export', 'source', 'set', 'pushd', 'popd', 'true', ':']);
const READERS = new Set(['cat', 'sed', 'nl', 'head', 'tail', 'less', 'more', 'awk']);
const SEARCHERS = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'find']);
const PROGRAMS = /^(python[\d.]*|node|ruby|perl|bash|sh|\.\/.+|php|java)$/;
const TEST_OR_BUILD =
  /(^|[\s/])(pytest|py\.test|runtests\.py|bin\/test|tox|nosetests|sphinx-build|pylint|flake8|mypy|tsc|make|cargo|mvn|gradle)(\s|$)|-m\s+(pytest|unittest|tox|mypy|pylint|flake8)\b|manage\.py\s+test\b|setup\.py\b|\b(npm|yarn|pnpm)\s+(run\s+)?(test|build)\b|\bgo\s+(test|build)\b|\bpip3?\s+install\b/;
const TEST_SUMMARY = /^=+ .*\b(passed|failed|error|errors)\b.* =+$|^Ran \d+ tests? in /m;
const DIFF_TEXT = /^diff --git |^--- .*\n\+\+\+ .*\n@@ /m;

/** The words of a command stage with `VAR=value`, `time` and `timeout N` dropped. */
function wordsOf(stage) {
  const words = stage.trim().split(/\s+/).filter(Boolean);
  while (words.length > 0) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) words.shift();
    else if (words[0] === 'time') words.shift();
    else if (words[0] === 'timeout') words.splice(0, 2);
    else break;
  }
  return words;
}

const programName = (word) => (word ?? '').split('/').pop();

const FILE_OPERATIONS = new Set(['rm', 'mkdir', 'mv', 'cp', 'touch', 'chmod', 'ln']);

/** A stage that writes a file and prints nothing: a heredoc or redirect into a file, `sed -i`. */
function writesOnly(stage) {
  const first = stage.split(/\|(?!\|)/)[0];
  if (FILE_OPERATIONS.has(programName(wordsOf(first)[0]))) return true;
  return /(^|[^2&-])>>?\s*(?!\/dev\/null)[^&\s]/.test(first) || /^sed\s.*\s-i\b/.test(first.trim());
}

/** The stage that does the work, as `{ stage, pipeline, program }`, or undefined. */
export function mainStage(command) {
  // A heredoc's body is data, not commands: keep only the line that starts it.
  const withoutHeredocs = command.replace(
    /(<<-?\s*['"]?(\w+)['"]?[^\n]*)\n[\s\S]*?\n\s*\2(\n|$)/g,
    '$1\n',
  );
  const stages = withoutHeredocs
    .split(/&&|\|\||;|\n/)
    .map((stage) => stage.trim())
    .filter(Boolean);
  const working = stages.filter((stage) => !SETUP.has(programName(wordsOf(stage)[0])));
  const prints = working.filter(
    (stage) => !writesOnly(stage) && programName(wordsOf(stage)[0]) !== 'echo',
  );
  const chosen = prints[0] ?? working[0] ?? '';
  const pipeline = chosen.split(/\|(?!\|)/).map((part) => part.trim());
  return { stage: chosen, pipeline, program: programName(wordsOf(pipeline[0] ?? '')[0]) };
}

/** The kind of one tool output: one of `KINDS`. */
export function classifyOutput(toolName, args, text) {
  const command = typeof args?.command === 'string' ? args.command : undefined;
  if (command === undefined) {
    if (DIFF_TEXT.test(text)) return 'diff';
    if (toolName === 'read_file' || toolName === 'read_many_files') return 'source read';
    if (/grep|search/.test(toolName)) return 'search';
    return 'other';
  }
  const { stage, pipeline, program } = mainStage(command);
  const words = wordsOf(pipeline[0] ?? '');
  if (program === 'diff' || (program === 'git' && /^(diff|show)$/.test(words[1] ?? ''))) {
    return 'diff';
  }
  if (DIFF_TEXT.test(text)) return 'diff';
  if (TEST_OR_BUILD.test(stage) || TEST_SUMMARY.test(text)) return 'test or build run';
  if (program === 'git' && words[1] === 'grep') return 'search';
  if (SEARCHERS.has(program)) return 'search';
  const laterStages = pipeline.slice(1).map((part) => programName(wordsOf(part)[0]));
  if (laterStages.some((name) => SEARCHERS.has(name))) return 'search';
  if (READERS.has(program)) {
    return writesOnly(pipeline[0]) ? 'other' : 'source read';
  }
  if (PROGRAMS.test(program)) return 'log';
  return 'other';
}

/** The function call of each response id in a flattened session (the latest call of that id). */
export function callsById(flat) {
  const calls = new Map();
  for (const { content } of flat) {
    if (content.role !== 'model') continue;
    for (const part of content.parts ?? []) {
      if (part.functionCall?.id !== undefined) calls.set(part.functionCall.id, part.functionCall);
    }
  }
  return calls;
}

/**
 * Information kept per kind of output, from early-masking moments (every output masked on its
 * own): `{ [kind]: { kept: InformationKept, readBacks: counts } }` over `sessions`, for one
 * strategy. `momentsOf(session)` gives the strategy's moments of a session.
 */
export async function keptPerKind(cli, core, sessions, momentsOf, quotesOf) {
  const perKind = Object.fromEntries(
    KINDS.map((kind) => [
      kind,
      {
        kept: { ...cli.NOTHING_KEPT },
        readBacks: { hidden: 0, readBacks: 0, close: 0, elsewhere: 0, tokens: 0 },
      },
    ]),
  );
  for (const session of sessions) {
    const moments = await momentsOf(session);
    const flat = cli.flattenSession(session);
    const calls = callsById(flat);
    const byKind = new Map(KINDS.map((kind) => [kind, []]));
    for (const moment of moments) {
      const response = moment.original.functionResponse;
      const kind = classifyOutput(
        response.name,
        calls.get(response.id)?.args,
        responseText(moment.original),
      );
      byKind.get(kind).push(moment);
    }
    const quotes = quotesOf(session);
    const maskedAt = maskedAtOf(moments);
    for (const [kind, ofKind] of byKind) {
      if (ofKind.length === 0) continue;
      const entry = perKind[kind];
      entry.kept = cli.addInformationKept(entry.kept, cli.informationKept(session, ofKind, quotes));
      const { readBacks, counts } = readBacksOf(
        core,
        quoteUses(cli, session, ofKind, quotes, maskedAt),
      );
      for (const key of ['hidden', 'readBacks', 'close', 'elsewhere']) {
        entry.readBacks[key] += counts[key];
      }
      entry.readBacks.tokens += readBacks.reduce((sum, readBack) => sum + readBack.tokens, 0);
    }
  }
  return perKind;
}
