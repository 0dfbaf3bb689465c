/**
 * The files `toolmask setup` edits (a client's `settings.json` and `.env`, and their backups),
 * handled so that nothing planted in the person's folder can make it write anywhere else or hang:
 *
 * - **Read**: only a regular file of at most 1 MB (core's limit for settings files; a caller may
 *   give a larger bound for a file it knows grows, as claude's `.claude.json`), opened
 *   `O_NONBLOCK | O_NOFOLLOW` and checked on the open descriptor, so a FIFO or a device never
 *   blocks and a link is refused before a byte is read. The bytes are kept as they are: `--undo`
 *   compares them and can put them back exactly.
 * - **A file that is a link is refused**, with an error that names it and says why: setup edits
 *   the files for good and as whoever runs it, root included, so it never follows one (a `.env`
 *   linked to `/etc/passwd` would be appended to). (The launchers' overlay writes through a
 *   dotfiles link, `person-files.ts`.) The folders on the way are not checked: a client folder
 *   that is a link (a dotfiles manager's `~/.gemini` or `~/.codex`) is the person's own choice of
 *   where their settings live, and the file is edited where it leads, as the client itself reads
 *   it; the temporary file and the backup are made beside the file, in that same folder.
 * - **Written** by a new temporary file beside it (`O_CREAT | O_EXCL | O_NOFOLLOW`) renamed over
 *   it: a rename replaces a link rather than following it. The file keeps its mode unless the
 *   caller gives another (0600 for a file that now holds the gateway's access secret).
 * - **Backups** are created `O_CREAT | O_EXCL | O_NOFOLLOW`: a link (dangling or not) or anything
 *   but a regular file at the backup path is refused, never followed; a regular file already there
 *   is the copy an earlier setup kept, and is left as it is.
 *
 * `@toolmask/core/settings` has `readSettingsText` (regular file, 1 MB, `O_NONBLOCK`), but it
 * follows links and returns decoded text; this is the same check with `O_NOFOLLOW`, on bytes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { describeError } from '@toolmask/core/errors';
import { readUpTo } from '@toolmask/core/utils';
import { MAX_SETTINGS_BYTES } from '@toolmask/core/settings';
import { LaunchError } from '../launch-error.js';

/** What stops `toolmask setup` or `--undo` (the CLI says it and exits 2). */
export class SetupError extends LaunchError {}

/** `--undo` of a client that is not set up: nothing to do (said, exit 0). */
export class NothingToUndoError extends SetupError {}

/** A file as setup read it. */
export interface SetupFile {
  bytes: Buffer;
  /** Its permission bits, kept when it is written again. */
  mode: number;
}

export const BACKUP_SUFFIX = '.toolmask-backup';

/** How much a file may grow while it is read (a client rewriting it meanwhile). */
const GROWTH_ROOM = 1024 * 1024;

/** The hex SHA-256 of some bytes: how the record remembers a file without holding its secrets. */
export function digest(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const errorCode = (error: unknown) => (error as { code?: unknown }).code;

async function linkText(link: string): Promise<string> {
  try {
    return ` (to ${await fs.readlink(link)})`;
  } catch {
    return '';
  }
}

async function linkRefusal(file: string): Promise<SetupError> {
  return new SetupError(
    `${file} is a symbolic link${await linkText(file)}; toolmask setup does not edit a file through a link, which could change a file outside your home folder. Replace the link with a copy of the file it points to and run setup again, or make the change yourself`,
  );
}

/** A bound in bytes as the person reads it (`1 MB`, `64 MB`). */
const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/**
 * The bytes and mode of `file`, or undefined when there is none. A link, a FIFO, a device or a
 * file over `maxBytes` (1 MB unless told) is refused with an error that names it, without
 * blocking.
 */
export async function readSetupFile(
  file: string,
  maxBytes: number = MAX_SETTINGS_BYTES,
): Promise<SetupFile | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    // O_NOFOLLOW on a link: ELOOP (Linux, macOS) or EMLINK (FreeBSD).
    const stats = await fs.lstat(file).catch(() => undefined);
    if (stats?.isSymbolicLink()) throw await linkRefusal(file);
    throw new SetupError(`${file}: cannot open it: ${describeError(error)}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new SetupError(
        `${file}: it is not a regular file (${stats.isDirectory() ? 'a folder' : 'a FIFO, socket or device'}); toolmask setup edits only regular files`,
      );
    }
    if (stats.size > maxBytes) {
      throw new SetupError(
        `${file}: it is ${stats.size.toLocaleString('en-US')} bytes, larger than the ${megabytes(maxBytes)} toolmask setup edits`,
      );
    }
    // Room for what the file holds now and some growth, not the whole bound (64 MB) every time.
    const room = Math.min(maxBytes, stats.size + GROWTH_ROOM);
    const bytes = await readUpTo(handle, room);
    if (!bytes) {
      throw new SetupError(
        room < maxBytes
          ? `${file}: it changed while setup read it; run setup again`
          : `${file}: it grew larger than the ${megabytes(maxBytes)} toolmask setup edits`,
      );
    }
    return { bytes, mode: stats.mode & 0o777 };
  } catch (error) {
    if (error instanceof SetupError) throw error;
    throw new SetupError(`${file}: cannot read it: ${describeError(error)}`);
  } finally {
    await handle.close();
  }
}

/** Creates `file` (no link followed, nothing already there touched) holding `bytes`. */
async function createExclusive(file: string, bytes: Buffer | string, mode: number): Promise<void> {
  const handle = await fs.open(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  );
  try {
    await handle.writeFile(bytes);
    // The umask may have taken bits off: the file gets exactly `mode`.
    await handle.chmod(mode);
  } catch (error) {
    await handle.close();
    await fs.rm(file, { force: true });
    throw error;
  }
  await handle.close();
}

/**
 * Replaces `file` with `bytes`, atomically (a temporary file beside it, then a rename, which
 * replaces a link planted meanwhile instead of following it). A new file is created 0600.
 */
export async function writeSetupFile(
  file: string,
  bytes: Buffer | string,
  mode = 0o600,
): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await createExclusive(temporary, bytes, mode);
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Refuses a backup path holding a link or anything but a regular file (before setup changes
 * anything); a regular file there is an earlier backup, kept.
 */
export async function checkBackupPath(file: string): Promise<void> {
  const backup = `${file}${BACKUP_SUFFIX}`;
  let stats;
  try {
    stats = await fs.lstat(backup);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw new SetupError(`${backup}: cannot check it: ${describeError(error)}`);
  }
  if (stats.isSymbolicLink()) {
    throw new SetupError(
      `${backup} is a symbolic link${await linkText(backup)}; toolmask setup does not write its backup through a link, which could create a file outside your home folder. Remove it and run setup again`,
    );
  }
  if (!stats.isFile()) {
    throw new SetupError(
      `${backup}: it is not a regular file; toolmask setup keeps its backup there. Remove it and run setup again`,
    );
  }
}

/**
 * `<file>.toolmask-backup` holding `bytes`, created `O_EXCL | O_NOFOLLOW`, 0600; a regular file
 * already there is kept (the file as it was before toolmask first changed it). Its path.
 */
export async function createBackup(file: string, bytes: Buffer): Promise<string> {
  const backup = `${file}${BACKUP_SUFFIX}`;
  try {
    await createExclusive(backup, bytes, 0o600);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST' && errorCode(error) !== 'ELOOP') throw error;
    // Something is there: checked as before the change (a link or a FIFO is refused).
    await checkBackupPath(file);
  }
  return backup;
}

/** SHA-256 digests of a file's bytes (`setup-files.ts` `digest`). */
export interface FileDigests {
  /** Before setup; absent: there was no such file. */
  before?: string;
  /** As setup wrote it. */
  after: string;
}

/** How a file setup edited is read again, and the mode it had before setup. */
export interface PutBackOptions {
  /** The bound its reads keep (its backup's too). @default 1 MB */
  maxBytes?: number;
  /** Its permission bits before setup, given back with its bytes. @default its mode now */
  modeBefore?: number;
}

/**
 * A file still exactly as setup left it, put back byte for byte: removed when setup created it,
 * else given the bytes of its backup (checked against the record's digest; an empty file needs
 * none) and its mode from before setup, and the backup, now the same as the file, removed.
 * Whether it was; when it was not, a line says why and the values are put back one by one.
 */
export async function putBackExactly(
  file: string,
  now: SetupFile,
  digests: FileDigests | undefined,
  lines: string[],
  options: PutBackOptions = {},
): Promise<boolean> {
  // The record of an older setup has no digests.
  if (!digests) return false;
  if (digest(now.bytes) !== digests.after) {
    lines.push(`${file}: edited since setup; only the values setup set are put back`);
    return false;
  }
  if (digests.before === undefined) {
    await fs.rm(file, { force: true });
    lines.push(`${file}: removed (setup had created it)`);
    return true;
  }
  const backup = `${file}${BACKUP_SUFFIX}`;
  let original: Buffer | undefined;
  if (digests.before === digest('')) {
    original = Buffer.alloc(0);
  } else {
    const copy = await readSetupFile(backup, options.maxBytes).catch(() => undefined);
    if (copy && digest(copy.bytes) === digests.before) original = copy.bytes;
  }
  if (!original) {
    lines.push(
      `${file}: ${backup} no longer holds the file as it was before setup; only the values setup set are put back`,
    );
    return false;
  }
  await writeSetupFile(file, original, options.modeBefore ?? now.mode);
  if (original.length > 0) await fs.rm(backup, { force: true });
  lines.push(`${file}: put back exactly as it was before setup`);
  return true;
}

/**
 * After `file` had its values put back one by one: its backup goes when it still holds the file as
 * setup found it (the record's digest), so nothing is lost; anything else at that path (an older
 * backup, a file the person put there, a record from before digests) is kept, and said.
 */
export async function removeSpentBackup(
  file: string,
  digests: FileDigests | undefined,
  lines: string[],
  maxBytes?: number,
): Promise<void> {
  const backup = `${file}${BACKUP_SUFFIX}`;
  let copy: SetupFile | undefined;
  try {
    copy = await readSetupFile(backup, maxBytes);
  } catch {
    // A link or a FIFO there: not ours to remove (and not followed).
    lines.push(`${backup}: kept, it is not the backup this setup made`);
    return;
  }
  if (copy === undefined) return;
  if (digests?.before !== undefined && digest(copy.bytes) === digests.before) {
    await fs.rm(backup, { force: true });
    lines.push(`${backup}: removed (the file as it was before setup; its values are back)`);
    return;
  }
  lines.push(
    `${backup}: kept, it is not the file as this setup found it; remove it when you no longer need it`,
  );
}
