/**
 * Where full tool outputs go: one folder per session under `<projectTempDir>/tool-outputs/`.
 *
 * Guarantees (see docs/reliability.md):
 * - all or nothing: the text is written to a temporary name in the same folder, then renamed, so
 *   a final name never holds a partial file (fsync before the rename is an option);
 * - content-addressed: the name carries a hash of the text, so saving the same output again
 *   reuses the file (no duplicates after a retried or repeated pass);
 * - private: folders 0700, files 0600; a symlink planted as a folder is refused, one planted at a
 *   final name is replaced, never followed.
 *
 * File and folder names come from outputLayout.ts; the store refuses any name that is not a plain
 * file name of the folder.
 *
 * The parts: storeFolders.ts (the folders, checked and swept), atomicOutputWrite.ts (one file,
 * all or nothing), storeError.ts (the store's refusals).
 */
import * as nodeFs from 'node:fs';
import * as path from 'node:path';
import { writeOutputAtomically } from './atomicOutputWrite.js';
import { StoreError } from './storeError.js';
import { StoreFolders } from './storeFolders.js';
import { touchSessionFolder, type ActivityFileSystem } from './sessionActivity.js';

/** The subset of `node:fs` the store uses; `memfs` provides it too (for tests). */
export type StoreFileSystem = Pick<
  typeof nodeFs,
  | 'mkdirSync'
  | 'lstatSync'
  | 'chmodSync'
  | 'openSync'
  | 'writeSync'
  | 'fsyncSync'
  | 'closeSync'
  | 'renameSync'
  | 'unlinkSync'
> &
  // Optional: without readdirSync, temporary files left by a killed pass are not cleaned up;
  // without utimesSync, a reused file does not count as a use of its folder (retention).
  Partial<Pick<typeof nodeFs, 'readdirSync' | 'utimesSync'>>;

export interface ToolOutputStore {
  /**
   * Saves `text` durably under `directory/fileName`; returns the absolute path. `byteLength`, when
   * the caller knows it, is `Buffer.byteLength(text, 'utf8')` (spares measuring a giant text twice).
   */
  save(directory: string, fileName: string, text: string, byteLength?: number): Promise<string>;
}

export interface FileToolOutputStoreOptions {
  fs?: StoreFileSystem;
  /**
   * fsync each file before the rename. Off by default: temp + rename already makes a file
   * all-or-nothing when the process dies; fsync adds power-loss durability at ~0.3 ms a file.
   * gemini-cli's own chat recording is not fsync'ed either, so by default toolmask's files are
   * exactly as durable as the history that points at them.
   */
  fsync?: boolean;
  /**
   * Temporary files older than this (left by a pass killed mid-write) are removed the first
   * time this store writes into their session folder. Default 10 minutes: a live writer's
   * temporary file, even another process's, is seconds old.
   */
  staleTemporaryFileMs?: number;
}

/**
 * The file store. Its I/O is synchronous on purpose: the pass is awaited by the turn anyway, and
 * a handful of small synchronous calls (~0.06 ms a file) is several times faster than the same
 * calls through the thread pool. A giant output is written in chunks, with the event loop given
 * a turn between them, so writing 200 MB never blocks it for long.
 */
export function createFileToolOutputStore(
  options: FileToolOutputStoreOptions = {},
): ToolOutputStore {
  const fs = options.fs ?? nodeFs;
  const fsync = options.fsync ?? false;
  const folders = new StoreFolders(fs, options.staleTemporaryFileMs ?? 10 * 60_000);
  const write = (directory: string, fileName: string, text: string, byteLength: number) =>
    writeOutputAtomically(fs, directory, fileName, text, byteLength, fsync);

  return {
    async save(directory, fileName, text, knownByteLength) {
      if (fileName !== path.basename(fileName) || fileName.startsWith('.')) {
        throw new StoreError(`refusing file name ${JSON.stringify(fileName)}`, 'EINVAL');
      }
      const byteLength = knownByteLength ?? Buffer.byteLength(text, 'utf8');
      folders.prepare(directory);
      try {
        const saved = await write(directory, fileName, text, byteLength);
        // A write is a use of the folder, even when the file was already there (retention).
        if (fs.utimesSync) touchSessionFolder(directory, fs as ActivityFileSystem);
        return saved;
      } catch (error) {
        // The folder may have been removed since it was checked (gc, a person): check it again once.
        if ((error as { code?: string }).code !== 'ENOENT') throw error;
        folders.recheck(directory);
        return await write(directory, fileName, text, byteLength);
      }
    },
  };
}
