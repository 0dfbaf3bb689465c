/**
 * A body over the limit is answered 413 and the client gets that answer (issue 21, hole 11): a
 * chunked upload far past the limit saw a connection reset instead, the request destroyed as soon
 * as the limit was passed.
 */
import * as http from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { gatewayFixture, startTestGateway } from '../test-utils/gemini-client.js';
import { readBody } from './read-body.js';

const cleanups = cleanUpAfterEach();

const MODEL = '/v1beta/models/m:streamGenerateContent?alt=sse';

interface Upload {
  /** The answer, when one came. */
  status?: number;
  headers?: http.IncomingHttpHeaders;
  text?: string;
  /** Bytes the client wrote before it stopped. */
  sent: number;
  /** What cut the upload short, if anything did before the answer came. */
  errorBeforeAnswer?: string;
}

/**
 * Uploads `totalBytes` of a JSON-looking body in `chunkBytes` chunks, chunked, with backpressure,
 * as node:http sends a body of unknown length; stops writing once an answer has come, unless
 * `naive` (a client that reads the answer only when it has sent everything).
 */
function chunkedUpload(
  url: string,
  totalBytes: number,
  { naive = false, chunkBytes = 64 * 1024 } = {},
): Promise<Upload> {
  const request = http.request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
  });
  const result: Upload = { sent: 0 };
  let answered = false;
  let failed = false;
  const chunk = Buffer.alloc(chunkBytes, 'x');
  return new Promise<Upload>((resolve) => {
    request.on('response', (response) => {
      answered = true;
      result.status = response.statusCode;
      result.headers = response.headers;
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (piece: string) => (text += piece));
      response.on('end', () => resolve({ ...result, text }));
      response.on('error', () => resolve({ ...result, text }));
    });
    request.on('error', (error) => {
      failed = true;
      if (!answered) {
        result.errorBeforeAnswer = (error as NodeJS.ErrnoException).code ?? error.message;
        resolve(result);
      }
    });
    const pump = () => {
      while ((naive || !answered) && !failed && result.sent < totalBytes) {
        result.sent += chunk.length;
        if (!request.write(result.sent === chunk.length ? '{"contents":[' : chunk)) {
          request.once('drain', pump);
          return;
        }
      }
      if (!failed && (naive || !answered)) request.end();
    };
    pump();
  });
}

async function gatewayWithLimit(maxBodyBytes: number) {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const upstream = await startFakeUpstream(() => geminiAnswer([{ text: 'ok' }]));
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: upstream.url },
    maxBodyBytes,
  });
  cleanups.push(() => running.close());
  return { upstream, running, url: `${running.url}${MODEL}` };
}

function expectTooLarge(upload: Upload) {
  expect(upload.errorBeforeAnswer).toBeUndefined();
  expect(upload.status).toBe(413);
  expect(upload.headers?.connection).toBe('close');
  expect(JSON.parse(upload.text ?? '')).toMatchObject({
    error: { code: 413, reason: 'BODY_TOO_LARGE' },
  });
}

describe('a body over the limit', () => {
  it('a chunked upload far past the limit gets the 413, with connection: close', async () => {
    const { upstream, running, url } = await gatewayWithLimit(64 * 1024);
    const upload = await chunkedUpload(url, 64 * 1024 * 1024);
    expectTooLarge(upload);
    expect(upload.sent).toBeLessThan(64 * 1024 * 1024);
    expect(upstream.requests).toHaveLength(0);
    // The gateway goes on.
    const after = await fetch(`${running.url}${MODEL}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(after.status).toBe(200);
    await after.text();
  });

  it('a client that goes on sending gets the 413 too; the rest is thrown away, then the connection closed', async () => {
    const { upstream, url } = await gatewayWithLimit(64 * 1024);
    const upload = await chunkedUpload(url, 200 * 1024 * 1024, { naive: true });
    expectTooLarge(upload);
    // Cut short: the gateway read no more than DRAIN_BYTES after its answer.
    expect(upload.sent).toBeLessThan(200 * 1024 * 1024);
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('a body read whole', () => {
  const pieces = Array.from({ length: 300 }, (_, index) =>
    Buffer.from(`${index}:${'é'.repeat(index % 50)};`),
  );
  const length = Buffer.concat(pieces).length;
  // Declared: copied into one buffer as it comes; a length that is not the body's (Node's
  // parser never lets one through) still gives the bytes that came.
  it.each([
    ['chunked', {}],
    ['declared', { 'content-length': String(length) }],
    ['declared short', { 'content-length': String(length - 10) }],
    ['declared long', { 'content-length': String(length + 10) }],
  ])('is joined from its chunks byte for byte, however many there are (%s)', async (_, headers) => {
    const request = new PassThrough() as unknown as http.IncomingMessage;
    Object.assign(request, { headers });
    const reading = readBody(request, 1024 * 1024, { holdUpTo: () => true });
    for (const piece of pieces) (request as unknown as PassThrough).write(piece);
    (request as unknown as PassThrough).end();
    const read = await reading;
    expect(read.kind).toBe('read');
    expect(read.kind === 'read' && read.body.equals(Buffer.concat(pieces))).toBe(true);
  });
});
