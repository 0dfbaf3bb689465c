/**
 * Checks before a long replay that `--report FILE` can be written, so a bad path is said at once
 * rather than after the run. (The write itself can still fail later; the summary is printed first.)
 */
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';

/** What stands in the way of writing `file`, or undefined when nothing does. */
export async function reportPathProblem(file: string): Promise<string | undefined> {
  const target = path.resolve(file);
  try {
    const stats = await fs.stat(target);
    if (stats.isDirectory()) return 'it is a directory';
    await fs.access(target, constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') return 'the file is not writable';
    if (code !== 'ENOENT') return `cannot check it (${code})`;
  }
  const folder = path.dirname(target);
  try {
    if (!(await fs.stat(folder)).isDirectory()) return `${folder} is not a directory`;
    await fs.access(folder, constants.W_OK | constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `the folder ${folder} does not exist`;
    if (code === 'ENOTDIR') return `${folder} is not a directory`;
    return `cannot write in the folder ${folder} (${code})`;
  }
}
