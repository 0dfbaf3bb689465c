/**
 * Starting and holding a port: a gateway that cannot write its state folder says so and holds no
 * port; a client that trickles its request is cut at the deadline instead of holding a socket.
 */
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { GatewayStartError } from './errors.js';
import { listenGateway, TEAM_HEADERS_TIMEOUT_MS } from './listen-gateway.js';
import { gatewayFixture } from './test-utils/gemini-client.js';
import { memoryTeamStores } from './test-utils/memory-team-stores.js';
import { freePort } from '@toolmask/test-support/loopback-servers';

const cleanups = cleanUpAfterEach();

describe('listenGateway', () => {
  it('a state folder it cannot write: a clear error naming it, and no port held', async () => {
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    // A file where the folder would go: the folder can never be made (as EROFS on a read-only
    // disk, which root's permissions cannot fake).
    const blocked = path.join(fixture.root, 'blocked');
    await fs.writeFile(blocked, '');
    const port = await freePort();
    const started = listenGateway({
      stateDir: path.join(blocked, 'state'),
      settingsFile: fixture.settingsFile,
      port,
    });
    await expect(started).rejects.toBeInstanceOf(GatewayStartError);
    await expect(started).rejects.toMatchObject({
      code: 'STATE_UNWRITABLE',
      message: expect.stringContaining(path.join(blocked, 'state')),
    });
    // The port is free: nothing listens there.
    const probe = net.connect(port, '127.0.0.1');
    const refused = await new Promise<boolean>((resolve) => {
      probe.on('connect', () => resolve(false));
      probe.on('error', () => resolve(true));
    });
    probe.destroy();
    expect(refused).toBe(true);
  });

  it('a client that trickles its request is answered 408 and let go at the deadline', async () => {
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    const running = await listenGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      port: 0,
      requestTimeoutMs: 400,
      upstreams: { gemini: 'http://127.0.0.1:9' },
    });
    cleanups.push(() => running.close());
    const socket = net.connect(running.port, '127.0.0.1');
    cleanups.push(async () => void socket.destroy());
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    const closed = new Promise<number>((resolve) => {
      const started = Date.now();
      socket.on('close', () => resolve(Date.now() - started));
    });
    socket.write(
      'POST /v1beta/models/m:generateContent HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        'content-type: application/json\r\ncontent-length: 1000\r\n\r\n{',
    );
    // One more byte now and then, as a slow-loris client sends them.
    const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
    cleanups.push(async () => clearInterval(trickle));
    const elapsed = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('a team replica lets a client that trickles header lines go within its 10 s headers limit', async () => {
    const fixture = await gatewayFixture();
    cleanups.push(fixture.cleanup);
    const stores = memoryTeamStores();
    const running = await listenGateway({
      stateDir: fixture.stateDir,
      settingsFile: fixture.settingsFile,
      port: 0,
      upstreams: { gemini: 'http://127.0.0.1:9' },
      stores: { conversations: stores.conversations, usage: stores.usage },
      team: {
        outputs: stores.outputs,
        cookieSecret: async () => 'team-cookie-secret',
        proofs: stores.proofs,
        adminKey: 'the-admin-key',
      },
    });
    cleanups.push(() => running.close());
    const socket = net.connect(running.port, '127.0.0.1');
    cleanups.push(async () => void socket.destroy());
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    const closed = new Promise<number>((resolve) => {
      const started = Date.now();
      socket.on('close', () => resolve(Date.now() - started));
    });
    socket.write('POST /v1beta/models/m:generateContent HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // A header line every half second, never the end of the headers (Node's limit was 60 s).
    let line = 0;
    const trickle = setInterval(
      () => socket.writable && socket.write(`x-slow-${line++}: a\r\n`),
      500,
    );
    cleanups.push(async () => clearInterval(trickle));
    const elapsed = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(elapsed).toBeGreaterThanOrEqual(TEAM_HEADERS_TIMEOUT_MS - 100);
    expect(elapsed).toBeLessThan(TEAM_HEADERS_TIMEOUT_MS + 5_000);
  }, 40_000);
});
