/**
 * `--project DIR` or the current directory, to the temp dir whose outputs the command manages.
 * A `--project` that does not exist (or is not a folder) is bad usage, exit 2, as `ls` treats a
 * missing path. A folder that exists but has no gemini-cli temp dir (no outputs yet) is said on
 * stderr and resolves to undefined; each command decides what that means.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { findProjectTempDir, type ProjectTempDir } from '@toolmask/core/storage';
import { usageError } from '../../cli-error.js';
import type { CliIo } from '../../cli-io.js';

async function checkProjectFolder(project: string, io: CliIo): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = (await fs.stat(path.resolve(io.cwd, project))).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw usageError(`--project ${project}: no such directory`);
    if (code !== undefined) throw usageError(`--project ${project}: cannot be read (${code})`);
    throw error;
  }
  if (!isDirectory) throw usageError(`--project ${project}: not a directory`);
}

export async function resolveProject(
  project: string | undefined,
  io: CliIo,
  options: { quiet?: boolean } = {},
): Promise<ProjectTempDir | undefined> {
  if (project !== undefined) await checkProjectFolder(project, io);
  const found = await findProjectTempDir(path.resolve(io.cwd, project ?? '.'), io.env);
  if (!found && !options.quiet) {
    io.stderr.write(
      `toolmask: no gemini-cli temp dir found for ${project ?? io.cwd}; ` +
        'pass --project with the project folder or its temp dir (the one holding tool-outputs/)\n',
    );
  }
  return found;
}
