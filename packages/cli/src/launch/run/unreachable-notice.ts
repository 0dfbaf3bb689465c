/**
 * An unreachable upstream said while the client still runs (issue 35). The gateway answers a
 * request whose upstream cannot be reached with a 502, and the clients retry that on their own
 * for minutes (Claude Code's `-p` about three), silent meanwhile when headless. So the launcher
 * asks its gateway's figures (`GET /api/summary`, the run's) every second while the client runs,
 * and says the first unreachable request once:
 *
 * - headless (`claude -p`, `codex exec`, stderr not a terminal): one line on stderr, where only
 *   the client's own output goes;
 * - a full-screen UI: the terminal title, since a line would be drawn over. The title is the
 *   launcher's for the run (each client's own is turned off, but OpenCode's: docs/cli.md), and
 *   the clients' screens show their retries themselves. The exit line, `toolmask status`, the
 *   dashboard and gateway.log name the upstream in every case.
 */
import { fetchUsageSummary } from './usage-summary.js';
import type { RunGateway } from './run-figures.js';

/** How often the run's figures are asked while the client runs. */
const POLL_INTERVAL_MS = 1_000;

export interface UnreachableWatch {
  gateway: RunGateway;
  /** The launch's session id: a reused gateway's figures for this run. */
  sessionId: string;
  /** The gateway is the run's own: all its figures are the run's. */
  privateGateway: boolean;
  /** Called once, at the first request whose upstream could not be reached. */
  notice(upstream: string): void;
  /** For tests. @default 1000 */
  intervalMs?: number;
}

/** The line said on stderr when the client runs headless. */
export function unreachableLine(client: string, upstream: string): string {
  return `toolmask: the upstream ${upstream} could not be reached: ${client} got 502 and may retry on its own for minutes (gateway.log has each failure; Ctrl-C stops the run)`;
}

/** The terminal title when the client draws a full-screen UI (launch-client.ts `launchTitle`). */
export function unreachableTitle(client: string, upstream: string, gatewayUrl: string): string {
  return `toolmask ${client} · upstream ${upstream} unreachable · dashboard ${gatewayUrl}`;
}

/** Starts asking; the function returned stops it (a question in flight is let finish). */
export function watchUnreachable(watch: UnreachableWatch): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const ask = async () => {
    const answer = await fetchUsageSummary(watch.gateway, watch.sessionId);
    if (stopped) return;
    const figures = answer.ok
      ? watch.privateGateway
        ? answer.summary.gateway
        : answer.summary.session
      : undefined;
    // An older gateway does not count them (undefined).
    if (figures && figures.unreachable > 0) {
      stopped = true;
      watch.notice(figures.unreachableUpstream ?? 'of the run');
      return;
    }
    schedule();
  };
  const schedule = () => {
    timer = setTimeout(() => void ask(), watch.intervalMs ?? POLL_INTERVAL_MS);
    // Never what keeps the launcher alive.
    timer.unref();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
