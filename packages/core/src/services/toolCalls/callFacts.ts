/**
 * What one tool call shows and changes, for the superseded outputs (superseded/): the files (and
 * line ranges) its output shows, the files it writes, and the key that a rerun of the same call
 * repeats. Read from the call's name and arguments as each host writes them:
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
 * In a shell command (shellScript.ts, shellCallFacts.ts), each pipeline is read on its own,
 * `cd DIR` moving the directory later relative paths are taken from:
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
 *
 * One file per part of the job: fileRanges.ts (the shapes, paths as compared), rerunKey.ts,
 * fileToolFacts.ts, shellCallFacts.ts with shellWords.ts, shellReads.ts (sedPrint.ts,
 * grepFiles.ts) and shellWrites.ts, patchFiles.ts.
 */
import { record } from './callArguments.js';
import { ALL_FACTS, NO_FACTS, type CallFacts } from './fileRanges.js';
import { fileToolFacts } from './fileToolFacts.js';
import { rerunKeyOf } from './rerunKey.js';
import { shellCallFacts } from './shellCallFacts.js';

const SHELL_TOOLS = new Set([
  'run_shell_command',
  'Bash',
  'bash',
  'shell',
  'shell_command',
  'exec_command',
  'local_shell',
]);
/** Arguments that describe a call without changing what it does. */
const DESCRIPTIVE_ARGS = new Set(['description']);

/**
 * The facts of one call (see the module comment), those `wanted` only (the others empty). Never
 * throws on model-chosen arguments.
 */
export function callFacts(name: string, rawArgs: unknown, wanted = ALL_FACTS): CallFacts {
  const args = record(rawArgs);
  if (SHELL_TOOLS.has(name)) return shellCallFacts(name, args, wanted);
  const keyed: Record<string, unknown> = {};
  for (const key of Object.keys(args)) if (!DESCRIPTIVE_ARGS.has(key)) keyed[key] = args[key];
  const rerunKey = Object.keys(keyed).length > 0 ? rerunKeyOf(name, keyed) : '';
  const { reads, writes } = fileToolFacts(name, args);
  return {
    rerunKey,
    reads: wanted.reads ? reads : NO_FACTS.reads,
    writes: wanted.writes ? writes : NO_FACTS.writes,
  };
}
