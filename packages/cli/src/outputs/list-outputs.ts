/**
 * The offloaded outputs of one project temp dir: `tool-outputs/session-<id>/*.txt`, plus loose
 * `tool-outputs/*.txt` (gemini-cli writes there when it has no session id). Symlinks and hidden
 * files (unfinished writes) are skipped. Tool and call id come from toolmask's file names
 * (core's layout module); files other writers named (gemini-cli's own masking) show neither.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { outputsRoot, parseOutputFileName, sessionIdOfFolder } from '@toolmask/core/storage';

export interface OffloadedOutputEntry {
  /** Session id (folder name without `session-`); empty for loose files. */
  session: string;
  file: string;
  name: string;
  /** Empty for a file toolmask did not write. */
  tool: string;
  /** Empty for a file toolmask did not write. */
  callId: string;
  /** Named by toolmask (core's layout); false: another writer's file (gemini-cli's). */
  byToolmask: boolean;
  bytes: number;
  modifiedMs: number;
}

/** A session id given with or without the `session-` prefix. */
export function sessionIdOf(value: string): string {
  return sessionIdOfFolder(value) ?? value;
}

async function readEntries(directory: string) {
  try {
    return await fs.readdir(directory, { withFileTypes: true });
  } catch {
    return [];
  }
}

async function outputsIn(directory: string, session: string): Promise<OffloadedOutputEntry[]> {
  const outputs: OffloadedOutputEntry[] = [];
  for (const entry of await readEntries(directory)) {
    if (!entry.isFile() || entry.name.startsWith('.') || !entry.name.endsWith('.txt')) continue;
    const file = path.join(directory, entry.name);
    let stats;
    try {
      stats = await fs.lstat(file);
    } catch {
      continue; // removed between readdir and lstat (gc, another process)
    }
    const parsed = parseOutputFileName(entry.name);
    outputs.push({
      session,
      file,
      name: entry.name,
      tool: parsed?.tool ?? '',
      callId: parsed?.callId ?? '',
      byToolmask: parsed !== undefined,
      bytes: stats.size,
      modifiedMs: stats.mtimeMs,
    });
  }
  return outputs;
}

export async function listOffloadedOutputs(
  projectTempDir: string,
  filter: { session?: string } = {},
): Promise<OffloadedOutputEntry[]> {
  const root = outputsRoot(projectTempDir);
  const wanted = filter.session === undefined ? undefined : sessionIdOf(filter.session);
  const outputs: OffloadedOutputEntry[] = [];
  if (wanted === undefined) outputs.push(...(await outputsIn(root, '')));
  for (const entry of await readEntries(root)) {
    const session = entry.isDirectory() ? sessionIdOfFolder(entry.name) : undefined;
    if (session === undefined) continue;
    if (wanted !== undefined && session !== wanted) continue;
    outputs.push(...(await outputsIn(path.join(root, entry.name), session)));
  }
  return outputs.sort(
    (left, right) =>
      left.session.localeCompare(right.session) ||
      left.modifiedMs - right.modifiedMs ||
      left.name.localeCompare(right.name),
  );
}
