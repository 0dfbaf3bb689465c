/**
 * Which offloaded output a `read_tool_output` argument names, and opening it so that nothing
 * outside the session's folder can ever be read (docs/reliability.md, guarantee 3).
 *
 * Naming: the `file` attribute of a snippet (as written, or with its entities decoded: the model
 * may copy either), a bare file name or `session-<id>/<name>`, or a call id. Readable folders are
 * the current session's, the conversation's earlier sessions' (a host that rotated its session id
 * keeps the conversation), and, when `allowOtherSessions`, any `session-*` folder of the project.
 * The argument is checked as written (no NUL, no `..`, directly inside a readable folder).
 *
 * Opening (`openToolOutput`), on Linux, closes the gap between checking a path and reading it:
 * the file is opened with `O_NOFOLLOW | O_NONBLOCK` (a symlink at the name is refused; a FIFO or
 * device cannot block the open), the open descriptor must be a regular file with one link (a
 * hard link to a file elsewhere is refused), and the descriptor's own path (`/proc/self/fd/N`)
 * must be inside the session folder as it really is on disk: a folder swapped for a symlink
 * between the checks and the open is caught after the open, where no later swap can change what
 * is read. Elsewhere (`/proc` missing) the real path is checked just before the open, a smaller
 * window that a same-user process could still race.
 *
 * Another host's saved outputs (Claude Code's persisted outputs, named by their absolute path) are
 * confined the same way under the roots the access gives: hostOutputs.ts.
 *
 * The naming is outputArgument.ts, the errors toolOutputReadError.ts; this file checks what an
 * argument names on disk and opens it.
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { TOOL_OUTPUTS_DIR } from './outputLayout.js';
import { hostOutputPathOf, resolveHostOutput } from './hostOutputs.js';
import { candidateOf, placeOf, type Place, type ToolOutputAccess } from './outputArgument.js';
import {
  ToolOutputReadError,
  USE_SNIPPET_PATH,
  type ToolOutputReadErrorCode,
} from './toolOutputReadError.js';
import { decodeAttribute } from '../utils/attributeEscaping.js';
import { errorCode } from '../utils/safeCall.js';

/** An output to open: its real path, and the real path of the session folder it must be in. */
export interface ResolvedOutput {
  path: string;
  folder: string;
  /** Another host's saved output (hostOutputs.ts): read, never touched. */
  host?: true;
}

/** A real folder (not a symlink); false when missing. Throws when it is something else. */
async function checkRealFolder(folder: string, what: string): Promise<boolean> {
  let stats;
  try {
    stats = await fs.lstat(folder);
  } catch {
    return false;
  }
  if (stats.isSymbolicLink() || !stats.isDirectory()) {
    throw new ToolOutputReadError(
      'OUTSIDE',
      `${what} ${folder} is not a plain folder (a symlink or a file); toolmask does not read through it.`,
    );
  }
  return true;
}

/**
 * The session folder as it really is on disk: the real project temp dir joined with the layout's
 * names, never resolved through `tool-outputs/` or the session folder themselves (either could
 * have been swapped for a link).
 */
async function realSessionFolder(access: ToolOutputAccess, folder: string): Promise<string> {
  const realTempDir = await fs.realpath(access.projectTempDir);
  return path.join(realTempDir, TOOL_OUTPUTS_DIR, path.basename(folder));
}

/** The checks on disk: real folders on the way, the file really inside its folder. */
async function checkOnDisk(
  candidate: string,
  folder: string,
  place: Place,
  access: ToolOutputAccess,
): Promise<ResolvedOutput> {
  const rootExists = await checkRealFolder(place.root, 'the tool-outputs folder');
  const folderExists = rootExists && (await checkRealFolder(folder, 'the session folder'));
  if (!folderExists) {
    const yet = place.conversation.includes(folder) ? ' yet' : '';
    throw new ToolOutputReadError(
      'NOT_FOUND',
      `no offloaded outputs exist in ${folder}${yet}; ${USE_SNIPPET_PATH}.`,
    );
  }
  let real: string;
  let realFolder: string;
  try {
    realFolder = await realSessionFolder(access, folder);
    real = await fs.realpath(candidate);
  } catch (error) {
    if (errorCode(error, '') === 'ENOENT') {
      throw new ToolOutputReadError(
        'NOT_FOUND',
        `${candidate} does not exist: it may have been removed (session folders unused for retentionDays are deleted) or the path is mistyped; ${USE_SNIPPET_PATH}.`,
      );
    }
    throw new ToolOutputReadError('READ_FAILED', `cannot open ${candidate}: ${String(error)}`);
  }
  if (path.dirname(real) !== realFolder) {
    throw new ToolOutputReadError(
      'OUTSIDE',
      `${candidate} is a link that leads outside its session folder; refused.`,
    );
  }
  return { path: real, folder: realFolder };
}

/** Codes after which the decoded form of an argument is worth a try. */
const TRY_DECODED = new Set<ToolOutputReadErrorCode>(['OUTSIDE', 'OTHER_SESSION', 'NOT_FOUND']);

/**
 * The output `file` names, after every check on the argument and on disk (see the module
 * comment). Throws `ToolOutputReadError` with a message for the model.
 */
export async function resolveToolOutput(
  file: string,
  access: ToolOutputAccess,
): Promise<ResolvedOutput> {
  const argument = file.trim();
  if (argument.length === 0 || argument.includes('\0')) {
    throw new ToolOutputReadError(
      'INVALID_PARAMS',
      'file must be the path from the snippet, without NUL characters.',
    );
  }
  const hostOutput = hostOutputPathOf(argument, access.hostOutputRoots);
  if (hostOutput) return resolveHostOutput(hostOutput);
  const place = placeOf(access);
  const resolve = async (text: string) => {
    const { candidate, folder } = await candidateOf(text, place, access);
    return checkOnDisk(candidate, folder, place, access);
  };
  try {
    return await resolve(argument);
  } catch (error) {
    // The attribute as the snippet wrote it, entities and all (`&quot;` for `"`): decode it.
    const decoded = decodeAttribute(argument);
    if (decoded === argument || !(error instanceof ToolOutputReadError)) throw error;
    if (!TRY_DECODED.has(error.code)) throw error;
    try {
      return await resolve(decoded);
    } catch {
      throw error;
    }
  }
}

/** The real path of the output `file` names (see `resolveToolOutput`). */
export async function resolveToolOutputFile(file: string, access: ToolOutputAccess) {
  return (await resolveToolOutput(file, access)).path;
}

/**
 * The output `file` names, found, confined and opened as `read_tool_output` opens it; for other
 * readers (the gateway's dashboard). The caller closes the handle.
 */
export async function openToolOutputFile(file: string, access: ToolOutputAccess) {
  return openToolOutput(await resolveToolOutput(file, access));
}

/** Where `/proc/self/fd/N` says an open descriptor is; undefined without `/proc`. */
async function descriptorPath(handle: FileHandle): Promise<string | undefined> {
  try {
    return await fs.readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Opens an output found by `resolveToolOutput` for reading, and checks what was opened (see the
 * module comment). The caller closes the handle.
 */
export async function openToolOutput(output: ResolvedOutput): Promise<FileHandle> {
  const real = output.path;
  let handle: FileHandle;
  try {
    handle = await fs.open(
      real,
      fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0),
    );
  } catch (error) {
    const code = errorCode(error, '');
    if (code === 'ELOOP') {
      throw new ToolOutputReadError('OUTSIDE', `${real} became a symlink; refused.`);
    }
    if (code === 'EISDIR') {
      throw new ToolOutputReadError('NOT_A_FILE', `${real} is a folder, not an output file.`);
    }
    if (code === 'ENOENT') {
      throw new ToolOutputReadError('NOT_FOUND', `${real} was removed; ${USE_SNIPPET_PATH}.`);
    }
    throw new ToolOutputReadError('READ_FAILED', `cannot open ${real}: ${String(error)}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new ToolOutputReadError(
        'NOT_A_FILE',
        `${real} is ${stats.isDirectory() ? 'a folder' : 'not a regular file'}, not an output file.`,
      );
    }
    if (stats.nlink !== 1) {
      throw new ToolOutputReadError(
        'OUTSIDE',
        `${real} has ${stats.nlink} hard links; an output file toolmask wrote has one. Refused.`,
      );
    }
    // Without /proc, the weaker check: where the path leads just before reading.
    const opened = (await descriptorPath(handle)) ?? (await fs.realpath(real));
    if (path.dirname(opened) !== output.folder) {
      throw new ToolOutputReadError(
        'OUTSIDE',
        `${real} resolved to a file outside its session folder when opened; refused.`,
      );
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
