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

/** Bytes read for a preview, and lines kept of them (past a client's header: `clientHeaderEnd`). */
const PREVIEW_BYTES = 600;
const PREVIEW_LINES = 6;
/** Room for the header Codex puts before a command's output. */
const HEADER_BYTES = 400;

/**
 * The header lines Codex (0.169 to 0.171) puts before a shell command's output: `Chunk ID: …`,
 * `Wall time: … seconds`, `Process exited with code N` (or `Exit code: N`), `Original token
 * count: N`, then `Output:`. A preview of them tells a person nothing about the command.
 */
const CLIENT_HEADER_LINE =
  /^(?:Chunk ID: \S+|Wall time: [\d.]+ seconds|Process exited with code -?\d+|Exit code: -?\d+|Original token count: \d+|Process running with session ID \S+)$/;

/** The number of leading lines of `text` that are such a header (with its `Output:` line), or 0. */
export function clientHeaderEnd(lines: readonly string[]): number {
  let count = 0;
  while (count < lines.length && CLIENT_HEADER_LINE.test(lines[count] as string)) count++;
  if (count === 0) return 0;
  return lines[count] === 'Output:' ? count + 1 : count;
}

/** `text` without a client's header before the output (clientHeaderEnd). */
export function withoutClientHeader(text: string): string {
  const lines = text.split('\n');
  return lines.slice(clientHeaderEnd(lines)).join('\n');
}

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

/** The first lines of `file`, for a list: a client's header before them is left out. */
export async function readOutputPreview(file: string, access: ToolOutputAccess): Promise<string> {
  const slice = await readOutputSlice(file, access, 0, PREVIEW_BYTES + HEADER_BYTES);
  const lines = slice.text.split('\n');
  return lines.slice(clientHeaderEnd(lines)).slice(0, PREVIEW_LINES).join('\n');
}
