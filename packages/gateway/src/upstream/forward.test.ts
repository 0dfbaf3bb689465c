/**
 * What `forward` hands the client, upstream played by an undici MockAgent: the answer's bytes and
 * headers as upstream sent them (encoding and length included, nothing decoded), cookies one per
 * header, no redirect followed, a rewritten JSON answer with its own length.
 */
import * as http from 'node:http';
import { gzipSync } from 'node:zlib';
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { PiecedBody } from '../body/pieced-body.js';
import { forward, type ForwardResult } from './forward.js';

const cleanups = cleanUpAfterEach();
const ORIGIN = 'https://upstream.example';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A gateway-like server that forwards every request through `upstream`, and one request to it. */
async function through(
  upstream: MockAgent,
  options: { rewriteJson?: (value: unknown) => unknown; timings?: Record<string, number> } = {},
): Promise<{ answer: Answer; results: ForwardResult[]; unreachable: unknown[] }> {
  const results: ForwardResult[] = [];
  const unreachable: unknown[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void forward({
        url: `${ORIGIN}${request.url}`,
        method: request.method ?? 'GET',
        headers: request.headers,
        body: Buffer.concat(chunks),
        response,
        signal: new AbortController().signal,
        dispatcher: upstream,
        ...options,
        onUnreachable: (error) => {
          unreachable.push(error);
          response.writeHead(502).end();
        },
      }).then((result) => results.push(result));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as { port: number };
  const answer = await new Promise<Answer>((resolve, reject) => {
    const sent = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1/x', agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end('{"q":1}');
  });
  return { answer, results, unreachable };
}

function mockUpstream(): MockAgent {
  const upstream = new MockAgent({ enableCallHistory: true });
  upstream.disableNetConnect();
  cleanups.push(() => upstream.close());
  return upstream;
}

describe('forward', () => {
  it('passes an encoded answer byte for byte, with its encoding, length and every cookie', async () => {
    const upstream = mockUpstream();
    const gzipped = gzipSync(Buffer.from('{"answer":"ok"}'));
    upstream
      .get(ORIGIN)
      .intercept({ path: '/v1/x', method: 'POST' })
      .reply(200, gzipped, {
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': String(gzipped.length),
          'set-cookie': ['a=1; Path=/', 'b=2; Path=/'],
          'keep-alive': 'timeout=5',
          vary: ['Origin', 'X-Origin'],
        },
      });
    const { answer, results } = await through(upstream);
    expect(answer.status).toBe(200);
    expect(answer.body.equals(gzipped)).toBe(true);
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers['content-length']).toBe(String(gzipped.length));
    expect(answer.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(answer.headers['vary']).toBe('Origin, X-Origin');
    expect(answer.headers['keep-alive']).toBeUndefined();
    expect(results).toEqual([expect.objectContaining({ status: 200, outcome: 'complete' })]);
    const sent = upstream.getCallHistory()?.firstCall();
    expect(sent?.headers).toMatchObject({ 'accept-encoding': 'identity' });
    // The body goes out as the Buffer it was: undici records it as such, not a copy in a string.
    expect(Buffer.isBuffer(sent?.body) && String(sent?.body)).toBe('{"q":1}');
  });

  it("adds the gateway's phases to the upstream's own Server-Timing header", async () => {
    const upstream = mockUpstream();
    upstream
      .get(ORIGIN)
      .intercept({ path: '/v1/x', method: 'POST' })
      .reply(200, '{}', { headers: { 'server-timing': 'model;dur=812' } });
    const { answer } = await through(upstream, { timings: { read: 1, mask: 2 } });
    expect(answer.headers['server-timing']).toMatch(
      /^model;dur=812, read;dur=1\.00, mask;dur=2\.00, upstream;dur=\d+\.\d\d$/,
    );
  });

  it('follows no redirect: the client gets the 3xx and its location', async () => {
    const upstream = mockUpstream();
    upstream
      .get(ORIGIN)
      .intercept({ path: '/v1/x', method: 'POST' })
      .reply(302, '', { headers: { location: `${ORIGIN}/elsewhere` } });
    const { answer } = await through(upstream);
    expect(answer.status).toBe(302);
    expect(answer.headers['location']).toBe(`${ORIGIN}/elsewhere`);
    expect(upstream.getCallHistory()?.calls()).toHaveLength(1);
  });

  it('a rewritten JSON answer goes out with its new length; an encoded one untouched', async () => {
    const rewriteJson = (value: unknown) => ({ ...(value as object), rewritten: true });
    const upstream = mockUpstream();
    upstream
      .get(ORIGIN)
      .intercept({ path: '/v1/x', method: 'POST' })
      .reply(200, '{"a":1}', {
        headers: { 'content-type': 'application/json', 'content-length': '7' },
      });
    const plain = await through(upstream, { rewriteJson });
    expect(plain.answer.body.toString()).toBe('{"a":1,"rewritten":true}');
    expect(plain.answer.headers['content-length']).toBe(String(plain.answer.body.length));

    const gzipped = gzipSync(Buffer.from('{"a":1}'));
    upstream
      .get(ORIGIN)
      .intercept({ path: '/v1/x', method: 'POST' })
      .reply(200, gzipped, {
        headers: { 'content-encoding': 'gzip', 'content-length': String(gzipped.length) },
      });
    const encoded = await through(upstream, { rewriteJson });
    expect(encoded.answer.body.equals(gzipped)).toBe(true);
    expect(encoded.answer.headers['content-encoding']).toBe('gzip');
  });

  it('a body in pieces reaches a real upstream as the same bytes, under its declared length', async () => {
    const received: Array<{ headers: http.IncomingHttpHeaders; body: Buffer }> = [];
    const listening = async (handler: http.RequestListener) => {
      const server = http.createServer(handler);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
      return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    };
    const readAll = (request: http.IncomingMessage) =>
      new Promise<Buffer>((resolve) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => resolve(Buffer.concat(chunks)));
      });
    const upstreamUrl = await listening((request, response) => {
      void readAll(request).then((body) => {
        received.push({ headers: request.headers, body });
        response.end('ok');
      });
    });
    const pieces = [Buffer.from('{"a":"'), Buffer.alloc(40_000, 'x'), Buffer.from('é"}')];
    const whole = Buffer.concat(pieces);
    const gatewayUrl = await listening((request, response) => {
      void readAll(request).then(() =>
        forward({
          url: `${upstreamUrl}/v1/x`,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          body: new PiecedBody(pieces, whole.length),
          response,
          signal: new AbortController().signal,
          onUnreachable: () => response.writeHead(502).end(),
        }),
      );
    });
    const answer = await fetch(gatewayUrl, { method: 'POST', body: '{}' });
    expect(await answer.text()).toBe('ok');
    expect(received).toHaveLength(1);
    expect(received[0]!.body.equals(whole)).toBe(true);
    expect(received[0]!.headers['content-length']).toBe(String(whole.length));
    expect(received[0]!.headers['transfer-encoding']).toBeUndefined();
  });

  it('an upstream that cannot be reached: onUnreachable writes the answer', async () => {
    const upstream = mockUpstream();
    const { answer, results, unreachable } = await through(upstream);
    expect(answer.status).toBe(502);
    expect(unreachable).toHaveLength(1);
    expect(results).toEqual([{ status: 0, outcome: 'unreachable' }]);
  });
});
