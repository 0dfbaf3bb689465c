/**
 * The unreachable upstream said while the client runs: once, at the first such request among the
 * run's figures (the gateway's own for a private gateway, the session's for a reused one).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { watchUnreachable } from './unreachable-notice.js';

const cleanups = cleanUpAfterEach();

const figures = (unreachable: number) => ({
  requests: unreachable,
  requestsWithUsage: 0,
  promptTokens: 0,
  cachedTokens: 0,
  maskedOutputs: 0,
  tokensKeptOut: 0,
  bytesOffloaded: 0,
  failures: 0,
  unreachable,
  ...(unreachable > 0 ? { unreachableUpstream: 'http://127.0.0.1:9' } : {}),
});

/** A gateway whose `/api/summary` answers the next of `answers` (the last one from then on). */
async function summaries(answers: Array<{ gateway: number; session: number }>) {
  let asked = 0;
  const server = createServer((request, response) => {
    const answer = answers[Math.min(asked++, answers.length - 1)]!;
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({
        instanceId: 'g1',
        startedAt: 1,
        gateway: figures(answer.gateway),
        session: figures(answer.session),
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { gateway: { url, accessSecret: 's' }, asked: () => asked };
}

function noticed(
  gateway: { url: string; accessSecret: string },
  privateGateway: boolean,
): Promise<string> {
  return new Promise((resolve) => {
    const stop = watchUnreachable({
      gateway,
      sessionId: 'run-1',
      privateGateway,
      intervalMs: 5,
      notice: (upstream) => resolve(upstream),
    });
    cleanups.push(async () => stop());
  });
}

describe('watchUnreachable', () => {
  it("says a private gateway's first unreachable request once, then stops asking", async () => {
    const fake = await summaries([
      { gateway: 0, session: 0 },
      { gateway: 0, session: 0 },
      { gateway: 1, session: 0 },
    ]);
    expect(await noticed(fake.gateway, true)).toBe('http://127.0.0.1:9');
    const asked = fake.asked();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.asked()).toBe(asked);
    expect(asked).toBe(3);
  });

  it("a reused gateway's: the run's own figures, not another client's", async () => {
    const fake = await summaries([
      { gateway: 4, session: 0 },
      { gateway: 4, session: 0 },
      { gateway: 5, session: 1 },
    ]);
    expect(await noticed(fake.gateway, false)).toBe('http://127.0.0.1:9');
    expect(fake.asked()).toBe(3);
  });
});
