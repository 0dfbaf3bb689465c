/**
 * When a session folder of offloaded outputs was last used, and whether its session is still
 * running: what retention (and `toolmask outputs gc`) decide by (retention.ts).
 *
 * - **Use.** Writing an output, or reading one back, touches the folder (its modification time),
 *   so a folder ages from its last use, not from when it was made. Touching is best effort: a
 *   failure never fails a write or a read.
 * - **Liveness.** A running installation keeps a marker file (`session-<id>.live` beside the
 *   folder, outputLayout.ts) for each session folder of its conversation and refreshes it every
 *   `HEARTBEAT_MS`. A folder
 *   whose marker is younger than `LIVE_WINDOW_MS` is live and never expired, however long the
 *   session has been idle. A process that dies stops refreshing it: its folder is live for at
 *   most `LIVE_WINDOW_MS` more, then ages from its last use like any other; one that ends
 *   cleanly removes its markers.
 */
import * as nodeFs from 'node:fs';
import { liveMarkerOf } from './outputLayout.js';

/** How often a running installation refreshes its markers. */
export const HEARTBEAT_MS = 5 * 60_000;
/** A marker older than this belongs to a session that is gone (six missed heartbeats). */
export const LIVE_WINDOW_MS = 30 * 60_000;

export type ActivityFileSystem = Pick<
  typeof nodeFs,
  'utimesSync' | 'openSync' | 'closeSync' | 'lstatSync' | 'unlinkSync'
>;

/** Marks `folder` as used now (a write or a read-back). Never throws. */
export function touchSessionFolder(folder: string, fs: ActivityFileSystem = nodeFs): void {
  try {
    const now = new Date();
    fs.utimesSync(folder, now, now);
  } catch {
    // Missing or foreign folder: nothing to mark.
  }
}

/**
 * Creates or refreshes the liveness marker of an existing session folder. Never throws; a folder
 * that does not exist (yet) is left alone: there is nothing to keep.
 */
export function refreshLiveMarker(folder: string, fs: ActivityFileSystem = nodeFs): void {
  try {
    const stats = fs.lstatSync(folder);
    if (!stats.isDirectory() || stats.isSymbolicLink()) return;
    const marker = liveMarkerOf(folder);
    // 'a' never truncates, never fails on an existing file; O_NOFOLLOW: not through a link.
    const descriptor = fs.openSync(
      marker,
      nodeFs.constants.O_WRONLY | nodeFs.constants.O_CREAT | (nodeFs.constants.O_NOFOLLOW ?? 0),
      0o600,
    );
    fs.closeSync(descriptor);
    const now = new Date();
    fs.utimesSync(marker, now, now);
  } catch {
    // Best effort: a missed heartbeat costs nothing before LIVE_WINDOW_MS.
  }
}

/** Removes the liveness marker of a folder (the session ended cleanly). Never throws. */
export function removeLiveMarker(folder: string, fs: ActivityFileSystem = nodeFs): void {
  try {
    fs.unlinkSync(liveMarkerOf(folder));
  } catch {
    // Already gone.
  }
}

/** Whether a running session keeps `folder` (its marker is fresh at `nowMs`). */
export async function isSessionLive(folder: string, nowMs: number): Promise<boolean> {
  try {
    const stats = await nodeFs.promises.lstat(liveMarkerOf(folder));
    return stats.isFile() && nowMs - stats.mtimeMs < LIVE_WINDOW_MS;
  } catch {
    return false;
  }
}
