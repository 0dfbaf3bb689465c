/**
 * The session folders one store writes into: each created 0700 when missing and checked once to
 * be a plain folder (a symlink planted as a folder is refused, `ENOTDIR`; a folder others can read
 * is made private), and checked again when a write finds it gone (removed by gc or a person).
 * Once per folder, the temporary files a killed pass left behind are removed: only ours (by
 * name) and only old ones, so another process's write in progress is never disturbed; this is
 * best effort and never fails a save.
 */
import type * as nodeFs from 'node:fs';
import * as path from 'node:path';
import { TEMPORARY_NAME } from './atomicOutputWrite.js';
import { StoreError } from './storeError.js';

/** The calls of `node:fs` the folders' checks make; without `readdirSync`, no clean-up. */
export type FolderFileSystem = Pick<
  typeof nodeFs,
  'mkdirSync' | 'lstatSync' | 'chmodSync' | 'unlinkSync'
> &
  Partial<Pick<typeof nodeFs, 'readdirSync'>>;

export class StoreFolders {
  private readonly swept = new Set<string>();
  /** Folders already checked by this store; dropped and re-checked when a write cannot find one. */
  private readonly checked = new Set<string>();

  constructor(
    private readonly fs: FolderFileSystem,
    private readonly staleTemporaryFileMs: number,
  ) {}

  /** A session folder and its parent, private and plain (checked once), and swept once. */
  prepare(directory: string): void {
    this.ensurePrivateDirectory(path.dirname(directory));
    this.ensurePrivateDirectory(directory);
    this.removeStaleTemporaryFiles(directory);
  }

  /** A folder a write could not find: forgotten, then created and checked again. */
  recheck(directory: string): void {
    this.checked.delete(directory);
    this.checked.delete(path.dirname(directory));
    this.ensurePrivateDirectory(path.dirname(directory));
    this.ensurePrivateDirectory(directory);
  }

  /** Creates the folder 0700 if needed and refuses one that is a symlink or not a folder. */
  private ensurePrivateDirectory(directory: string): void {
    if (this.checked.has(directory)) return;
    this.fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    const stats = this.fs.lstatSync(directory);
    if (stats.isSymbolicLink() || !stats.isDirectory()) {
      throw new StoreError(`${directory} is not a plain directory (symlink refused)`, 'ENOTDIR');
    }
    if ((Number(stats.mode) & 0o077) !== 0) this.fs.chmodSync(directory, 0o700);
    this.checked.add(directory);
  }

  /**
   * Once per folder and store: removes the temporary files a killed pass left behind. Only ours
   * (by name) and only old ones, so another process's write in progress is never disturbed.
   * Best effort: a failure here never fails a save.
   */
  private removeStaleTemporaryFiles(directory: string): void {
    if (this.swept.has(directory) || !this.fs.readdirSync) return;
    this.swept.add(directory);
    try {
      const now = Date.now();
      for (const name of this.fs.readdirSync(directory)) {
        if (typeof name !== 'string' || !TEMPORARY_NAME.test(name)) continue;
        const file = path.join(directory, name);
        try {
          const stats = this.fs.lstatSync(file);
          if (stats.isFile() && now - Number(stats.mtimeMs) >= this.staleTemporaryFileMs) {
            this.fs.unlinkSync(file);
          }
        } catch {
          // removed meanwhile
        }
      }
    } catch {
      // unreadable folder: the save itself will say what is wrong
    }
  }
}
