/**
 * A request body read whole, bounded twice: by the largest body accepted (`limitBytes`) and by the
 * room the gateway's in-flight budget gives it (`room`: pipeline/request-bounds.ts); and the answer
 * to a request whose body is not read to its end (too large, or no room), given so that the client
 * gets it.
 *
 * Closing a connection while its client is still sending makes the client's system answer the
 * next bytes with a reset, which can throw away an answer the client has not read yet: a client
 * uploading 500 MB chunked saw a reset instead of the 413. So the answer is written whole (with
 * `connection: close` and its length), and the rest of the upload is read and thrown away, as a web
 * server's lingering close does, until it ends or for at most `DRAIN_MS` and `DRAIN_BYTES`, and
 * only then is the connection closed. Nothing thrown away is kept: it costs no memory, but reading
 * it costs time on the event loop, hence the bound on bytes: long enough for a client to read an
 * answer that came while it was still sending (16 MiB take milliseconds on loopback, a second at
 * 100 Mbit/s), short of reading whole uploads that are refused (twelve 49 MiB bodies sent again
 * after each 503 would have the gateway read and throw away 500 MB a second).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { eventLoopPauser } from '@toolmask/core/utils';

/** How long, and how many bytes, the rest of a refused upload is read and thrown away at most. */
export const DRAIN_MS = 5_000;
export const DRAIN_BYTES = 16 * 1024 * 1024;

/** What holds the bytes read (a reservation of the in-flight budget). */
export interface BodyRoom {
  /** Room for `totalBytes` in all; false when there is none. */
  holdUpTo(totalBytes: number): boolean;
}

export type BodyRead =
  | { kind: 'read'; body: Buffer }
  /** Past `limitBytes`: nothing kept, the rest unread (answer with `answerUnread`). */
  | { kind: 'too-large' }
  /** No room in the budget: nothing kept, the rest unread (answer with `answerUnread`). */
  | { kind: 'no-room' };

/** The body's declared length, when it has one (a chunked body has none). */
function declaredLength(request: IncomingMessage): number | undefined {
  const header = request.headers['content-length'];
  if (header === undefined) return undefined;
  const length = Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/**
 * Reads the body whole; stops at the first chunk past `limitBytes` or that `room` has no room
 * for, and leaves the rest unread (the request paused). A body that declares its length is
 * refused for it before any byte is read, and its room held for it then (`holdAhead`); without
 * `holdAhead` (a caller who proved nothing: a declared length costs nothing to send) its room is
 * held as its bytes come, as a chunked body's. Rejects when the client goes away.
 */
export function readBody(
  request: IncomingMessage,
  limitBytes: number,
  room: BodyRoom,
  holdAhead = true,
): Promise<BodyRead> {
  const declared = declaredLength(request);
  if (declared !== undefined && declared > limitBytes) {
    return Promise.resolve({ kind: 'too-large' });
  }
  const ahead = holdAhead ? declared : undefined;
  if (ahead !== undefined && !room.holdUpTo(ahead)) {
    return Promise.resolve({ kind: 'no-room' });
  }
  return new Promise((resolve, reject) => {
    // A body whose room is held ahead is copied into one buffer as it comes: no chunks kept, no
    // second copy of the whole at its end. Any other is joined.
    let whole = ahead !== undefined ? Buffer.allocUnsafe(ahead) : undefined;
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      const refusal =
        total > limitBytes ? 'too-large' : room.holdUpTo(total) ? undefined : 'no-room';
      if (!refusal && whole && total <= whole.length) {
        chunk.copy(whole, total - chunk.length);
        return;
      }
      if (!refusal) {
        // Longer than declared (Node's parser never gives that): joined like a chunked one.
        if (whole) chunks.push(whole.subarray(0, total - chunk.length));
        whole = undefined;
        chunks.push(chunk);
        return;
      }
      stop();
      request.pause();
      chunks.length = 0;
      resolve({ kind: refusal });
    };
    const onEnd = () => {
      stop();
      if (whole) {
        resolve({ kind: 'read', body: total === whole.length ? whole : whole.subarray(0, total) });
        return;
      }
      joinChunks(chunks, total).then((body) => resolve({ kind: 'read', body }), reject);
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      reject(new Error('the client closed the connection before its request body ended'));
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}

/**
 * The chunks read, as one buffer, copied chunk by chunk with the event loop given turns between
 * stretches: one `Buffer.concat` of a 49 MiB body (the first touch of its pages included) held the
 * loop for 20 to 46 ms, while twelve uploads were under way.
 */
async function joinChunks(chunks: readonly Buffer[], total: number): Promise<Buffer> {
  if (chunks.length === 1) return chunks[0] as Buffer;
  const body = Buffer.allocUnsafe(total);
  const pause = eventLoopPauser();
  let offset = 0;
  for (const chunk of chunks) {
    offset += chunk.copy(body, offset);
    if (pause.due()) await pause();
  }
  return body;
}

/** An answer the gateway gives itself. */
export interface OwnAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Answers a request whose body was not read to its end: the answer whole, with
 * `connection: close`; then the rest of the upload is thrown away until it ends, or `DRAIN_MS` or
 * `DRAIN_BYTES` have passed, and the connection is closed (the module comment says why).
 */
export function answerUnread(
  request: IncomingMessage,
  response: ServerResponse,
  answer: OwnAnswer,
): void {
  const payload = Buffer.from(answer.body);
  response.writeHead(answer.status, {
    ...answer.headers,
    'content-length': String(payload.length),
    connection: 'close',
  });
  if (request.complete || request.destroyed) {
    response.end(payload);
    return;
  }
  // The answer is whole (its length says so) but not ended: ending it closes the connection.
  response.write(payload);
  let thrownAway = 0;
  const onData = (chunk: Buffer) => {
    thrownAway += chunk.length;
    if (thrownAway > DRAIN_BYTES) close();
  };
  const close = () => {
    clearTimeout(deadline);
    request.off('data', onData);
    request.off('end', close);
    request.off('error', close);
    request.off('close', close);
    // Whatever still comes is dropped with the connection.
    request.resume();
    if (!response.destroyed) response.end();
  };
  const deadline = setTimeout(close, DRAIN_MS);
  deadline.unref();
  request.on('data', onData);
  request.on('end', close);
  request.on('error', close);
  request.on('close', close);
  request.resume();
}
