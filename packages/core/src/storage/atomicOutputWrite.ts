/**
 * Writing one output file all or nothing: the text goes to a temporary name in the same folder
 * (`.<final name>.<pid>.<unique>.tmp`, created with `O_EXCL` and 0600, so it never opens an
 * existing file or follows a planted symlink), then is renamed over the final name (a rename
 * replaces a symlink planted there, never writes through it). A final name therefore never holds
 * a partial file; on any failure the temporary file is removed and the descriptor closed exactly
 * once. The name is content-addressed, so a private copy of the same size already there is the
 * same text and is reused. A giant text is written in UTF-8 chunks, with the event loop given a
 * turn between them.
 */
import { randomBytes } from 'node:crypto';
import type * as nodeFs from 'node:fs';
import * as path from 'node:path';
import { eventLoopPauser } from '../utils/eventLoop.js';
import { UTF8_CHUNK_UNITS, utf8Chunks } from '../utils/utf8Chunks.js';

/** The calls of `node:fs` a write makes. */
export type WriteFileSystem = Pick<
  typeof nodeFs,
  'lstatSync' | 'openSync' | 'writeSync' | 'fsyncSync' | 'closeSync' | 'renameSync' | 'unlinkSync'
>;

/** Random once per process (random bytes per file showed up in profiles); a counter does the rest. */
const TEMPORARY_NAME_PREFIX = randomBytes(4).toString('hex');
let temporaryCounter = 0;

/** Our temporary names (see `writeOutputAtomically`): `.<final name>.<pid>.<unique>.tmp`. */
export const TEMPORARY_NAME = /^\..+\.txt\.\d+\.[0-9a-f]+\.tmp$/;

/** A private copy of `byteLength` bytes already at `finalPath` (the same text: the same name). */
function existingCopy(fs: WriteFileSystem, finalPath: string, byteLength: number): boolean {
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
function writeAll(fs: WriteFileSystem, descriptor: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) {
    written += fs.writeSync(descriptor, bytes, written, bytes.length - written);
  }
}

/**
 * The text's bytes into an open file: at once when small; a giant text chunk by chunk
 * (utils/utf8Chunks.ts, no copy of the whole), giving the event loop a turn between chunks.
 */
async function writeText(fs: WriteFileSystem, descriptor: number, text: string): Promise<void> {
  if (text.length <= UTF8_CHUNK_UNITS) {
    writeAll(fs, descriptor, Buffer.from(text, 'utf8'));
    return;
  }
  const pause = eventLoopPauser();
  for (const chunk of utf8Chunks(text)) {
    writeAll(fs, descriptor, chunk);
    await pause();
  }
}

/**
 * Writes `text` (`byteLength` bytes of UTF-8) to `directory/fileName` all or nothing (see the
 * module comment); fsync before the rename when `fsync`. Returns the final path.
 */
export async function writeOutputAtomically(
  fs: WriteFileSystem,
  directory: string,
  fileName: string,
  text: string,
  byteLength: number,
  fsync: boolean,
): Promise<string> {
  const finalPath = path.resolve(directory, fileName);
  // Content-addressed: the same name means the same text (the hash is in the name).
  if (existingCopy(fs, finalPath, byteLength)) return finalPath;
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
    await writeText(fs, descriptor, text);
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
