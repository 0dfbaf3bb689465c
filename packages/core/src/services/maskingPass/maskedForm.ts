/**
 * The masked form of one output: the name its full text is saved under (content-addressed: the
 * tool, the call id and a hash of the text), its size in bytes and lines, and the snippet that
 * stands in for it (a preview of its kind, the superseded note when there is one, the read-back
 * call). Nothing is written here. Its header comes first (`outputHeader`): with it the pass can
 * tell most outputs not worth a snippet before their preview is built (snippetFloor.ts).
 * Each step over a giant text (hash, size, line count, preview) takes tens of ms, so the event
 * loop gets a turn between them.
 */
import * as path from 'node:path';
import type { OutputRef } from '../maskingPlan.js';
import type { Content, Part } from '../maskingTypes.js';
import { formatMaskedSnippet } from '../maskedSnippet.js';
import { findToolCall, type PreviewFamily } from '../previews/index.js';
import { supersededNote } from '../superseded/supersession.js';
import type { PreviewLimits } from '../previewLimits.js';
import { buildPreview } from '../toolOutputPreview.js';
import { hashTextInChunks, outputFileNameOfHash } from '../../storage/outputLayout.js';
import { countLinesInSlices } from '../../utils/textLines.js';
import { eventLoopPauser, yieldToEventLoop } from '../../utils/eventLoop.js';
import { UTF8_CHUNK_UNITS, utf8LengthInSlices } from '../../utils/utf8Chunks.js';

/** The output being masked, as the history holds it. */
export interface OutputToMask {
  toolName: string;
  callId: string;
  functionResponse: NonNullable<Part['functionResponse']>;
  response: Record<string, unknown>;
  /** Its full text (savedText.ts). */
  text: string;
}

/** How previews are built: the knobs of the design (`MaskingTuning`). */
export interface PreviewSettings {
  previewLimits: PreviewLimits;
  previewFamily: PreviewFamily;
}

export interface MaskedForm {
  fileName: string;
  /** Where the full text will be, as the snippet names it. */
  filePath: string;
  bytes: number;
  /** The response that replaces the output's: `{ output: snippet }`. */
  response: { output: string };
}

/** What the snippet's header says of an output, known before its preview: file, size, lines. */
export interface OutputHeader {
  fileName: string;
  filePath: string;
  bytes: number;
  lines: number;
}

/**
 * The name `output` is saved under, its UTF-8 size and its line count, the event loop given turns
 * over a giant text.
 */
export async function outputHeader(output: OutputToMask, directory: string): Promise<OutputHeader> {
  const { toolName, callId, text } = output;
  // Each step over a giant text (hash, size, line count, preview) takes tens of ms: the event
  // loop gets a turn between them, and one first (the planning just ran).
  if (text.length > UTF8_CHUNK_UNITS) await yieldToEventLoop();
  const pause = eventLoopPauser();
  const fileName = outputFileNameOfHash(toolName, callId, await hashTextInChunks(text));
  const filePath = pathIn(directory, fileName);
  const bytes = await utf8LengthInSlices(text, pause);
  const lines = await countLinesInSlices(text, pause);
  return { fileName, filePath, bytes, lines };
}

/** The last absolute directory resolved, and its resolved form: a pass's outputs share one. */
let resolvedDirectory: { directory: string; resolved: string } | undefined;

/**
 * `path.resolve(directory, fileName)` for a file name of `outputFileNameOfHash` (one segment, no
 * separator, never `.` or `..`): the directory resolved once per pass, not once per output
 * (a walk of every character of the path in JavaScript). A relative directory depends on the
 * working directory of the moment, so it is resolved every time.
 */
function pathIn(directory: string, fileName: string): string {
  if (!path.isAbsolute(directory)) return path.resolve(directory, fileName);
  if (resolvedDirectory?.directory !== directory) {
    resolvedDirectory = { directory, resolved: path.resolve(directory) };
  }
  const { resolved } = resolvedDirectory;
  return resolved.endsWith(path.sep)
    ? `${resolved}${fileName}`
    : `${resolved}${path.sep}${fileName}`;
}

/** The masked form of `output`, the `ref` of `history`, under `header` (see the module comment). */
export async function maskedForm(
  history: readonly Content[],
  ref: OutputRef,
  output: OutputToMask,
  header: OutputHeader,
  target: {
    readToolName: string | undefined;
    searchToolName: string | undefined;
  },
  settings: PreviewSettings,
): Promise<MaskedForm> {
  const { functionResponse, response, text, toolName } = output;
  const { fileName, filePath, bytes, lines } = header;
  const pause = eventLoopPauser();
  // The call that produced the output tells a preview what kind it is and what was asked for.
  const call =
    settings.previewFamily === 'by-kind'
      ? findToolCall(history, ref.contentIndex, functionResponse)
      : undefined;
  const preview = buildPreview(toolName, response, text, settings.previewLimits, {
    ...(call ? { call } : {}),
    family: settings.previewFamily,
  });
  await pause();
  const note = supersessionNote(ref);
  const snippet = formatMaskedSnippet(
    { lines, bytes, filePath, preview, ...(note ? { note } : {}) },
    target.readToolName,
    target.searchToolName,
  );
  return { fileName, filePath, bytes, response: { output: snippet } };
}

/** The line before the preview when the output was superseded. */
export function supersessionNote(ref: OutputRef): string | undefined {
  return ref.superseded ? supersededNote(ref.superseded) : undefined;
}
