/**
 * Whole-line appends to the state folder's JSON Lines files (decisions, usage days), which a
 * crash mid-append may leave with a torn last line: part of a line, no new line after it. An
 * append to a file known torn starts on a new line; glued to the torn line, its first line would
 * be skipped with it at every read. A file is known torn from a read of it, or from an append of
 * this process that failed (part of its lines may be written).
 */
import { promises as fs } from 'node:fs';
import { appendLines } from '@toolmask/core/storage';

/** Whether JSON Lines text ends with part of a line. */
export function endsTorn(text: string): boolean {
  return text.length > 0 && !text.endsWith('\n');
}

/** Whether `file` exists and its last byte is not a new line (it reads that byte alone). */
export async function fileEndsTorn(file: string): Promise<boolean> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, 'r');
    const { size } = await handle.stat();
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}

export class TornLineAppends {
  private readonly torn = new Set<string>();

  /** `root`: the state folder, whose links the appends refuse (core's privateFiles.ts). */
  constructor(private readonly root: string) {}

  markTorn(file: string): void {
    this.torn.add(file);
  }

  /** Forgets `file` (removed). */
  forget(file: string): void {
    this.torn.delete(file);
  }

  /** Appends `lines` (each ending with a new line), made on the event loop's thread. */
  async append(file: string, lines: string): Promise<void> {
    const torn = this.torn.has(file);
    try {
      await appendLines(file, (torn ? '\n' : '') + lines, { root: this.root, calls: 'inline' });
    } catch (error) {
      this.torn.add(file);
      throw error;
    }
    this.torn.delete(file);
  }
}
