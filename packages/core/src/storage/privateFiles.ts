/**
 * Files of a private state directory (the gateway's, the launchers'): folders 0700, files 0600,
 * whole-file writes by temp file and rename (a crash never leaves half a file under the final
 * name), appends of whole lines (a reader skips a torn last line). Nothing is fsync'ed: an
 * appended record survives the gateway being killed or restarted (it is in the kernel's page
 * cache), not a power cut. That is the durability of the offloaded outputs the records point at
 * (core's store) and of gemini-cli's own chat recording, and it keeps a masking event from
 * waiting on the disk.
 *
 * No write follows a link planted in the folder (docs/reliability.md, guarantee 3):
 * - the caller's `root` (the state folder) and every folder below it down to the file are checked
 *   to be plain directories, not links, when made or first used (the root's own parents are the
 *   caller's to trust); without `root`, only the file's own folder is, as the launchers' one-level
 *   folders need;
 * - an append opens the file `O_APPEND|O_CREAT|O_NOFOLLOW`: a link at its name is refused;
 * - a whole-file write opens its temporary file `O_CREAT|O_EXCL|O_NOFOLLOW` and renames it over
 *   the final name, which replaces a link planted there (the link itself; its target is untouched).
 * A refusal is a `PrivateFileError`: `ENOTDIR` (a folder), `ELOOP` (a file), `EINVAL` (a file
 * outside its root).
 *
 * A write's own calls (open, write, close, rename) go through libuv's thread pool, or, with
 * `calls: 'inline'`, run on the calling thread: for the gateway's small per-request state, where
 * the pool's hand-offs cost several times the calls themselves (an atomic write of a few hundred
 * bytes 140–165 µs of CPU against 340–620 µs, an append 11–13 µs against 140–230 µs), and where a
 * pool held by slow reads elsewhere (a settings file on a hung mount) would hold the state too.
 * The folder checks stay as they are (once per folder, then cached).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  openSync,
  promises as fs,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import * as path from 'node:path';
import { ToolmaskError } from '../utils/toolmaskError.js';

export interface PrivateWriteOptions {
  /**
   * The state folder the file belongs to: it and every folder below it down to the file are made
   * (0700) and refused if one is a link. Default: the file's own folder (only that one is checked).
   */
  root?: string;
  /**
   * Where the file's own calls run: libuv's thread pool, or the calling thread (`'inline'`: a
   * handful of small calls on a local disk, cheaper than the pool's hand-offs; see above).
   * @default 'thread-pool'
   */
  calls?: 'thread-pool' | 'inline';
}

/** A write refused because a link or a non-folder is in its way; coded like the file system's. */
class PrivateFileError extends ToolmaskError<'ENOTDIR' | 'ELOOP' | 'EINVAL'> {
  constructor(code: 'ENOTDIR' | 'ELOOP' | 'EINVAL', message: string) {
    super(code, message);
  }
}

// O_NOFOLLOW is undefined where the platform has none (Windows, where links need privileges).
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW;
const CREATE_NEW_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;

/**
 * Folders this process has made or checked (each a plain directory, not a link, 0700), and the
 * chains (root to folder) whose every folder is among them. Every answered request writes a record
 * and a conversation's state, so each folder is checked once, not twice per write (the calls go
 * through libuv's thread pool and showed up in the gateway's latency): a write into a checked
 * chain costs one set lookup. A folder removed since (retention prunes old conversations) is made
 * again on the write that finds it gone.
 */
const checked = new Set<string>();
const checkedChains = new Set<string>();

const chainKey = (root: string, directory: string) => `${root}\0${directory}`;

/** `root`, then each folder below it down to `directory`. */
function chain(root: string, directory: string): string[] {
  const relative = path.relative(root, directory);
  if (relative === '') return [root];
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw new PrivateFileError('EINVAL', `${directory} is not inside ${root}`);
  }
  const folders = [root];
  for (const name of relative.split(path.sep)) folders.push(path.join(folders.at(-1)!, name));
  return folders;
}

/** Makes `folder` 0700 if needed (the folders above it are checked) and refuses a link or file. */
async function checkFolder(folder: string): Promise<void> {
  // A link in the way fails mkdir (EEXIST when dangling) or passes it; lstat says which, plainly.
  const notMade = await fs.mkdir(folder, { recursive: true, mode: 0o700 }).then(
    () => undefined,
    (error: unknown) => error,
  );
  const stats = await fs.lstat(folder).catch((error: unknown) => {
    throw notMade ?? error;
  });
  if (stats.isSymbolicLink() || !stats.isDirectory()) {
    throw new PrivateFileError(
      'ENOTDIR',
      `${folder} is not a plain directory (a link or a file): refusing to write through it`,
    );
  }
  if ((stats.mode & 0o077) !== 0) await fs.chmod(folder, 0o700);
  checked.add(folder);
}

/**
 * Makes `directory` 0700, with `options.root` and every folder between them, refusing any that is
 * a link or not a directory. Without a root, only `directory` itself is checked.
 */
export async function ensurePrivateDirectory(
  directory: string,
  options: PrivateWriteOptions = {},
): Promise<void> {
  const root = options.root ?? directory;
  const key = chainKey(root, directory);
  if (checkedChains.has(key)) return;
  for (const folder of chain(root, directory)) {
    if (!checked.has(folder)) await checkFolder(folder);
  }
  checkedChains.add(key);
}

/** Forgets the checks of `directory`'s chain; whether any was remembered. */
function forgetChain(root: string, directory: string): boolean {
  let remembered = checkedChains.delete(chainKey(root, directory));
  for (const folder of chain(root, directory)) remembered = checked.delete(folder) || remembered;
  return remembered;
}

/** Runs `write` in the private folder of `file`, made again once if it went away meanwhile. */
async function inPrivateDirectory(
  file: string,
  options: PrivateWriteOptions,
  write: () => Promise<void>,
): Promise<void> {
  const directory = path.dirname(file);
  const root = options.root ?? directory;
  await ensurePrivateDirectory(directory, { root });
  try {
    try {
      await write();
    } catch (error) {
      // Any folder of the chain may be the one removed: all are checked again.
      if ((error as { code?: string }).code !== 'ENOENT' || !forgetChain(root, directory)) {
        throw error;
      }
      await ensurePrivateDirectory(directory, { root });
      await write();
    }
  } catch (error) {
    if ((error as { code?: string }).code !== 'ELOOP') throw error;
    throw new PrivateFileError('ELOOP', `${file} is a link: refusing to write through it`);
  }
}

/** Appends `text` (whole lines) to `file`, created 0600; a link at `file` is refused (ELOOP). */
export async function appendLines(
  file: string,
  text: string,
  options: PrivateWriteOptions = {},
): Promise<void> {
  await inPrivateDirectory(file, options, async () => {
    if (options.calls === 'inline') writeWhole(file, APPEND_FLAGS, text);
    else await fs.appendFile(file, text, { encoding: 'utf8', mode: 0o600, flag: APPEND_FLAGS });
  });
}

/**
 * Replaces `file` with `text` all at once (temp file in the same folder, opened without following
 * a link, then rename: a link at `file` is replaced, its target never written).
 */
export async function writeAtomically(
  file: string,
  text: string | Uint8Array,
  options: PrivateWriteOptions = {},
): Promise<void> {
  await inPrivateDirectory(file, options, async () => {
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      if (options.calls === 'inline') {
        writeWhole(temporary, CREATE_NEW_FLAGS, text);
        renameSync(temporary, file);
      } else {
        await fs.writeFile(temporary, text, { mode: 0o600, flag: CREATE_NEW_FLAGS });
        await fs.rename(temporary, file);
      }
    } catch (error) {
      if (options.calls === 'inline') rmSync(temporary, { force: true });
      else await fs.rm(temporary, { force: true });
      throw error;
    }
  });
}

/** Opens `file` with `flags` (0600 if made), writes all of `data` and closes it, on this thread. */
function writeWhole(file: string, flags: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const descriptor = openSync(file, flags, 0o600);
  try {
    for (let at = 0; at < bytes.length;) at += writeSync(descriptor, bytes, at);
  } finally {
    closeSync(descriptor);
  }
}

/** The text of `file`, or undefined when it does not exist. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The JSON values of a JSON Lines text. A torn last line (a crash mid-append) is skipped; so is a
 * line that is not JSON (reported through `onBadLine`), so one bad line never loses the others.
 */
export function parseJsonLines(text: string, onBadLine?: (lineNumber: number) => void): unknown[] {
  const values: unknown[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      values.push(JSON.parse(line));
    } catch {
      onBadLine?.(index + 1);
    }
  });
  return values;
}
