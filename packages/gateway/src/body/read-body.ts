/** Reads a request body whole, refusing one larger than `limitBytes` without reading it all. */
import type { IncomingMessage } from 'node:http';
import { BodyTooLargeError } from '../errors.js';

export async function readBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw new BodyTooLargeError(limitBytes);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limitBytes) {
      // Stop reading; the connection is closed after the error is sent.
      request.destroy();
      throw new BodyTooLargeError(limitBytes);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}
