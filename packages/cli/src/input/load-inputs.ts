/**
 * Turns the PATH arguments of `toolmask replay` into tasks, in order. A directory contributes its
 * `*.json` and `*.jsonl` files (not subfolders), sorted by name; its bad files are collected
 * in `rejected` so the good ones still play. A bad file named on the command line is rejected too;
 * the command decides what that means for the exit code.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { InputError } from './input-error.js';
import { loadTaskFile, type LoadedTask } from './load-task-file.js';

export interface RejectedInput {
  file: string;
  reason: string;
  /** Found by listing a directory (the other files still play) rather than named directly. */
  fromDirectory: boolean;
}

export interface LoadedInputs {
  tasks: LoadedTask[];
  rejected: RejectedInput[];
}

const SESSION_FILE = /\.jsonl?$/i;

async function listSessionFiles(directory: string): Promise<string[]> {
  const entries = await fs.readdir(directory, { withFileTypes: true });
  return entries
    .filter(
      (entry) => entry.isFile() && !entry.name.startsWith('.') && SESSION_FILE.test(entry.name),
    )
    .map((entry) => entry.name)
    .sort((left, right) => (left < right ? -1 : left > right ? 1 : 0))
    .map((name) => path.join(directory, name));
}

export async function loadInputs(paths: readonly string[]): Promise<LoadedInputs> {
  const tasks: LoadedTask[] = [];
  const rejected: RejectedInput[] = [];

  const loadOne = async (file: string, fromDirectory: boolean) => {
    try {
      tasks.push(await loadTaskFile(file));
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      rejected.push({ file: error.file, reason: error.reason, fromDirectory });
    }
  };

  for (const inputPath of paths) {
    let stats;
    try {
      stats = await fs.stat(inputPath);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === 'ENOENT' ? 'no such file or directory' : `cannot be read (${code})`;
      rejected.push({ file: inputPath, reason, fromDirectory: false });
      continue;
    }
    if (stats.isDirectory()) {
      const files = await listSessionFiles(inputPath);
      if (files.length === 0) {
        rejected.push({
          file: inputPath,
          reason: 'the directory has no .json or .jsonl files',
          fromDirectory: false,
        });
      }
      for (const file of files) await loadOne(file, true);
    } else {
      await loadOne(inputPath, false);
    }
  }
  return { tasks, rejected };
}
