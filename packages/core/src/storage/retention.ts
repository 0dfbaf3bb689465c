/**
 * Retention of offloaded outputs: session folders under `<projectTempDir>/tool-outputs/` not used
 * for longer than a limit are removed, never the folder of a session that is still running. The
 * one rule, shared by the installation (at install time, in the background, `retentionDays`) and
 * the CLI (`toolmask outputs gc`). A folder's last use is its newest write or read-back (both
 * touch the folder); a running session keeps a fresh marker in it (sessionActivity.ts).
 *
 * Only direct `session-*` children that are real folders are candidates (a symlink is never
 * followed, whatever it points to); the `tool-outputs` folder itself must be a real folder; each
 * candidate is checked to resolve directly inside it right before it is removed; sessions named
 * in `keepSessions` (the current one) are never removed. Nothing outside `tool-outputs/` is touched.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describeError } from '../utils/safeCall.js';
import { outputsRoot, sessionFolderName, sessionIdOfFolder } from './outputLayout.js';
import { isSessionLive } from './sessionActivity.js';
export const DAY_MS = 86_400_000;

export interface SessionFolder {
  /** Folder name, `session-<id>`. */
  name: string;
  path: string;
  files: number;
  bytes: number;
  /**
   * Last use: the newest modification time of the folder (touched by writes and read-backs) or
   * anything in it (links not followed).
   */
  newestMs: number;
}

export interface FindExpiredOptions {
  /** Session ids (as given to the store; sanitized the same way) that are never expired. */
  keepSessions?: readonly string[];
}

async function measure(directory: string): Promise<Omit<SessionFolder, 'name' | 'path'>> {
  const own = await fs.lstat(directory);
  let files = 0;
  let bytes = 0;
  let newestMs = own.mtimeMs;
  for (const entry of await fs.readdir(directory, { withFileTypes: true })) {
    const entryPath = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      const inner = await measure(entryPath);
      files += inner.files;
      bytes += inner.bytes;
      newestMs = Math.max(newestMs, inner.newestMs);
    } else {
      // lstat: a link counts with its own time and size, never its target's.
      const stats = await fs.lstat(entryPath);
      files++;
      bytes += stats.size;
      newestMs = Math.max(newestMs, stats.mtimeMs);
    }
  }
  return { files, bytes, newestMs };
}

/** The `tool-outputs` folder when it is a real folder; undefined when missing or a link. */
async function realOutputsRoot(projectTempDir: string): Promise<string | undefined> {
  const root = outputsRoot(projectTempDir);
  try {
    const stats = await fs.lstat(root);
    return stats.isDirectory() && !stats.isSymbolicLink() ? root : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Session folders not used for more than `olderThanMs` at `nowMs` and not live (a running
 * session's marker is fresh), oldest first.
 */
export async function findExpiredSessionFolders(
  projectTempDir: string,
  olderThanMs: number,
  nowMs: number,
  options: FindExpiredOptions = {},
): Promise<SessionFolder[]> {
  const root = await realOutputsRoot(projectTempDir);
  if (!root) return [];
  const keep = new Set((options.keepSessions ?? []).map((id) => sessionFolderName(id)));
  let entries;
  try {
    entries = await fs.readdir(root, { withFileTypes: true });
  } catch {
    return [];
  }
  const expired: SessionFolder[] = [];
  for (const entry of entries) {
    // The Dirent of a symlink says isSymbolicLink, not isDirectory: links are never followed.
    if (!entry.isDirectory() || sessionIdOfFolder(entry.name) === undefined) continue;
    if (keep.has(entry.name)) continue;
    const folder = path.join(root, entry.name);
    if (await isSessionLive(folder, nowMs)) continue;
    try {
      const measured = await measure(folder);
      if (nowMs - measured.newestMs > olderThanMs) {
        expired.push({ name: entry.name, path: folder, ...measured });
      }
    } catch {
      // Removed or changed while being measured: not ours to judge now.
    }
  }
  return expired.sort((left, right) => left.newestMs - right.newestMs);
}

/** Removes one folder found by `findExpiredSessionFolders`, after checking where it really is. */
export async function removeSessionFolder(
  projectTempDir: string,
  folder: SessionFolder,
): Promise<void> {
  const outputs = await realOutputsRoot(projectTempDir);
  if (!outputs) {
    throw new Error(`${outputsRoot(projectTempDir)} is not a plain folder; left alone`);
  }
  const root = await fs.realpath(outputs);
  const stats = await fs.lstat(folder.path);
  const real = await fs.realpath(folder.path);
  if (
    stats.isSymbolicLink() ||
    !stats.isDirectory() ||
    path.dirname(real) !== root ||
    sessionIdOfFolder(path.basename(real)) === undefined
  ) {
    throw new Error(`${folder.path} is not a session folder inside ${root}; left alone`);
  }
  // A session that started meanwhile (a resumed one) keeps its folder.
  if (await isSessionLive(real, Date.now())) {
    throw new Error(`${folder.path} belongs to a running session; left alone`);
  }
  // fs.rm removes links found inside as links; it never follows them.
  await fs.rm(real, { recursive: true, force: true });
}

export interface RetentionReport {
  /** Folders removed (with their size). */
  removed: SessionFolder[];
  /** Folders that should have gone but could not be removed. */
  failed: Array<{ folder: SessionFolder; message: string }>;
  bytesFreed: number;
  durationMs: number;
}

export interface RetentionOptions {
  projectTempDir: string;
  /** 0 (or less) keeps everything. */
  retentionDays: number;
  /** Never removed, whatever their age: the current session (and its conversation's earlier ones). */
  keepSessions?: readonly string[];
  now?: () => number;
}

/** Removes the expired session folders of a project (see the module comment). Never throws. */
export async function applyRetention(options: RetentionOptions): Promise<RetentionReport> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const report: RetentionReport = { removed: [], failed: [], bytesFreed: 0, durationMs: 0 };
  if (!(options.retentionDays > 0)) return report;
  let expired: SessionFolder[];
  try {
    expired = await findExpiredSessionFolders(
      options.projectTempDir,
      options.retentionDays * DAY_MS,
      startedAt,
      { keepSessions: options.keepSessions },
    );
  } catch {
    expired = [];
  }
  for (const folder of expired) {
    try {
      await removeSessionFolder(options.projectTempDir, folder);
      report.removed.push(folder);
      report.bytesFreed += folder.bytes;
    } catch (error) {
      report.failed.push({
        folder,
        message: describeError(error),
      });
    }
  }
  report.durationMs = now() - startedAt;
  return report;
}
