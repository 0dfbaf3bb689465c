/**
 * The whole content of an open file, read to at most `maxBytes`: undefined when there is more
 * (one byte more is asked for, so a file that grew since it was measured is caught too).
 */
import type { FileHandle } from 'node:fs/promises';

export async function readUpTo(handle: FileHandle, maxBytes: number): Promise<Buffer | undefined> {
  const buffer = Buffer.allocUnsafe(maxBytes + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
    if (length > maxBytes) return undefined;
  }
  return Buffer.from(buffer.subarray(0, length));
}
