/**
 * `GET /api/events`: a server-sent event stream that says `change` when new figures may be there
 * (the page then asks the API again), and a comment every 15 s so proxies keep it open. Changes
 * are coalesced: at most one event per `minIntervalMs`. A stream holds no request open in the
 * gateway's count: `closeAll()` ends every stream when the server stops, and the browser's
 * EventSource reconnects to the next one on its own.
 */
import type { ServerResponse } from 'node:http';

export interface ChangeFeed {
  /** Takes over the response as an event stream. */
  attach(response: ServerResponse): void;
  /** New figures may be there. */
  notify(): void;
  closeAll(): void;
  readonly clients: number;
}

const HEARTBEAT_MS = 15_000;
/** Upper bound of open streams (each is one socket). */
const MAX_CLIENTS = 64;

export function createChangeFeed(options: { minIntervalMs?: number } = {}): ChangeFeed {
  const minIntervalMs = options.minIntervalMs ?? 500;
  const streams = new Set<ServerResponse>();
  let pending: NodeJS.Timeout | undefined;
  let lastSentAt = 0;
  let heartbeat: NodeJS.Timeout | undefined;

  function send(text: string) {
    for (const stream of streams) stream.write(text);
  }
  function sendChange() {
    pending = undefined;
    lastSentAt = Date.now();
    send(`event: change\ndata: {}\n\n`);
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
    attach(response) {
      if (streams.size >= MAX_CLIENTS) {
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
      streams.add(response);
      response.on('close', () => {
        streams.delete(response);
        stopHeartbeatWhenIdle();
      });
      heartbeat ??= setInterval(() => send(': keep-alive\n\n'), HEARTBEAT_MS).unref();
    },
    notify() {
      if (pending || streams.size === 0) return;
      const wait = Math.max(0, lastSentAt + minIntervalMs - Date.now());
      pending = setTimeout(sendChange, wait).unref();
    },
    closeAll() {
      if (pending) clearTimeout(pending);
      pending = undefined;
      for (const stream of streams) stream.end();
      streams.clear();
      stopHeartbeatWhenIdle();
    },
  };
}
