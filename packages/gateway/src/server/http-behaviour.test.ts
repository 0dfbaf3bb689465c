/**
 * The gateway as an HTTP server: answers stream through as they arrive, a client that goes away
 * aborts the upstream request, tokens and Host names are checked, a port in use and a bind beyond
 * loopback without a token are refused.
 */
import * as http from 'node:http';
import { describe, expect, it } from 'vitest';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  rawRequest,
  startTestGateway,
  ownerFetch,
} from '../test-utils/gemini-client.js';
import { GatewayStartError } from '../errors.js';
import { listenGateway } from '../listen-gateway.js';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { stubConversationStore } from '../test-utils/stub-conversation-store.js';

/** What every client of the gateway says its body is. */
const JSON_TYPE = { 'content-type': 'application/json' };

const cleanups = cleanUpAfterEach();

const MODEL = '/v1beta/models/m:streamGenerateContent?alt=sse';
const BODY = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });

async function slowUpstream(events: number, intervalMs: number) {
  const upstream = await startFakeUpstream(() => {
    const one = (geminiAnswer([{ text: 'tick' }]) as { sse: unknown[] }).sse[0];
    return { sse: Array.from({ length: events }, () => one), intervalMs };
  });
  cleanups.push(() => upstream.close());
  return upstream;
}

async function gateway(upstreamUrl: string, extra: Record<string, unknown> = {}) {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: upstreamUrl },
    ...extra,
  });
  cleanups.push(() => running.close());
  return running;
}

describe('streaming', () => {
  it('the first event reaches the client long before the upstream has finished', async () => {
    const upstream = await slowUpstream(5, 200);
    const running = await gateway(upstream.url);
    const started = Date.now();
    const firstEventAt = await new Promise<number>((resolve, reject) => {
      rawRequest(`${running.url}${MODEL}`, BODY, (response) => {
        response.once('data', () => resolve(Date.now()));
        response.on('error', reject);
        response.resume();
      });
    });
    // Five events 200 ms apart: buffering would deliver the first after about a second.
    expect(firstEventAt - started).toBeLessThan(600);
  });

  it("says where the gateway's time went in a Server-Timing header", async () => {
    const upstream = await slowUpstream(1, 0);
    const running = await gateway(upstream.url);
    const answer = await fetch(`${running.url}${MODEL}`, {
      method: 'POST',
      body: BODY,
      headers: JSON_TYPE,
    });
    await answer.text();
    const timing = answer.headers.get('server-timing') ?? '';
    expect(timing.split(', ').map((entry) => entry.split(';')[0])).toEqual([
      'read',
      'mask',
      'pass',
      'write',
      'upstream',
    ]);
    for (const entry of timing.split(', ')) expect(entry).toMatch(/^[a-z]+;dur=\d+\.\d\d$/);
    // The pass and the write are parts of `mask` (rounded to hundredths each).
    const ms = Object.fromEntries(
      timing.split(', ').map((entry) => [entry.split(';')[0], Number(entry.split('=')[1])]),
    );
    expect(ms['pass']! + ms['write']!).toBeLessThanOrEqual(ms['mask']! + 0.02);
  });

  it('a client that goes away aborts the upstream request', async () => {
    let upstreamClosed = false;
    const upstream = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {}\r\n\r\n');
      response.on('close', () => (upstreamClosed = true));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          upstream.closeAllConnections();
          upstream.close(() => resolve());
        }),
    );
    const address = upstream.address() as { port: number };
    const running = await gateway(`http://127.0.0.1:${address.port}`);
    await new Promise<void>((resolve) => {
      rawRequest(`${running.url}${MODEL}`, BODY, (response, request) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
    });
    await expect.poll(() => upstreamClosed, { timeout: 2_000 }).toBe(true);
  });
  it('a client gone while the pass runs: nothing goes upstream, nothing hangs', async () => {
    const upstream = await slowUpstream(3, 10);
    // A conversation store that takes its time (a first request after a restart loads decisions).
    let loaded = false;
    const slowStore = stubConversationStore({
      load: async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        loaded = true;
        return { decisions: [] };
      },
    });
    const running = await gateway(upstream.url, { stores: { conversations: slowStore } });
    await new Promise<void>((resolve) => {
      const request = rawRequest(`${running.url}${MODEL}`, BODY, () => undefined);
      request.on('error', () => undefined);
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 100);
    });
    await expect.poll(() => loaded, { timeout: 2_000 }).toBe(true);
    await expect.poll(() => running.gateway.inFlight, { timeout: 2_000 }).toBe(0);
    expect(upstream.requests).toHaveLength(0);
  });

  it('the answer ends without waiting for its usage record, and /api/sessions still finds it', async () => {
    const upstream = await slowUpstream(1, 0);
    const records: unknown[] = [];
    let finishWrite = () => undefined as void;
    const writeHeld = new Promise<void>((resolve) => (finishWrite = resolve));
    // A usage store whose write takes as long as the test says.
    const slowUsage = {
      append: async (record: unknown) => {
        await writeHeld;
        records.push(record);
      },
      list: async () => records as never[],
      prune: async () => 0,
    };
    const running = await gateway(upstream.url, { stores: { usage: slowUsage } });
    const answer = await fetch(`${running.url}${MODEL}`, {
      method: 'POST',
      body: BODY,
      headers: JSON_TYPE,
    });
    expect(answer.status).toBe(200);
    await answer.text();
    // The answer has ended and the record is still being written.
    expect(records).toHaveLength(0);
    const sessions = ownerFetch(running, `${running.url}/api/sessions`).then(
      async (response) => (await response.json()) as { sessions: Array<{ requests: number }> },
    );
    setTimeout(finishWrite, 100);
    expect((await sessions).sessions.map((session) => session.requests)).toEqual([1]);
  });

  it('a pass that throws a value that cannot be printed: the request still goes out as it came', async () => {
    const upstream = await slowUpstream(1, 0);
    // String(Object.create(null)) throws: describing this failure must not fail in turn.
    const brokenStore = stubConversationStore({
      load: async () => {
        throw Object.create(null);
      },
    });
    const lines: string[] = [];
    const running = await gateway(upstream.url, {
      stores: { conversations: brokenStore },
      log: (line: string) => lines.push(line),
    });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      rawRequest(`${running.url}${MODEL}`, BODY, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
        response.on('error', reject);
      });
    });
    expect(status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.raw.toString('utf8')).toBe(BODY);
    expect(lines.join('\n')).toContain('an error that cannot be printed');
  });

  it('a misspelled masking setting is logged once, with the file and the key it meant', async () => {
    const upstream = await slowUpstream(1, 0);
    const fixture = await gatewayFixture({ toolProtectionThresold: 1000 });
    cleanups.push(fixture.cleanup);
    const lines: string[] = [];
    const running = await startTestGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      upstreams: { gemini: upstream.url },
      log: (line: string) => lines.push(line),
    });
    cleanups.push(() => running.close());
    for (let request = 0; request < 2; request++) {
      await new Promise<void>((resolve, reject) => {
        rawRequest(`${running.url}${MODEL}`, BODY, (response) => {
          response.resume();
          response.on('end', resolve);
          response.on('error', reject);
        });
      });
    }
    const warnings = lines.filter((line) => line.includes('toolProtectionThresold'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(fixture.settingsFile);
    expect(warnings[0]).toContain('did you mean toolProtectionThreshold?');
  });

  it('a slow reader of a long stream: every byte, in order, and no listener left behind', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    cleanups.push(async () => void process.off('warning', onWarning));
    const chunk = 'x'.repeat(64 * 1024);
    const upstream = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let index = 0; index < 200; index++) response.write(`data: "${index}${chunk}"\r\n\r\n`);
      response.end();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
    const running = await gateway(
      `http://127.0.0.1:${(upstream.address() as { port: number }).port}`,
    );
    const received = await new Promise<string>((resolve, reject) => {
      rawRequest(`${running.url}${MODEL}`, BODY, (response) => {
        const pieces: Buffer[] = [];
        response.on('data', (piece: Buffer) => {
          pieces.push(piece);
          // Read slowly: the gateway meets backpressure again and again.
          response.pause();
          setTimeout(() => response.resume(), 1);
        });
        response.on('end', () => resolve(Buffer.concat(pieces).toString()));
        response.on('error', reject);
      });
    });
    const expected = Array.from({ length: 200 }, (_, index) => `data: "${index}${chunk}"\r\n\r\n`);
    expect(received === expected.join('')).toBe(true);
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual(
      [],
    );
  });

  it("the usage record is there when the answer's end reaches the client", async () => {
    const upstream = await startFakeUpstream(() =>
      geminiAnswer([{ text: 'ok' }], { prompt: 10, cached: 0 }),
    );
    cleanups.push(() => upstream.close());
    const running = await gateway(upstream.url);
    for (let request = 1; request <= 5; request++) {
      const answer = await fetch(`${running.url}${MODEL}`, {
        method: 'POST',
        body: BODY,
        headers: JSON_TYPE,
      });
      await answer.text();
      const sessions = (await (
        await ownerFetch(running, `${running.url}/api/sessions`)
      ).json()) as {
        sessions: Array<{ requests: number }>;
      };
      expect(sessions.sessions[0]?.requests).toBe(request);
    }
  });
});

describe('access', () => {
  it('with a token: model requests need x-toolmask-token (not forwarded); the own API takes Bearer', async () => {
    const upstream = await startFakeUpstream(() => geminiAnswer([{ text: 'ok' }]));
    cleanups.push(() => upstream.close());
    const running = await gateway(upstream.url, { authToken: 't0ken' });
    const refused = await fetch(`${running.url}${MODEL}`, {
      method: 'POST',
      body: BODY,
      headers: JSON_TYPE,
    });
    expect(refused.status).toBe(401);
    const ok = await fetch(`${running.url}${MODEL}`, {
      method: 'POST',
      body: BODY,
      headers: { ...JSON_TYPE, 'x-toolmask-token': 't0ken', 'x-goog-api-key': 'provider-key' },
    });
    expect(ok.status).toBe(200);
    expect(upstream.requests[0]!.headers['x-toolmask-token']).toBeUndefined();
    expect(upstream.requests[0]!.headers['x-goog-api-key']).toBe('provider-key');
    expect((await fetch(`${running.url}/api/sessions`)).status).toBe(401);
    const api = await fetch(`${running.url}/api/sessions`, {
      headers: { authorization: 'Bearer t0ken' },
    });
    expect(api.status).toBe(200);
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
  });

  it('its own endpoints refuse a Host that is not a loopback name (DNS rebinding)', async () => {
    const running = await gateway('http://127.0.0.1:9');
    const status = await new Promise<number>((resolve) => {
      http
        .get(
          `${running.url}/api/sessions`,
          { headers: { host: 'evil.example:8787' } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        )
        .on('error', () => resolve(-1));
    });
    expect(status).toBe(403);
  });

  it('refuses a port in use, and an address beyond loopback without a token', async () => {
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    const first = await startTestGateway({ stateDir: fixture.stateDir });
    cleanups.push(() => first.close());
    await expect(
      listenGateway({ stateDir: fixture.stateDir, port: first.port }),
    ).rejects.toMatchObject({
      code: 'PORT_IN_USE',
      message: expect.stringMatching(/already in use/),
    });
    await expect(
      listenGateway({ stateDir: fixture.stateDir, host: '0.0.0.0', port: 0 }),
    ).rejects.toBeInstanceOf(GatewayStartError);
  });
});
