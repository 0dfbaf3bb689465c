/**
 * Offloaded outputs in a folder every replica mounts (NFS, EFS, a shared volume), in the layout
 * of core's file store: `<dir>/tool-outputs/<conversation>/<file>`, written by that store (atomic
 * temp + rename, 0700 folders, 0600 files, content-addressed names), so the root that snippets
 * name is the folder itself and reads back through any replica.
 *
 * Reads never follow a link: `tool-outputs/` and the conversation folder must be plain folders,
 * the file is opened with `O_NOFOLLOW` (a symlink at its name is refused) and must be a regular
 * file with one link; on Linux the open descriptor's own path must still be inside the folder
 * (a folder swapped for a link between the checks and the open is caught after the open).
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { errorCode } from '@toolmask/core/errors';
import { TOOL_OUTPUTS_DIR, createFileToolOutputStore } from '@toolmask/core/storage';
import type { SharedOutputStore } from '../stores.js';
import { SharedOutputError, checkRoot, placeOfRead, placeOfSave } from './output-paths.js';

/** Codes of a path that is not there (any part of it): the output is missing. */
const MISSING = new Set(['ENOENT', 'ENOTDIR']);

export function createDirOutputStore(dir: string): SharedOutputStore {
  const root = checkRoot(path.resolve(dir));
  const outputsFolder = path.join(root, TOOL_OUTPUTS_DIR);
  const files = createFileToolOutputStore();

  return {
    root,

    async save(directory, fileName, text, byteLength) {
      const place = placeOfSave(root, directory, fileName);
      const file = await files.save(
        path.join(outputsFolder, place.conversation),
        fileName,
        text,
        byteLength,
      );
      // Core's store reuses a file already there without touching it; saving again is a use
      // (prune goes by the file's time, as S3 goes by an object's LastModified).
      const now = new Date();
      await fs.lutimes(file, now, now).catch(() => undefined);
      return path.join(directory, fileName);
    },

    async read(relativePath) {
      const place = placeOfRead(relativePath);
      const folder = path.join(outputsFolder, place.conversation);
      if (!(await plainFolder(outputsFolder)) || !(await plainFolder(folder))) return undefined;
      const handle = await openOutput(folder, path.join(folder, place.fileName));
      if (!handle) return undefined;
      try {
        return await handle.readFile();
      } finally {
        await handle.close();
      }
    },

    async prune(beforeMs) {
      if (!(await plainFolder(outputsFolder))) return 0;
      let removed = 0;
      for (const entry of await fs.readdir(outputsFolder, { withFileTypes: true })) {
        // Only plain folders: a link planted here is never walked into.
        if (!entry.isDirectory()) continue;
        removed += await pruneFolder(path.join(outputsFolder, entry.name), beforeMs);
      }
      return removed;
    },

    // Nothing is held open between calls.
    async close() {},
  };
}

/** Whether `folder` is a plain folder: false when missing, throws when it is anything else. */
async function plainFolder(folder: string): Promise<boolean> {
  let stats;
  try {
    stats = await fs.lstat(folder);
  } catch (error) {
    if (MISSING.has(errorCode(error, ''))) return false;
    throw error;
  }
  if (stats.isSymbolicLink() || !stats.isDirectory()) {
    throw new SharedOutputError('OUTSIDE', `${folder} is not a plain folder; not read through`);
  }
  return true;
}

/**
 * `file` opened for reading, never through a link, checked to be a regular file of one link inside
 * `folder`; undefined when it is not there.
 */
async function openOutput(folder: string, file: string): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO planted at the name cannot block the open.
    handle = await fs.open(
      file,
      fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0),
    );
  } catch (error) {
    const code = errorCode(error, '');
    if (MISSING.has(code)) return undefined;
    if (code === 'ELOOP') throw new SharedOutputError('OUTSIDE', `${file} is a symlink; refused`);
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new SharedOutputError('NOT_A_FILE', `${file} is not a regular file`);
    }
    // A hard link made to a file elsewhere would read that file.
    if (stats.nlink !== 1) {
      throw new SharedOutputError('OUTSIDE', `${file} has ${stats.nlink} links; refused`);
    }
    const opened = await descriptorPath(handle);
    if (opened !== undefined && path.dirname(opened) !== (await fs.realpath(folder))) {
      throw new SharedOutputError('OUTSIDE', `${file} was opened outside its folder; refused`);
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Removes the regular files of `folder` last saved before `beforeMs`, then the folder if it was
 * unused since before `beforeMs` (its time read before the files go: removing them updates it)
 * and is empty now. Another replica may be saving into it: a folder removed under a save makes
 * core's store create it again.
 */
async function pruneFolder(folder: string, beforeMs: number): Promise<number> {
  let removed = 0;
  let names: string[];
  let folderUnused: boolean;
  try {
    const stats = await fs.lstat(folder);
    // Checked again here: the folder may have been swapped for a link since it was listed.
    if (stats.isSymbolicLink() || !stats.isDirectory()) return 0;
    folderUnused = stats.mtimeMs < beforeMs;
    names = await fs.readdir(folder);
  } catch (error) {
    if (MISSING.has(errorCode(error, ''))) return 0;
    throw error;
  }
  for (const name of names) {
    const file = path.join(folder, name);
    try {
      const stats = await fs.lstat(file);
      if (stats.isFile() && stats.mtimeMs < beforeMs) {
        await fs.unlink(file);
        removed += 1;
      }
    } catch (error) {
      // Removed meanwhile by another replica's prune.
      if (!MISSING.has(errorCode(error, ''))) throw error;
    }
  }
  if (folderUnused) {
    // Fails when not empty (a save meanwhile, something not ours) or gone: kept as it is.
    await fs.rmdir(folder).catch(() => undefined);
  }
  return removed;
}

/** Where `/proc/self/fd/N` says an open descriptor is; undefined without `/proc`. */
async function descriptorPath(handle: FileHandle): Promise<string | undefined> {
  try {
    return await fs.readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}
