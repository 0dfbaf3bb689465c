/**
 * `GET /api/events`: a server-sent event stream that says `change` when new figures may be there
 * (the page then asks the API again), and a comment every 15 s so proxies keep it open. Changes
 * are coalesced: at most one event per `minIntervalMs`. A stream holds no request open in the
 * gateway's count: `closeAll()` ends every stream when the server stops, and the browser's
 * EventSource reconnects to the next one on its own.
 *
 * Each stream is its viewer's (issue 33, finding 11): a change of an owner's figures reaches the
 * streams of that owner and of whoever reads everything, nobody else's; and each viewer holds at
 * most `MAX_STREAMS_PER_VIEWER` streams. A viewer who proved nothing (a team's provider key the
 * provider never accepted: anyone can make one up) takes streams from a pool of its own,
 * `MAX_UNPROVEN_STREAMS` for all of them, so strangers with made-up keys cannot take the place of
 * a person who proved who they are.
 */
import type { ServerResponse } from 'node:http';

/**
 * Who watches a stream: an owner, or undefined for whoever reads everything; `proven: false` for
 * an owner who proved nothing yet (server/tenancy.ts, `Tenancy.proven`).
 */
export type Viewer = { owner?: string; proven?: boolean };

export interface ChangeFeed {
  /** Takes over the response as an event stream of `viewer`'s changes. */
  attach(response: ServerResponse, viewer?: Viewer): void;
  /** New figures may be there: `owner`'s, or anyone's when undefined. */
  notify(owner?: string): void;
  closeAll(): void;
  readonly clients: number;
}

const HEARTBEAT_MS = 15_000;
/** Upper bound of open streams (each is one socket). */
export const MAX_CLIENTS = 512;
/** Streams one viewer may hold (a few browser tabs). */
export const MAX_STREAMS_PER_VIEWER = 4;
/** Streams all viewers who proved nothing may hold together, out of `MAX_CLIENTS`. */
export const MAX_UNPROVEN_STREAMS = 64;

/** Whether `viewer` may open no more streams: the feed's, their own or the unproven pool's. */
function full(streams: Map<ServerResponse, Viewer>, viewer: Viewer): boolean {
  if (streams.size >= MAX_CLIENTS) return true;
  let theirs = 0;
  let unproven = 0;
  for (const held of streams.values()) {
    if (held.owner === viewer.owner) theirs += 1;
    if (held.proven === false) unproven += 1;
  }
  if (theirs >= MAX_STREAMS_PER_VIEWER) return true;
  return viewer.proven === false && unproven >= MAX_UNPROVEN_STREAMS;
}

export function createChangeFeed(options: { minIntervalMs?: number } = {}): ChangeFeed {
  const minIntervalMs = options.minIntervalMs ?? 500;
  const streams = new Map<ServerResponse, Viewer>();
  let pending: NodeJS.Timeout | undefined;
  /** Owners changed since the last event; `everyone` after a change of no owner's. */
  let changed = new Set<string>();
  let everyone = false;
  let lastSentAt = 0;
  let heartbeat: NodeJS.Timeout | undefined;

  function send(text: string, to: (viewer: Viewer) => boolean = () => true) {
    for (const [stream, viewer] of streams) if (to(viewer)) stream.write(text);
  }
  function sendChange() {
    pending = undefined;
    lastSentAt = Date.now();
    const owners = changed;
    const all = everyone;
    changed = new Set();
    everyone = false;
    send(
      `event: change\ndata: {}\n\n`,
      (viewer) => all || viewer.owner === undefined || owners.has(viewer.owner),
    );
  }
  function stopHeartbeatWhenIdle() {
    if (streams.size === 0 && heartbeat) {
      clearInterval(heartbeat);
      heartbeat = undefined;
    }
  }

  return {
    get clients() {
      return streams.size;
    },
    attach(response, viewer = {}) {
      if (full(streams, viewer)) {
        response
          .writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '5' })
          .end('too many dashboard streams\n');
        return;
      }
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      // The browser reconnects after 2 s when the stream ends (a restart).
      response.write('retry: 2000\n\n');
      streams.set(response, viewer);
      response.on('close', () => {
        streams.delete(response);
        stopHeartbeatWhenIdle();
      });
      heartbeat ??= setInterval(() => send(': keep-alive\n\n'), HEARTBEAT_MS).unref();
    },
    notify(owner) {
      if (streams.size === 0) return;
      if (owner === undefined) everyone = true;
      else changed.add(owner);
      if (pending) return;
      const wait = Math.max(0, lastSentAt + minIntervalMs - Date.now());
      pending = setTimeout(sendChange, wait).unref();
    },
    closeAll() {
      if (pending) clearTimeout(pending);
      pending = undefined;
      for (const stream of streams.keys()) stream.end();
      streams.clear();
      stopHeartbeatWhenIdle();
    },
  };
}
