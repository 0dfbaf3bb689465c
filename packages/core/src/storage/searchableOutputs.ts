/**
 * The saved outputs a `search_tool_outputs` call may look at, newest first: those of the current
 * session and of the conversation's earlier sessions, and, when `allowOtherSessions`, every
 * session folder of the project — the same folders `read_tool_output` may read (outputArgument.ts) —
 * and another host's saved outputs under `hostOutputRoots` (hostOutputs.ts).
 * Only names the store writes are listed (outputLayout.ts); each is opened later through the
 * reader's own checks (outputAccess.ts), so a link or a swapped folder is refused there as for a
 * read.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseOutputFileName, sessionIdOfFolder } from './outputLayout.js';
import { placeOf, type ToolOutputAccess } from './outputArgument.js';
import { listHostOutputs } from './hostOutputs.js';
import { listedFiles } from './listedFiles.js';

export interface SearchableOutput {
  /**
   * `session-<id>/<name>`, or a host output's absolute path: the form `read_tool_output` takes,
   * and the answer shows.
   */
  name: string;
  /** When it was written (newer outputs rank first among equal matches). */
  mtimeMs: number;
  /** Its size when listed (sizes the read buffers of a small output). */
  bytes: number;
}

async function readFolder(folder: string): Promise<string[]> {
  try {
    return await fs.readdir(folder);
  } catch {
    return [];
  }
}

/** The folders a search may look in, the conversation's first. */
async function searchableFolders(access: ToolOutputAccess): Promise<string[]> {
  const place = placeOf(access);
  if (!access.allowOtherSessions) return place.conversation;
  const others = (await readFolder(place.root))
    .filter((name) => sessionIdOfFolder(name) !== undefined)
    .map((name) => path.join(place.root, name))
    .filter((folder) => !place.conversation.includes(folder));
  return [...place.conversation, ...others];
}

/**
 * Every output the search may open, newest first, and how many there were: at most `limit` are
 * returned. A folder or file that vanishes while listed is left out.
 */
export async function listSearchableOutputs(
  access: ToolOutputAccess,
  limit: number,
): Promise<{ outputs: SearchableOutput[]; total: number }> {
  const outputs: SearchableOutput[] = [];
  for (const folder of await searchableFolders(access)) {
    const names = (await readFolder(folder)).filter((name) => parseOutputFileName(name));
    outputs.push(
      ...(await listedFiles(folder, names, (name) => `${path.basename(folder)}/${name}`)),
    );
  }
  // Another host's saved outputs (Claude Code's persisted outputs), by their absolute path.
  outputs.push(...(await listHostOutputs(access.hostOutputRoots)));
  // Newest first; the name breaks ties so the order is the same run after run.
  outputs.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? -1 : 1));
  return { outputs: outputs.slice(0, limit), total: outputs.length };
}
