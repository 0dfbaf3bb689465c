/**
 * Two launchers on one state folder (two terminals running `toolmask gemini`): the first one's
 * client exits while the second is still in its session. The second keeps its gateway (model
 * requests and read-back), and the first returns its client's exit code without waiting for the
 * second. A standalone gateway (`toolmask gateway`) is still reused.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listenGateway } from '@toolmask/gateway';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { launchClient, type LaunchOptions } from './launch-client.js';

const cleanups = cleanUpAfterEach();

/**
 * The stand-in client: waits until the file `argv[2]` exists, then asks its gateway for
 * `/healthz` and exits 0 when it answered 200, 3 when it could not be reached.
 */
const CLIENT = `
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
while (!existsSync(process.argv[2])) await sleep(20);
try {
  const answer = await fetch(process.env.GATEWAY_URL + '/healthz');
  process.exit(answer.status === 200 ? 0 : 4);
} catch {
  process.exit(3);
}
`;

async function folder() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-launch-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const client = path.join(root, 'client.mjs');
  await fs.writeFile(client, CLIENT);
  const settingsFile = path.join(root, 'masking-settings.json');
  await fs.writeFile(settingsFile, '{}');
  return { root, client, settingsFile, stateDir: path.join(root, 'state') };
}

/** One launch whose client waits for `goFile`; `gateway` resolves once its gateway is up. */
function launch(
  paths: Awaited<ReturnType<typeof folder>>,
  goFile: string,
): { gateway: Promise<string>; exit: Promise<number> } {
  let reportGateway: (url: string) => void = () => undefined;
  const gateway = new Promise<string>((resolve) => (reportGateway = resolve));
  const options: LaunchOptions = {
    client: 'gemini',
    bin: process.execPath,
    args: [paths.client, goFile],
    env: { PATH: process.env['PATH'] ?? '' },
    cwd: paths.root,
    stateDir: paths.stateDir,
    upstreams: {},
    gatewaySettingsFile: paths.settingsFile,
    say: () => undefined,
    async setup(gateway) {
      reportGateway(gateway.url);
      return {
        env: { PATH: process.env['PATH'] ?? '', GATEWAY_URL: gateway.url },
        summary: '',
        cleanup: async () => [],
      };
    },
  };
  return { gateway, exit: launchClient(options) };
}

describe('launchClient', () => {
  it('a second launcher keeps its gateway when the first one exits', async () => {
    const paths = await folder();
    const firstGo = path.join(paths.root, 'first-go');
    const secondGo = path.join(paths.root, 'second-go');
    const first = launch(paths, firstGo);
    const firstGateway = await first.gateway;
    const second = launch(paths, secondGo);
    // Whatever happens, no client is left waiting when the test ends.
    cleanups.push(async () => {
      await Promise.all([fs.writeFile(firstGo, ''), fs.writeFile(secondGo, '')]);
      await Promise.all([first.exit, second.exit]);
    });
    const secondGateway = await second.gateway;
    // The first session ends while the second is still running; its launcher returns at once.
    await fs.writeFile(firstGo, '');
    expect(await first.exit).toBe(0);
    // Only now does the second client talk to its gateway.
    await fs.writeFile(secondGo, '');
    expect(await second.exit).toBe(0);
    expect(secondGateway).not.toBe(firstGateway);
  });

  it('reuses a standalone gateway of the state folder, and leaves it running', async () => {
    const paths = await folder();
    const standalone = await listenGateway({
      port: 0,
      stateDir: paths.stateDir,
      settingsFile: paths.settingsFile,
    });
    cleanups.push(() => standalone.close());
    const go = path.join(paths.root, 'go');
    await fs.writeFile(go, '');
    const run = launch(paths, go);
    expect(await run.exit).toBe(0);
    expect(await run.gateway).toBe(standalone.url);
    expect((await fetch(`${standalone.url}/healthz`)).status).toBe(200);
  });
});
