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
 */
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import * as path from 'node:path';
import { eventLoopPauser } from '../utils/eventLoop.js';
import { ToolmaskError } from '../utils/toolmaskError.js';
import { UTF8_CHUNK_UNITS, utf8Chunks } from '../utils/utf8Chunks.js';
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

/** Random once per process (random bytes per file showed up in profiles); a counter does the rest. */
const TEMPORARY_NAME_PREFIX = randomBytes(4).toString('hex');
let temporaryCounter = 0;

/**
 * A save the store refuses, coded like the file system's own errors so a masking failure reads
 * the same either way (`ENOTDIR`: a folder on the way is a symlink or no plain directory; `EINVAL`:
 * a file name that is not one plain name). The codes reach telemetry as failure codes.
 */
class StoreError extends ToolmaskError<'ENOTDIR' | 'EINVAL'> {
  constructor(message: string, code: 'ENOTDIR' | 'EINVAL') {
    super(code, message);
  }
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

/** Our temporary names (see `writeAtomically`): `.<final name>.<pid>.<unique>.tmp`. */
const TEMPORARY_NAME = /^\..+\.txt\.\d+\.[0-9a-f]+\.tmp$/;

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
  const staleTemporaryFileMs = options.staleTemporaryFileMs ?? 10 * 60_000;
  const sweptDirectories = new Set<string>();
  /** Folders already checked by this store; dropped and re-checked when a write cannot find one. */
  const checkedDirectories = new Set<string>();

  /** Creates the folder 0700 if needed and refuses one that is a symlink or not a folder. */
  function ensurePrivateDirectory(directory: string): void {
    if (checkedDirectories.has(directory)) return;
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    const stats = fs.lstatSync(directory);
    if (stats.isSymbolicLink() || !stats.isDirectory()) {
      throw new StoreError(`${directory} is not a plain directory (symlink refused)`, 'ENOTDIR');
    }
    if ((Number(stats.mode) & 0o077) !== 0) fs.chmodSync(directory, 0o700);
    checkedDirectories.add(directory);
  }

  /**
   * Once per folder and store: removes the temporary files a killed pass left behind. Only ours
   * (by name) and only old ones, so another process's write in progress is never disturbed.
   * Best effort: a failure here never fails a save.
   */
  function removeStaleTemporaryFiles(directory: string): void {
    if (sweptDirectories.has(directory) || !fs.readdirSync) return;
    sweptDirectories.add(directory);
    try {
      const now = Date.now();
      for (const name of fs.readdirSync(directory)) {
        if (typeof name !== 'string' || !TEMPORARY_NAME.test(name)) continue;
        const file = path.join(directory, name);
        try {
          const stats = fs.lstatSync(file);
          if (stats.isFile() && now - Number(stats.mtimeMs) >= staleTemporaryFileMs) {
            fs.unlinkSync(file);
          }
        } catch {
          // removed meanwhile
        }
      }
    } catch {
      // unreadable folder: the save itself will say what is wrong
    }
  }

  function existingCopy(finalPath: string, byteLength: number): boolean {
    try {
      const stats = fs.lstatSync(finalPath);
      // A copy others can read (left by an older version, a copy tool) is not reused: it is
      // rewritten, and the rename leaves a 0600 file in its place.
      return (
        stats.isFile() &&
        !stats.isSymbolicLink() &&
        Number(stats.size) === byteLength &&
        (Number(stats.mode) & 0o077) === 0
      );
    } catch {
      return false;
    }
  }

  /** Writes all of `bytes` at the descriptor's position. */
  function writeAll(descriptor: number, bytes: Uint8Array): void {
    let written = 0;
    while (written < bytes.length) {
      written += fs.writeSync(descriptor, bytes, written, bytes.length - written);
    }
  }

  /**
   * The text's bytes into an open file: at once when small; a giant text chunk by chunk
   * (utils/utf8Chunks.ts, no copy of the whole), giving the event loop a turn between chunks.
   */
  async function writeText(descriptor: number, text: string): Promise<void> {
    if (text.length <= UTF8_CHUNK_UNITS) {
      writeAll(descriptor, Buffer.from(text, 'utf8'));
      return;
    }
    const pause = eventLoopPauser();
    for (const chunk of utf8Chunks(text)) {
      writeAll(descriptor, chunk);
      await pause();
    }
  }

  async function writeAtomically(
    directory: string,
    fileName: string,
    text: string,
    byteLength: number,
  ): Promise<string> {
    const finalPath = path.resolve(directory, fileName);
    // Content-addressed: the same name means the same text (the hash is in the name).
    if (existingCopy(finalPath, byteLength)) return finalPath;
    // Unique per process and call; O_EXCL below catches any clash anyway.
    const temporaryPath = path.join(
      directory,
      `.${fileName}.${process.pid}.${TEMPORARY_NAME_PREFIX}${++temporaryCounter}.tmp`,
    );
    // 'wx' = O_CREAT|O_EXCL: never opens an existing file or follows a planted symlink.
    const descriptor = fs.openSync(temporaryPath, 'wx', 0o600);
    // Closed exactly once: a second close could hit a descriptor number the host reused meanwhile.
    let open = true;
    try {
      await writeText(descriptor, text);
      if (fsync) fs.fsyncSync(descriptor);
      open = false;
      fs.closeSync(descriptor);
      // rename replaces a planted symlink itself; it never writes through it.
      fs.renameSync(temporaryPath, finalPath);
    } catch (error) {
      if (open) {
        try {
          fs.closeSync(descriptor);
        } catch {
          // nothing more to do
        }
      }
      try {
        fs.unlinkSync(temporaryPath);
      } catch {
        // nothing to clean up
      }
      throw error;
    }
    return finalPath;
  }

  return {
    async save(directory, fileName, text, knownByteLength) {
      if (fileName !== path.basename(fileName) || fileName.startsWith('.')) {
        throw new StoreError(`refusing file name ${JSON.stringify(fileName)}`, 'EINVAL');
      }
      const byteLength = knownByteLength ?? Buffer.byteLength(text, 'utf8');
      ensurePrivateDirectory(path.dirname(directory));
      ensurePrivateDirectory(directory);
      removeStaleTemporaryFiles(directory);
      try {
        const saved = await writeAtomically(directory, fileName, text, byteLength);
        // A write is a use of the folder, even when the file was already there (retention).
        if (fs.utimesSync) touchSessionFolder(directory, fs as ActivityFileSystem);
        return saved;
      } catch (error) {
        // The folder may have been removed since it was checked (gc, a person): check it again once.
        if ((error as { code?: string }).code !== 'ENOENT') throw error;
        checkedDirectories.delete(directory);
        checkedDirectories.delete(path.dirname(directory));
        ensurePrivateDirectory(path.dirname(directory));
        ensurePrivateDirectory(directory);
        return await writeAtomically(directory, fileName, text, byteLength);
      }
    },
  };
}
