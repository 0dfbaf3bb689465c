/**
 * Which offloaded output a `read_tool_output` `file` argument names, checked as written, before
 * anything is looked at on disk but folder listings: the `file` attribute of a snippet (absolute,
 * or the real form of the temp dir's path mapped back), a bare file name or
 * `session-<id>/<name>`, or a call id (the one output of the conversation, or of the project when
 * allowed, that carries it). `..` is refused, and the path must be directly inside a readable
 * session folder: the current session's, the conversation's earlier sessions', and, when
 * `allowOtherSessions`, any `session-*` folder of the project.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  isOutputOfCall,
  outputsRoot,
  sessionDirectory,
  sessionFolderName,
  sessionIdOfFolder,
} from './outputLayout.js';
import { ToolOutputReadError, USE_SNIPPET_PATH, describeArgument } from './toolOutputReadError.js';

/** Where the outputs of the current session are, and what else may be read. */
export interface ToolOutputAccess {
  projectTempDir: string;
  sessionId: string;
  allowOtherSessions: boolean;
  /**
   * Earlier session ids of the same conversation (before a host rotated the session id, as
   * gemini-cli-core's `config.rotateSessionId` does): their outputs are as readable as the
   * current session's.
   */
  earlierSessionIds?: readonly string[];
  /**
   * Another host's saved-output folders, read and searched beside toolmask's: Claude Code's
   * `projects` folder, whose `<project>/<session>/tool-results/` files its `<persisted-output>`
   * previews name (hostOutputs.ts). A person's own gateway gives it; absent, nothing else is read.
   */
  hostOutputRoots?: readonly string[];
}

function hasParentSegment(file: string): boolean {
  return file.split(/[\\/]+/).some((segment) => segment === '..');
}

/** The folders a read may use, by where they are on disk (as the store writes them). */
export interface Place {
  root: string;
  current: string;
  /** The current folder and the conversation's earlier ones, newest first. */
  conversation: string[];
}

export function placeOf(access: ToolOutputAccess): Place {
  const root = path.resolve(outputsRoot(access.projectTempDir));
  const current = path.resolve(sessionDirectory(access.projectTempDir, access.sessionId));
  const earlier = [...(access.earlierSessionIds ?? [])]
    .reverse()
    .map((id) => path.join(root, sessionFolderName(id)));
  return { root, current, conversation: [...new Set([current, ...earlier])] };
}

async function filesForCallId(folder: string, callId: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(folder);
  } catch {
    return [];
  }
  return names
    .filter((name) => isOutputOfCall(name, callId))
    .sort()
    .map((name) => path.join(folder, name));
}

async function otherSessionFolders(place: Place): Promise<string[]> {
  try {
    const entries = await fs.readdir(place.root, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory() && sessionIdOfFolder(entry.name) !== undefined)
      .map((entry) => path.join(place.root, entry.name))
      .filter((folder) => !place.conversation.includes(folder));
  } catch {
    return [];
  }
}

/** A call id: the one output of the conversation (or, when allowed, the project) that carries it. */
async function resolveCallId(callId: string, place: Place, access: ToolOutputAccess) {
  let found: string[] = [];
  // The newest session of the conversation that has it wins: a call id is unique per session.
  for (const folder of place.conversation) {
    found = await filesForCallId(folder, callId);
    if (found.length > 0) break;
  }
  if (found.length === 0 && access.allowOtherSessions) {
    for (const folder of await otherSessionFolders(place)) {
      found = found.concat(await filesForCallId(folder, callId));
    }
  }
  if (found.length === 1) return found[0] as string;
  if (found.length === 0) {
    throw new ToolOutputReadError(
      'NOT_FOUND',
      `no offloaded output for ${describeArgument(callId)} in this session; pass the exact file path from the snippet's file="..." attribute.`,
    );
  }
  throw new ToolOutputReadError(
    'INVALID_PARAMS',
    `${describeArgument(callId)} matches ${found.length} outputs; pass one of these paths as file: ${found.join(', ')}`,
  );
}

/**
 * A path given in its real form (symlinks of the temp dir resolved, e.g. macOS `/private/var/...`
 * for `/var/...`) is mapped back onto `root` as the snippets write it; anything else as it is.
 */
async function asWrittenUnder(root: string, projectTempDir: string, candidate: string) {
  if (candidate.startsWith(`${root}${path.sep}`)) return candidate;
  try {
    const realRoot = outputsRoot(await fs.realpath(projectTempDir));
    if (realRoot !== root && candidate.startsWith(`${realRoot}${path.sep}`)) {
      return path.join(root, path.relative(realRoot, candidate));
    }
  } catch {
    // No temp dir yet: nothing to map.
  }
  return candidate;
}

/** The checks on `argument` as written; returns the path it names (not yet checked on disk). */
export async function candidateOf(argument: string, place: Place, access: ToolOutputAccess) {
  if (hasParentSegment(argument)) {
    throw new ToolOutputReadError(
      'OUTSIDE',
      `".." is not allowed in file: ${USE_SNIPPET_PATH} (this session's outputs are in ${place.current}).`,
    );
  }
  let candidate: string;
  if (path.isAbsolute(argument)) {
    candidate = await asWrittenUnder(place.root, access.projectTempDir, path.resolve(argument));
  } else if (!/[\\/]/.test(argument)) {
    candidate = argument.endsWith('.txt')
      ? path.join(place.current, argument)
      : await resolveCallId(argument, place, access);
  } else {
    // `session-<id>/<name>.txt`: relative to the tool-outputs folder.
    candidate = path.resolve(place.root, argument);
  }
  const folder = path.dirname(candidate);
  const inProject =
    path.dirname(folder) === place.root && sessionIdOfFolder(path.basename(folder)) !== undefined;
  if (!inProject) {
    throw new ToolOutputReadError(
      'OUTSIDE',
      `${candidate} is not an offloaded tool output of this session: read_tool_output only reads files in ${place.current}; ${USE_SNIPPET_PATH}.`,
    );
  }
  if (!place.conversation.includes(folder) && !access.allowOtherSessions) {
    throw new ToolOutputReadError(
      'OTHER_SESSION',
      `${candidate} belongs to another session (${path.basename(folder)}); reading other sessions' outputs is off (setting experimental.toolOutputMasking.allowOtherSessions). Only files in ${place.current} can be read.`,
    );
  }
  return { candidate, folder };
}
