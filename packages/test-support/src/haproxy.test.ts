/**
 * The HAProxy harness with the docs' configuration (docs/team/haproxy.cfg) in front of two tiny
 * replicas: requests alternate between them (round robin, no stickiness), and once one is closed
 * every request still succeeds, first by redispatch (a retry to the other, while the checks still
 * count it up), then because the health checks marked it down.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from './cleanups.js';
import { haproxyAvailable, haproxyConfig, startHaproxy } from './haproxy.js';

const cleanups = cleanUpAfterEach();

/** A replica: `/healthz` answers 200 (counted), anything else its name. */
async function replica(
  name: string,
): Promise<{ port: number; checks(): number; close(): Promise<void> }> {
  let checks = 0;
  const server = http.createServer((request, response) => {
    if (request.url === '/healthz') checks += 1;
    response
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(request.url === '/healthz' ? 'ok' : name);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };
  cleanups.push(close);
  return { port: (server.address() as AddressInfo).port, checks: () => checks, close };
}

async function answers(url: string, count: number): Promise<string[]> {
  const found: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const response = await fetch(`${url}/who`);
    expect(response.status).toBe(200);
    found.push(await response.text());
  }
  return found;
}

describe.skipIf(!haproxyAvailable('the HAProxy harness test'))('startHaproxy', () => {
  it('balances round robin, and a closed replica costs no request', async (context) => {
    const a = await replica('a');
    const b = await replica('b');
    const haproxy = await startHaproxy({
      backends: [
        { name: 'a', port: a.port },
        { name: 'b', port: b.port },
      ],
      test: context,
    });

    const both = await answers(haproxy.url, 6);
    expect(both.filter((name) => name === 'a')).toHaveLength(3);
    for (let index = 1; index < both.length; index += 1) {
      expect(both[index], both.join(',')).not.toBe(both[index - 1]);
    }

    // HAProxy starts a server just up (`rise`); after a good check it takes 2 failed ones, 500 ms
    // apart, to mark it down: time enough for the requests below.
    await expect.poll(b.checks, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    await b.close();
    // Before the checks mark it down: b's turns are retried on a.
    expect(await answers(haproxy.url, 4)).toEqual(['a', 'a', 'a', 'a']);
    // The log line's retries field: `+1`, redispatched after one failed connection.
    expect(haproxy.output()).toMatch(/ gateways\/a .* \d+\/\d+\/\d+\/\d+\/\+1 /);

    await expect.poll(haproxy.output, { timeout: 5_000 }).toMatch(/gateways\/b is DOWN/);
    expect(await answers(haproxy.url, 4)).toEqual(['a', 'a', 'a', 'a']);
  });
});

describe.skipIf(!haproxyAvailable('the HAProxy log test'))("the docs' HAProxy log", () => {
  it('logs each request without its query string or any key (issue 33, finding 6)', async (context) => {
    const a = await replica('a');
    const haproxy = await startHaproxy({ backends: [{ name: 'a', port: a.port }], test: context });
    const secrets = ['tmk_virtual-key-secret', 'admin-key-secret', 'own-provider-key-secret'];
    const sent = [
      fetch(`${haproxy.url}/v1beta/models/gemini-2.5-flash:generateContent?key=${secrets[0]}`),
      fetch(`${haproxy.url}/?token=${secrets[1]}`),
      fetch(`${haproxy.url}/v1/chat/completions`, {
        headers: { authorization: `Bearer ${secrets[2]}`, 'x-goog-api-key': secrets[2]! },
      }),
    ];
    for (const response of await Promise.all(sent)) expect(response.status).toBe(200);
    await expect
      .poll(() => haproxy.output().match(/gateways\/a .*"GET /g)?.length ?? 0, { timeout: 5_000 })
      .toBe(3);
    const log = haproxy.output();
    expect(log).toContain('"GET /v1beta/models/gemini-2.5-flash:generateContent HTTP/1.1"');
    expect(log).toContain('"GET / HTTP/1.1"');
    for (const secret of secrets) expect(log).not.toContain(secret);
    expect(log).not.toMatch(/key=|token=/);
  });
});

describe('haproxyConfig', () => {
  it('fills the placeholders of a template, each once', () => {
    const template = 'frontend f\n    bind {{listen}}\nbackend b\n    {{servers}}\n';
    expect(
      haproxyConfig(template, 8080, [
        { name: 'x', port: 1 },
        { name: 'y', port: 2 },
      ]),
    ).toBe(
      'frontend f\n    bind 127.0.0.1:8080\nbackend b\n    server x 127.0.0.1:1\n    server y 127.0.0.1:2\n',
    );
    expect(() => haproxyConfig('bind {{listen}}\n', 1, [])).toThrow(/servers/);
    expect(() => haproxyConfig(template, 1, [{ name: 'a b', port: 1 }])).toThrow(/server name/);
  });
});
