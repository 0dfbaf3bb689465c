/**
 * `outputs gc`: finds session folders under `<projectTempDir>/tool-outputs/` whose newest file is
 * older than the limit and removes them. Only direct `session-*` children that are real folders
 * (not symlinks) are candidates, and each is checked to resolve inside `tool-outputs/` before it
 * is removed; nothing outside that folder is ever touched.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { SESSION_PREFIX } from './list-outputs.js';
import { TOOL_OUTPUTS_DIR } from './project-temp-dir.js';

export interface SessionFolder {
  name: string;
  path: string;
  files: number;
  bytes: number;
  /** Newest modification time of the folder or anything in it. */
  newestMs: number;
}

async function measure(directory: string): Promise<Omit<SessionFolder, 'name' | 'path'>> {
  const own = await fs.lstat(directory);
  let files = 0;
  let bytes = 0;
  let newestMs = own.mtimeMs;
  for (const entry of await fs.readdir(directory, { withFileTypes: true })) {
    const entryPath = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      const inner = await measure(entryPath);
      files += inner.files;
      bytes += inner.bytes;
      newestMs = Math.max(newestMs, inner.newestMs);
    } else {
      const stats = await fs.lstat(entryPath);
      files++;
      bytes += stats.size;
      newestMs = Math.max(newestMs, stats.mtimeMs);
    }
  }
  return { files, bytes, newestMs };
}

export async function findExpiredSessionFolders(
  projectTempDir: string,
  olderThanMs: number,
  nowMs: number,
): Promise<SessionFolder[]> {
  const root = path.join(projectTempDir, TOOL_OUTPUTS_DIR);
  let entries;
  try {
    entries = await fs.readdir(root, { withFileTypes: true });
  } catch {
    return [];
  }
  const expired: SessionFolder[] = [];
  for (const entry of entries) {
    // Dirent of a symlink reports isSymbolicLink, not isDirectory: links are never followed.
    if (!entry.isDirectory() || !entry.name.startsWith(SESSION_PREFIX)) continue;
    const folder = path.join(root, entry.name);
    const measured = await measure(folder);
    if (nowMs - measured.newestMs > olderThanMs) {
      expired.push({ name: entry.name, path: folder, ...measured });
    }
  }
  return expired.sort((left, right) => left.newestMs - right.newestMs);
}

/** Removes one folder found by `findExpiredSessionFolders`, after checking where it really is. */
export async function removeSessionFolder(projectTempDir: string, folder: SessionFolder) {
  const root = await fs.realpath(path.join(projectTempDir, TOOL_OUTPUTS_DIR));
  const stats = await fs.lstat(folder.path);
  const real = await fs.realpath(folder.path);
  if (!stats.isDirectory() || path.dirname(real) !== root) {
    throw new Error(`${folder.path} is not a session folder inside ${root}; left alone`);
  }
  // fs.rm removes symlinks found inside as links; it never follows them.
  await fs.rm(real, { recursive: true, force: true });
}
