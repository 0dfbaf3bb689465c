/**
 * Where a replay writes its strategies' offloaded outputs: a temporary folder removed at the end,
 * or `--keep DIR`. A `--keep` folder that already holds files is refused unless `--force`: the new
 * files would mix with an earlier run's, and `toolmask outputs ls` would list both.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { failure, usageError } from '../../cli-error.js';

/** Checks `--keep DIR` before the run: a file, or a folder with anything in it, needs --force. */
export async function checkKeepFolder(keep: string, force: boolean): Promise<void> {
  const root = path.resolve(keep);
  let entries: string[];
  try {
    entries = await fs.readdir(root);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return; // created when the run starts
    if (code === 'ENOTDIR') throw usageError(`--keep ${keep}: not a directory`);
    throw usageError(`--keep ${keep}: cannot be read (${code})`);
  }
  if (entries.length > 0 && !force) {
    throw usageError(
      `--keep ${keep}: the folder is not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}); ` +
        "this run's outputs would mix with what is there. Pick an empty or new folder, or add --force",
    );
  }
}

export interface OutputRoot {
  path: string;
  /** Removes a temporary folder; a `--keep` folder stays. */
  release(): Promise<void>;
}

export async function prepareOutputRoot(keep: string | undefined): Promise<OutputRoot> {
  if (!keep) {
    const temporary = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-replay-'));
    return {
      path: temporary,
      release: () => fs.rm(temporary, { recursive: true, force: true }),
    };
  }
  const root = path.resolve(keep);
  try {
    await fs.mkdir(root, { recursive: true });
  } catch (error) {
    throw failure(`cannot create --keep folder ${root}: ${(error as Error).message}`);
  }
  return { path: root, release: async () => {} };
}
