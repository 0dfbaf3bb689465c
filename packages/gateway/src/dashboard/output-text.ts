/**
 * Reading an offloaded output for the dashboard: found, confined and opened by core, as
 * `read_tool_output` opens it (only a regular file with one link directly inside the session's
 * `tool-outputs/` folder; no `..`, no link leading out, no FIFO that would block the open, the
 * opened descriptor checked to be where the path led), and read in bounded slices: a page asks
 * for the next slice by byte offset. A slice never ends in the middle of a UTF-8 character, so
 * slices put together are the file's exact text.
 */
import { openToolOutputFile, type ToolOutputAccess } from '@toolmask/core/storage';
import type { OutputSlice } from './api-types.js';

/** Bytes per slice. */
export const OUTPUT_SLICE_BYTES = 1024 * 1024;

/** Bytes read for a preview, and lines kept of them. */
const PREVIEW_BYTES = 600;
const PREVIEW_LINES = 6;

async function openConfined(file: string, access: ToolOutputAccess) {
  const handle = await openToolOutputFile(file, access);
  try {
    return { handle, size: (await handle.stat()).size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** A UTF-8 continuation byte (10xxxxxx). */
function isContinuation(byte: number | undefined): boolean {
  return ((byte ?? 0) & 0xc0) === 0x80;
}

/** The end of a slice moved back to the start of a UTF-8 character (a character has at most three continuation bytes). */
function characterBoundary(buffer: Buffer, end: number): number {
  let boundary = end;
  while (boundary > end - 3 && boundary > 0 && isContinuation(buffer[boundary])) boundary--;
  return boundary;
}

/** The slice of `file` from byte `offset`; throws core's `ToolOutputReadError` when refused. */
export async function readOutputSlice(
  file: string,
  access: ToolOutputAccess,
  offset = 0,
  sliceBytes = OUTPUT_SLICE_BYTES,
): Promise<OutputSlice> {
  const { handle, size } = await openConfined(file, access);
  try {
    const start = Math.min(Math.max(0, Math.floor(offset)), size);
    // Three bytes more than the slice, to see where the next character starts.
    const buffer = Buffer.alloc(Math.min(sliceBytes + 3, size - start));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    let length = Math.min(bytesRead, sliceBytes);
    if (start + length < size) {
      const boundary = characterBoundary(buffer, length);
      if (boundary > 0) {
        length = boundary;
      } else {
        // A slice smaller than its first character takes that character whole.
        length = 1;
        while (length < bytesRead && isContinuation(buffer[length])) length++;
      }
    }
    return {
      file,
      offset: start,
      nextOffset: start + length,
      bytes: size,
      text: buffer.subarray(0, length).toString('utf8'),
      truncated: start + length < size,
    };
  } finally {
    await handle.close();
  }
}

/** The first lines of `file`, for a list. */
export async function readOutputPreview(file: string, access: ToolOutputAccess): Promise<string> {
  const slice = await readOutputSlice(file, access, 0, PREVIEW_BYTES);
  return slice.text.split('\n').slice(0, PREVIEW_LINES).join('\n');
}
