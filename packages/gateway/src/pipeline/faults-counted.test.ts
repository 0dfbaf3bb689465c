/**
 * Faults the person must hear about (issue 35, items 6 and 7): a request whose client left while
 * the answer was awaited (Ctrl-C mid-turn) went through the gateway and is counted; a request
 * whose upstream could not be reached is counted, its upstream named, in the summary a launcher's
 * exit line and `toolmask status` read, in the dashboard's sessions and in the gateway's log.
 */
import { createServer } from 'node:net';
import { startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../listen-gateway.js';
import {
  gatewayFixture,
  ownerFetch,
  post,
  settled,
  startTestGateway,
} from '../test-utils/gemini-client.js';
import type { UsageSummary } from '../usage/usage-tally.js';
import type { SessionsReport } from '../usage/sessions.js';

const cleanups = cleanUpAfterEach();

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function gatewayTo(openai: string, log: string[]): Promise<RunningGateway> {
  const fixture = await gatewayFixture({});
  cleanups.push(fixture.cleanup);
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { openai },
    log: (line) => log.push(line),
  });
  cleanups.push(() => running.close());
  return running;
}

const BODY = {
  model: 'm1',
  messages: [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'hi' },
  ],
};
const SESSION = { 'x-toolmask-session': 'launch-1' };

async function summary(running: RunningGateway): Promise<UsageSummary> {
  await settled(running);
  const answer = await ownerFetch(running, `${running.url}/api/summary?session=launch-1`);
  return (await answer.json()) as UsageSummary;
}

describe('faults counted', () => {
  it('an unreachable upstream: counted and named in the summary, the sessions and the log', async () => {
    const log: string[] = [];
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const running = await gatewayTo(`${dead}/v1`, log);
    for (let attempt = 0; attempt < 3; attempt++) {
      const answer = await post(`${running.url}/openai/v1/chat/completions`, BODY, SESSION);
      expect(answer.status).toBe(502);
    }
    const figures = await summary(running);
    expect(figures.session).toMatchObject({
      requests: 3,
      unreachable: 3,
      unreachableUpstream: dead,
    });
    const sessions = (await (
      await ownerFetch(running, `${running.url}/api/sessions`)
    ).json()) as SessionsReport;
    expect(sessions.totals.unreachable).toBe(3);
    expect(sessions.sessions[0]).toMatchObject({ unreachable: 3, unreachableUpstream: dead });
    const said = log.filter((line) => line.includes(`the upstream ${dead} could not be reached`));
    expect(said).toHaveLength(3);
    // Named by the request the client sent, not the route's inner action ("mask request").
    expect(said[0]).toMatch(
      /^\[toolmask gateway\] POST \/openai\/v1\/chat\/completions: the upstream .*; the client got 502$/,
    );
  });

  it('a client gone while the answer was awaited (Ctrl-C mid-turn): the request is counted', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const upstream = await startFakeUpstream(async () => {
      await held;
      return { json: {} };
    });
    cleanups.push(() => upstream.close());
    cleanups.push(async () => release());
    const running = await gatewayTo(`${upstream.url}/v1`, []);
    const controller = new AbortController();
    const sent = fetch(`${running.url}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...SESSION },
      body: JSON.stringify(BODY),
      signal: controller.signal,
    }).catch(() => undefined);
    while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await sent;
    expect((await summary(running)).session).toMatchObject({ requests: 1, unreachable: 0 });
  });
});
