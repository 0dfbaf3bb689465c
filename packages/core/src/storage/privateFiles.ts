/**
 * Files of a private state directory (the gateway's, the launchers'): folders 0700, files 0600,
 * whole-file writes by temp file and rename (a crash never leaves half a file under the final
 * name), appends of whole lines (a reader skips a torn last line). Nothing is fsync'ed: an
 * appended record survives the gateway being killed or restarted (it is in the kernel's page
 * cache), not a power cut. That is the durability of the offloaded outputs the records point at
 * (core's store) and of gemini-cli's own chat recording, and it keeps a masking event from
 * waiting on the disk.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Folders this process has made or checked. Every answered request writes a record and a
 * conversation's state, so each folder is checked once, not twice per write (the calls go through
 * libuv's thread pool and showed up in the gateway's latency). A folder removed since (retention
 * prunes old conversations) is made again on the write that finds it gone.
 */
const checked = new Set<string>();

export async function ensurePrivateDirectory(directory: string): Promise<void> {
  if (checked.has(directory)) return;
  await fs.mkdir(directory, { recursive: true, mode: 0o700 });
  const stats = await fs.lstat(directory);
  if (!stats.isDirectory() || stats.isSymbolicLink()) {
    throw Object.assign(new Error(`${directory} is not a plain directory`), { code: 'ENOTDIR' });
  }
  if ((stats.mode & 0o077) !== 0) await fs.chmod(directory, 0o700);
  checked.add(directory);
}

/** Runs `write` in the private folder of `file`, made again once if it went away meanwhile. */
async function inPrivateDirectory(file: string, write: () => Promise<void>): Promise<void> {
  const directory = path.dirname(file);
  await ensurePrivateDirectory(directory);
  try {
    await write();
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT' || !checked.delete(directory)) throw error;
    await ensurePrivateDirectory(directory);
    await write();
  }
}

/** Appends `text` (whole lines) to `file`, created 0600. */
export async function appendLines(file: string, text: string): Promise<void> {
  await inPrivateDirectory(file, () =>
    fs.appendFile(file, text, { encoding: 'utf8', mode: 0o600 }),
  );
}

/** Replaces `file` with `text` all at once (temp file in the same folder, then rename). */
export async function writeAtomically(file: string, text: string): Promise<void> {
  await inPrivateDirectory(file, async () => {
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fs.writeFile(temporary, text, { mode: 0o600, flag: 'wx' });
      await fs.rename(temporary, file);
    } catch (error) {
      await fs.rm(temporary, { force: true });
      throw error;
    }
  });
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
