/**
 * The first line of a file, read without loading the rest (a session file can be hundreds of
 * megabytes), parsed as JSON: how the loader tells the JSON Lines formats apart by content.
 */
import { createReadStream, promises as fs } from 'node:fs';
import { isPlainObject } from '@toolmask/core/utils';

/** A first line longer than this is not a record header of any format read here. */
const MAX_FIRST_LINE = 8 * 1024 * 1024;

export async function readFirstLine(file: string): Promise<string> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  let text = '';
  try {
    for await (const chunk of stream) {
      text += chunk as string;
      const end = text.indexOf('\n');
      if (end !== -1) return text.slice(0, end);
      if (text.length > MAX_FIRST_LINE) break;
    }
    return text;
  } finally {
    stream.destroy();
  }
}

/** The first line as a JSON object, or undefined when it is not one. */
export async function firstLineRecord(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse(await readFirstLine(file));
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The first `bytes` bytes of a file as text (a format's opening, without reading the rest). */
export async function readHead(file: string, bytes = 4096): Promise<string> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
