/**
 * Follows a telemetry outfile as it grows: each `poll()` reads what was appended since the last
 * one (in bounded chunks, UTF-8 decoded across chunk ends) and hands its JSON values on. A file
 * that shrank or was replaced is read again from the start (`onReset` first).
 */
import { promises as fs } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { ConcatenatedJsonScanner } from './concatenated-json.js';

const CHUNK_BYTES = 1024 * 1024;

export interface OutfileFollower {
  /** Reads what is new; resolves with the number of values read (0: nothing new). */
  poll(): Promise<number>;
  /** Bytes read so far, values that could not be read. */
  readonly bytesRead: number;
  readonly skipped: number;
}

export function followOutfile(
  file: string,
  onValue: (value: unknown) => void,
  onReset: () => void,
): OutfileFollower {
  let offset = 0;
  let inode: number | undefined;
  let decoder = new StringDecoder('utf8');
  let scanner = new ConcatenatedJsonScanner();
  let skippedBefore = 0;
  let polling: Promise<number> | undefined;

  async function readNew(): Promise<number> {
    let stats;
    try {
      stats = await fs.stat(file);
    } catch {
      return 0; // not written yet
    }
    if (stats.size < offset || (inode !== undefined && stats.ino !== inode)) {
      offset = 0;
      decoder = new StringDecoder('utf8');
      skippedBefore += scanner.skipped;
      scanner = new ConcatenatedJsonScanner();
      onReset();
    }
    inode = stats.ino;
    if (stats.size === offset) return 0;
    let values = 0;
    const count = (value: unknown) => {
      values++;
      onValue(value);
    };
    const handle = await fs.open(file, 'r');
    try {
      const buffer = Buffer.alloc(CHUNK_BYTES);
      while (offset < stats.size) {
        const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        scanner.feed(decoder.write(buffer.subarray(0, bytesRead)), count);
      }
    } finally {
      await handle.close();
    }
    return values;
  }

  return {
    poll() {
      // One read at a time: a poll asked for during another waits for it, then reads again.
      const next = (polling ?? Promise.resolve(0)).then(readNew, readNew);
      polling = next;
      return next;
    },
    get bytesRead() {
      return offset;
    },
    get skipped() {
      return skippedBefore + scanner.skipped;
    },
  };
}
