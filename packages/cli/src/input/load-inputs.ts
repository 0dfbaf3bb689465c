/**
 * Turns the PATH arguments of `toolmask replay` into tasks, in order (a file may give several:
 * see load-session-file.ts). A directory contributes its `*.json` and `*.jsonl` files and
 * OpenCode's database (`opencode.db`, or `opencode-CHANNEL.db`), in its subfolders too unless
 * `recursive: false` (dot files and dot folders left out, symlinked folders not followed), sorted
 * by path. Among them, well-formed files of another kind (a settings file, a log) are `skipped`;
 * damaged ones are `rejected`, and the good ones still play. A file named on the command line that cannot be replayed is rejected
 * whatever the reason; the command decides what each list means for the exit code.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { InputError } from './input-error.js';
import type { LoadedTask } from './load-task-file.js';
import { loadSessionFile } from './load-session-file.js';

export interface RejectedInput {
  file: string;
  reason: string;
  /** Found by listing a directory (the other files still play) rather than named directly. */
  fromDirectory: boolean;
}

/** A file found in a directory that is not a session (the reason says what it is not). */
export interface SkippedInput {
  file: string;
  reason: string;
}

/** What a directory PATH held. */
export interface DirectoryInput {
  directory: string;
  /** Session files replayed from it. */
  sessions: number;
  /** Files skipped as not sessions. */
  skipped: number;
}

export interface LoadedInputs {
  tasks: LoadedTask[];
  rejected: RejectedInput[];
  skipped: SkippedInput[];
  directories: DirectoryInput[];
  /** Files of a directory left unread: last written before `modifiedSince` (`--since`). */
  older: number;
}

export interface LoadInputsOptions {
  /** Read subfolders of a directory too. @default true */
  recursive?: boolean;
  /**
   * Epoch ms: a file found in a directory and last written before it is not read at all (a
   * session's records are older than its file's last write), so `--since 30d` over years of
   * transcripts reads only the recent ones. A file named on its own is always read.
   */
  modifiedSince?: number;
}

/** Whether `file` was last written before `time` (a file that cannot be read is not: it is read and reported). */
async function modifiedBefore(file: string, time: number): Promise<boolean> {
  try {
    if ((await fs.stat(file)).mtimeMs >= time) return false;
  } catch {
    return false;
  }
  // A database in WAL mode (OpenCode's) is written in its log until a checkpoint.
  if (!file.endsWith('.db')) return true;
  return fs.stat(`${file}-wal`).then(
    (log) => log.mtimeMs < time,
    () => true,
  );
}

const SESSION_FILE = /\.jsonl?$|^opencode(-[\w.-]+)?\.db$/i;

async function listSessionFiles(directory: string, recursive: boolean): Promise<string[]> {
  const files: string[] = [];
  const walk = async (folder: string) => {
    for (const entry of await fs.readdir(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const entryPath = path.join(folder, entry.name);
      if (entry.isDirectory() && recursive) await walk(entryPath);
      else if (SESSION_FILE.test(entry.name) && (entry.isFile() || entry.isSymbolicLink())) {
        files.push(entryPath);
      }
    }
  };
  await walk(directory);
  return files.sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
}

export async function loadInputs(
  paths: readonly string[],
  options: LoadInputsOptions = {},
): Promise<LoadedInputs> {
  const recursive = options.recursive ?? true;
  const loaded: LoadedInputs = {
    tasks: [],
    rejected: [],
    skipped: [],
    directories: [],
    older: 0,
  };

  /** Loads one file; says whether it was a session. */
  const loadOne = async (file: string, fromDirectory: boolean): Promise<boolean> => {
    try {
      loaded.tasks.push(...(await loadSessionFile(file)));
      return true;
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      if (fromDirectory && error.kind === 'not-a-session') {
        loaded.skipped.push({ file: error.file, reason: error.reason });
      } else {
        loaded.rejected.push({ file: error.file, reason: error.reason, fromDirectory });
      }
      return false;
    }
  };

  for (const inputPath of paths) {
    let stats;
    try {
      stats = await fs.stat(inputPath);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === 'ENOENT' ? 'no such file or directory' : `cannot be read (${code})`;
      loaded.rejected.push({ file: inputPath, reason, fromDirectory: false });
      continue;
    }
    if (!stats.isDirectory()) {
      await loadOne(inputPath, false);
      continue;
    }
    const skippedBefore = loaded.skipped.length;
    const rejectedBefore = loaded.rejected.length;
    let sessions = 0;
    for (const file of await listSessionFiles(inputPath, recursive)) {
      if (
        options.modifiedSince !== undefined &&
        (await modifiedBefore(file, options.modifiedSince))
      ) {
        loaded.older++;
        continue;
      }
      if (await loadOne(file, true)) sessions++;
    }
    const skipped = loaded.skipped.length - skippedBefore;
    loaded.directories.push({ directory: inputPath, sessions, skipped });
    if (sessions === 0 && loaded.older === 0 && loaded.rejected.length === rejectedBefore) {
      loaded.rejected.push({
        file: inputPath,
        reason:
          `the directory has no session files (.json or .jsonl` +
          `${recursive ? ', subfolders included' : ', subfolders not read'})`,
        fromDirectory: false,
      });
    }
  }
  return loaded;
}
