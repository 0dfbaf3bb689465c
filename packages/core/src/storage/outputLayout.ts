/**
 * The on-disk layout of offloaded outputs, the one place that knows it:
 *
 *   <projectTempDir>/tool-outputs/session-<sessionId>/<tool>.<callId>.<hash16>.txt
 *   <projectTempDir>/tool-outputs/session-<sessionId>.live   (while the session runs)
 *
 * The store writes these names, the reader finds outputs by them, retention and the CLI list them.
 *
 * Each name component is sanitized to `[A-Za-z0-9_-]` (runs of anything else, and runs of `_`,
 * become one `_`), bounded in length, never empty. So a component never holds a dot: the dots
 * between components make a name parse back unambiguously (tool names and call ids both contain
 * `_`), and no name can be `.`, `..`, hidden, or leave its folder. The hash (the first 16 hex
 * digits of the SHA-256 of the saved text) makes a name content-addressed: saving the same output
 * again finds the same file.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { eventLoopPauser } from '../utils/eventLoop.js';
import { digestOf } from '../utils/oneShotDigest.js';
import { UTF8_CHUNK_UNITS, utf8Chunks } from '../utils/utf8Chunks.js';
import { TOOL_OUTPUTS_DIR } from './outputFolderName.js';

export { TOOL_OUTPUTS_DIR };
export const SESSION_FOLDER_PREFIX = 'session-';
/** Beside a session folder, `session-<id>.live`: refreshed while its session runs (sessionActivity.ts). */
export const LIVE_MARKER_SUFFIX = '.live';

const MAX_NAME_COMPONENT = 48;
const HASH_LENGTH = 16;
/** Device names Windows reserves whatever the extension; a component equal to one gets a `_`. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/**
 * Whether `text` is its own sanitized form: 1 to `MAX_NAME_COMPONENT` code units of
 * `[A-Za-z0-9_-]`, no `__`. Most tool names and call ids are: they skip the three expressions.
 */
function isCleanComponent(text: string): boolean {
  if (text.length === 0 || text.length > MAX_NAME_COMPONENT) return false;
  let underscore = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 95) {
      if (underscore) return false;
      underscore = true;
      continue;
    }
    underscore = false;
    const alphanumeric =
      (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
    if (!alphanumeric && code !== 45) return false;
  }
  return true;
}

/** Keeps `[A-Za-z0-9_-]`, bounded in length; never empty, never a dot, never a device name. */
export function sanitizeNameComponent(value: unknown, fallback: string): string {
  const text = typeof value === 'string' ? value : '';
  const cleaned = isCleanComponent(text)
    ? text
    : text
        .replace(/[^A-Za-z0-9_-]+/g, '_')
        .slice(0, MAX_NAME_COMPONENT)
        .replace(/_+/g, '_');
  if (cleaned.length === 0) return fallback;
  return WINDOWS_RESERVED.test(cleaned) ? `${cleaned}_` : cleaned;
}

/** SHA-256 of the UTF-8 text, hex. */
export function hashText(text: string): string {
  return digestOf('sha256', text, 'hex');
}

/**
 * `hashText`, for any size: a giant text is hashed chunk by chunk (utils/utf8Chunks.ts), giving
 * the event loop a turn between chunks (200 MB: ~150 ms of work, never more than ~20 ms at once).
 */
export async function hashTextInChunks(text: string): Promise<string> {
  if (text.length <= UTF8_CHUNK_UNITS) return hashText(text);
  const hash = createHash('sha256');
  const pause = eventLoopPauser();
  for (const chunk of utf8Chunks(text)) {
    hash.update(chunk);
    await pause();
  }
  return hash.digest('hex');
}

/** `<tool>.<callId>.<hash16>.txt` for an output whose text has the SHA-256 `hash` (hex). */
export function outputFileNameOfHash(toolName: unknown, callId: unknown, hash: string): string {
  const tool = sanitizeNameComponent(toolName, 'tool');
  const id = sanitizeNameComponent(callId, 'call');
  return `${tool}.${id}.${hash.slice(0, HASH_LENGTH)}.txt`;
}

/** `<tool>.<callId>.<hash16>.txt` for an output of `toolName` with `callId` whose full text is `text`. */
export function outputFileName(toolName: unknown, callId: unknown, text: string): string {
  return outputFileNameOfHash(toolName, callId, hashText(text));
}

export interface OutputFileName {
  /** Sanitized tool name. */
  tool: string;
  /** Sanitized call id. */
  callId: string;
  /** First 16 hex digits of the SHA-256 of the text. */
  hash: string;
}

const OUTPUT_FILE_NAME = new RegExp(
  `^([A-Za-z0-9_-]+)\\.([A-Za-z0-9_-]+)\\.([0-9a-f]{${HASH_LENGTH}})\\.txt$`,
);

/** The parts of a name `outputFileName` wrote; undefined for any other name. */
export function parseOutputFileName(fileName: string): OutputFileName | undefined {
  const match = OUTPUT_FILE_NAME.exec(fileName);
  if (!match) return undefined;
  return { tool: match[1] as string, callId: match[2] as string, hash: match[3] as string };
}

/**
 * Whether `fileName` is an output of the call `callId` (compared as the name stores it). The id
 * may also be the one the model saw: gemini-cli-core keeps a call's id as `<tool>__<id>` in its
 * history (that is what the name stores) and sends the bare `<id>` to the model.
 */
export function isOutputOfCall(fileName: string, callId: unknown): boolean {
  const parsed = parseOutputFileName(fileName);
  if (!parsed) return false;
  const id = sanitizeNameComponent(callId, 'call');
  return parsed.callId === id || parsed.callId === `${parsed.tool}_${id}`;
}

/** `session-<id>`, the id sanitized like file names so a strange session id cannot escape either. */
export function sessionFolderName(sessionId: unknown): string {
  return `${SESSION_FOLDER_PREFIX}${sanitizeNameComponent(sessionId, 'unknown')}`;
}

/** The session id of a folder name `session-<id>`; undefined for any other name. */
export function sessionIdOfFolder(folderName: string): string | undefined {
  return folderName.startsWith(SESSION_FOLDER_PREFIX) &&
    folderName.length > SESSION_FOLDER_PREFIX.length
    ? folderName.slice(SESSION_FOLDER_PREFIX.length)
    : undefined;
}

/** `<projectTempDir>/tool-outputs`. */
export function outputsRoot(projectTempDir: string): string {
  return path.join(projectTempDir, TOOL_OUTPUTS_DIR);
}

/**
 * The liveness marker of a session folder: beside it, not in it, so that making or removing it is
 * not a use of the folder (whose modification time is).
 */
export function liveMarkerOf(sessionFolder: string): string {
  return `${sessionFolder}${LIVE_MARKER_SUFFIX}`;
}

/** `<projectTempDir>/tool-outputs/session-<id>`. */
export function sessionDirectory(projectTempDir: string, sessionId: unknown): string {
  return path.join(outputsRoot(projectTempDir), sessionFolderName(sessionId));
}
