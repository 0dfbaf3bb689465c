/** `--project DIR` or the current directory, to the temp dir whose outputs the command manages. */
import type { CliIo } from '../../cli-io.js';
import { findProjectTempDir, type ProjectTempDir } from '@toolmask/core/storage';

export async function resolveProject(
  project: string | undefined,
  io: CliIo,
): Promise<ProjectTempDir | undefined> {
  const found = await findProjectTempDir(project ?? io.cwd, io.env);
  if (!found) {
    io.stderr.write(
      `toolmask: no gemini-cli temp dir found for ${project ?? io.cwd}; ` +
        'pass --project with the project folder or its temp dir (the one holding tool-outputs/)\n',
    );
  }
  return found;
}
