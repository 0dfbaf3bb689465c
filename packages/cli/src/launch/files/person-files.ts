/**
 * Writing the person's own files (`~/.gemini/settings.json`, `~/.qwen/.env`, …), which dotfile
 * managers often keep elsewhere behind a symbolic link: the folder or the file itself may be a
 * link. So folders are made as `mkdir -p` does (an existing link to a folder is that folder; the
 * strict private-folder checks are for toolmask's own state folder only), and a file is written
 * through its links: the final target is found, then replaced atomically (a temporary file next
 * to it, then a rename), keeping its mode. Renaming over the link itself would replace the link
 * with a plain file, and the change would never reach the dotfiles.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** More links than this in a row is a loop (the kernel's own limit is 40). */
const MAX_LINKS = 40;

/** `mkdir -p`, new folders 0700; an existing folder or link to one is left as it is. */
export async function ensureOwnDirectory(directory: string): Promise<void> {
  await fs.mkdir(directory, { recursive: true, mode: 0o700 });
}

/** Where writing `file` really lands: the end of its chain of links (which may not exist yet). */
export async function linkTarget(file: string): Promise<string> {
  let current = file;
  for (let hops = 0; hops < MAX_LINKS; hops++) {
    let stats;
    try {
      stats = await fs.lstat(current);
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return current;
      throw error;
    }
    if (!stats.isSymbolicLink()) return current;
    // A relative link is relative to the folder it really is in (`..` taken physically, as the
    // kernel does), not to the path that led there through other links.
    current = path.resolve(await fs.realpath(path.dirname(current)), await fs.readlink(current));
  }
  throw Object.assign(new Error(`${file}: too many levels of symbolic links`), { code: 'ELOOP' });
}

/** Replaces the file `file` leads to with `text`, atomically; a new file is created 0600. */
export async function writeOwnFile(file: string, text: string): Promise<void> {
  const target = await linkTarget(file);
  await ensureOwnDirectory(path.dirname(target));
  let mode = 0o600;
  try {
    mode = (await fs.stat(target)).mode & 0o777;
  } catch {
    // A new file.
  }
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temporary, text, { mode, flag: 'wx' });
    // The umask may have taken bits off: the file keeps exactly the mode it had.
    await fs.chmod(temporary, mode);
    await fs.rename(temporary, target);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}
