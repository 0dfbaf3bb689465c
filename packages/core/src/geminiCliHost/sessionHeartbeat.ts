/**
 * The heartbeat of a running installation (storage/sessionActivity.ts): the liveness marker of
 * every session folder of its conversation is refreshed every `HEARTBEAT_MS` on an unref'd timer
 * (it never keeps a host alive), and after each pass that offloaded something (a folder may be
 * new). Retention in any process never removes a folder while its marker is fresh. On uninstall
 * the markers are removed: from then on the folders age from their last use.
 */
import { HEARTBEAT_MS, refreshLiveMarker, removeLiveMarker } from '../storage/sessionActivity.js';
import { safeCall } from '../utils/safeCall.js';

export class SessionHeartbeat {
  private readonly timer: NodeJS.Timeout;

  constructor(
    /** The conversation's session folders (they may not exist yet). */
    private readonly folders: () => readonly string[],
    intervalMs = HEARTBEAT_MS,
  ) {
    this.timer = setInterval(() => this.beat(), intervalMs);
    this.timer.unref();
    this.beat();
  }

  /** Refreshes every marker now. Never throws. */
  beat(): void {
    for (const folder of safeCall(this.folders) ?? []) refreshLiveMarker(folder);
  }

  /** Stops the timer and removes the markers. Never throws. */
  stop(): void {
    clearInterval(this.timer);
    for (const folder of safeCall(this.folders) ?? []) removeLiveMarker(folder);
  }
}
