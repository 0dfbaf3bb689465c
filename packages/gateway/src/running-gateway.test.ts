/**
 * `gateway.json` is trusted only for the gateway that wrote it: a live pid and a `/healthz` that
 * answers with the file's instance id. A file a killed gateway left behind, whose port another
 * service now answers on, is not a running gateway.
 */
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { deadPid } from '@toolmask/test-support/dead-pid';
import { gatewayFixture, startTestGateway } from './test-utils/gemini-client.js';
import { findRunningGateway, RUNNING_FILE, type RunningFile } from './running-gateway.js';

const cleanups = cleanUpAfterEach();

async function stateFolder(): Promise<{ stateDir: string; settingsFile: string }> {
  const fixture = await gatewayFixture();
  cleanups.push(fixture.cleanup);
  await fs.mkdir(fixture.stateDir, { recursive: true, mode: 0o700 });
  return fixture;
}

/** A local service that answers 200 (and JSON) to everything, like a dev server on 8787. */
async function answersEverything(body: unknown): Promise<string> {
  const server = http.createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readRunningFile(stateDir: string): Promise<RunningFile> {
  return JSON.parse(await fs.readFile(path.join(stateDir, RUNNING_FILE), 'utf8')) as RunningFile;
}

describe('findRunningGateway', () => {
  it('finds the gateway that announced itself, by its instance id', async () => {
    const { stateDir, settingsFile } = await stateFolder();
    const running = await startTestGateway({ stateDir, settingsFile });
    cleanups.push(() => running.close());
    const found = await findRunningGateway(stateDir);
    expect(found?.url).toBe(running.url);
    expect(found?.instanceId).toBe(running.gateway.instanceId);
    const health = (await (await fetch(`${running.url}/healthz`)).json()) as {
      instanceId?: string;
    };
    expect(health.instanceId).toBe(running.gateway.instanceId);
  });

  it('a stale file whose port another service answers on is not a running gateway', async () => {
    const { stateDir } = await stateFolder();
    const url = await answersEverything({ status: 'ok', version: '0.1.0' });
    const stale: RunningFile = {
      url,
      pid: process.pid,
      version: '0.1.0',
      startedAt: 0,
      instanceId: 'the-killed-gateway',
    };
    await fs.writeFile(path.join(stateDir, RUNNING_FILE), JSON.stringify(stale));
    expect(await findRunningGateway(stateDir)).toBeUndefined();
    // A file from before instance ids: no id to check, so not trusted either.
    const { instanceId: _dropped, ...old } = stale;
    await fs.writeFile(path.join(stateDir, RUNNING_FILE), JSON.stringify(old));
    expect(await findRunningGateway(stateDir)).toBeUndefined();
  });

  it('a file whose pid is gone is not a running gateway, even if something answers', async () => {
    const { stateDir, settingsFile } = await stateFolder();
    const running = await startTestGateway({ stateDir, settingsFile });
    cleanups.push(() => running.close());
    const file = await readRunningFile(stateDir);
    await fs.writeFile(
      path.join(stateDir, RUNNING_FILE),
      JSON.stringify({ ...file, pid: await deadPid() }),
    );
    expect(await findRunningGateway(stateDir)).toBeUndefined();
  });

  it('another gateway at the announced address is not the announced one', async () => {
    const { stateDir, settingsFile } = await stateFolder();
    const announced = await startTestGateway({ stateDir, settingsFile });
    cleanups.push(() => announced.close());
    const other = await startTestGateway({ stateDir, settingsFile });
    cleanups.push(() => other.close());
    const file = await readRunningFile(stateDir);
    expect(file.url).toBe(announced.url);
    await fs.writeFile(
      path.join(stateDir, RUNNING_FILE),
      JSON.stringify({ ...file, url: other.url }),
    );
    expect(await findRunningGateway(stateDir)).toBeUndefined();
  });

  it("a gateway started with announce: false (a launcher's own) writes no gateway.json", async () => {
    const { stateDir, settingsFile } = await stateFolder();
    const quiet = await startTestGateway({ stateDir, settingsFile, announce: false });
    cleanups.push(() => quiet.close());
    await expect(fs.stat(path.join(stateDir, RUNNING_FILE))).rejects.toThrow();
    expect(await findRunningGateway(stateDir)).toBeUndefined();
  });

  it('close() removes gateway.json only while it is still its own', async () => {
    const { stateDir, settingsFile } = await stateFolder();
    const announced = await startTestGateway({ stateDir, settingsFile });
    // Its file was replaced by a newer gateway's announcement meanwhile: that one stays.
    const newer = { ...(await readRunningFile(stateDir)), instanceId: 'a-newer-gateway' };
    await fs.writeFile(path.join(stateDir, RUNNING_FILE), JSON.stringify(newer));
    await announced.close();
    expect((await readRunningFile(stateDir)).instanceId).toBe('a-newer-gateway');
  });
});
