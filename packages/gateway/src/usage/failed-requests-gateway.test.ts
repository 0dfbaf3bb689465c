/**
 * Failed requests through a real gateway: the upstream's 429 with its message, an upstream that
 * cannot be reached, and a client that leaves mid-answer are each recorded with their kind, status
 * and reason, and `/api/sessions` counts and lists them (before, the last two had no reason and
 * the first no message, and none was listed).
 */
import * as http from 'node:http';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import type { SessionsReport } from '../dashboard/api-types.js';
import type { RunningGateway } from '../listen-gateway.js';
import {
  gatewayFixture,
  ownerFetch,
  post,
  rawRequest,
  settled,
  startTestGateway,
} from '../test-utils/gemini-client.js';

const cleanups = cleanUpAfterEach();
const PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';
const body = (prompt: string) => ({ contents: [{ role: 'user', parts: [{ text: prompt }] }] });

async function gatewayTo(upstream: string): Promise<RunningGateway> {
  const fixture = await gatewayFixture({});
  cleanups.push(fixture.cleanup);
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: upstream },
  });
  cleanups.push(() => running.close());
  return running;
}

async function report(running: RunningGateway): Promise<SessionsReport> {
  await settled(running);
  return (await (
    await ownerFetch(running, `${running.url}/api/sessions`)
  ).json()) as SessionsReport;
}

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('failed requests through the gateway', () => {
  it("the upstream's refusal with its message, and a client gone mid-answer", async () => {
    const upstream = await startFakeUpstream((request) => {
      const text = JSON.stringify(request.json);
      if (text.includes('refuse')) {
        return { status: 429, json: { error: { code: 429, message: 'Resource exhausted.' } } };
      }
      const answer = geminiAnswer([{ text: 'part' }], { prompt: 10, cached: 0 }) as {
        sse: unknown[];
      };
      return { sse: Array.from({ length: 50 }, () => answer.sse[0]), intervalMs: 100 };
    });
    cleanups.push(() => upstream.close());
    const running = await gatewayTo(upstream.url);
    expect((await post(`${running.url}${PATH}`, body('refuse this'))).status).toBe(429);
    await new Promise<void>((resolve) => {
      rawRequest(`${running.url}${PATH}`, JSON.stringify(body('slow one')), (response, request) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
    });
    await expect.poll(async () => (await report(running)).totals.failed).toBe(2);
    const { failedRequests, sessions } = await report(running);
    expect(failedRequests.map(({ status, kind, reason }) => ({ status, kind, reason }))).toEqual([
      {
        status: 200,
        kind: 'client-aborted',
        reason: 'the client went away before the answer ended',
      },
      { status: 429, kind: 'upstream-error', reason: 'Resource exhausted.' },
    ]);
    expect(sessions.map((session) => session.failed)).toEqual([1, 1]);
    expect(sessions.map((session) => session.prompt).sort()).toEqual(['refuse this', 'slow one']);
  });

  it('an upstream that cannot be reached', async () => {
    const origin = `http://127.0.0.1:${await deadPort()}`;
    const running = await gatewayTo(origin);
    expect((await post(`${running.url}${PATH}`, body('hello'))).status).toBe(502);
    const { failedRequests, totals } = await report(running);
    expect(totals.failed).toBe(1);
    expect(failedRequests).toMatchObject([
      { status: 0, kind: 'unreachable', reason: `upstream ${origin} could not be reached` },
    ]);
  });
});
