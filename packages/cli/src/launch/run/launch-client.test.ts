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
import { geminiAnswer, startFakeUpstream } from '@toolmask/test-support/fake-upstream';
import { launchClient, type LaunchOptions } from './launch-client.js';

const cleanups = cleanUpAfterEach();
/** The stand-in clients play gemini: its requests go to the Gemini API, Vertex AI or Code Assist. */
const GEMINI_REUSE = { apis: ['gemini', 'vertex', 'codeAssist'] } as const;

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
    reuse: GEMINI_REUSE,
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

  it("says which masking settings a reused gateway applies: the defaults when the launch's file holds none (issue 35)", async () => {
    const paths = await folder();
    const standalone = await listenGateway({ port: 0, stateDir: paths.stateDir });
    cleanups.push(() => standalone.close());
    const go = path.join(paths.root, 'go');
    await fs.writeFile(go, '');
    const said = async (settingsFile: string) => {
      const lines: string[] = [];
      await launchClient({
        client: 'codex',
        reuse: GEMINI_REUSE,
        bin: process.execPath,
        args: [paths.client, go],
        env: { PATH: process.env['PATH'] ?? '' },
        cwd: paths.root,
        stateDir: paths.stateDir,
        upstreams: {},
        gatewaySettingsFile: settingsFile,
        say: (line) => lines.push(line),
        setup: async (gateway) => ({
          env: { PATH: process.env['PATH'] ?? '', GATEWAY_URL: gateway.url },
          summary: '',
          cleanup: async () => [],
        }),
      });
      return lines[0];
    };
    const using = `toolmask: using the gateway already running at ${standalone.url} (pid ${process.pid}); `;
    const missing = path.join(paths.root, 'no-such-toolmask.json');
    expect(await said(missing)).toBe(
      `${using}its masking settings for this client are the defaults, as for this launch (no settings file holds any)`,
    );
    const own = path.join(paths.root, 'toolmask.json');
    await fs.writeFile(own, '{ "toolProtectionThreshold": 1000 }');
    expect(await said(own)).toBe(
      `${using}its masking settings for this client are the same file's, ${own}`,
    );
  });
});

/**
 * The stand-in client of the summary tests: sends `argv[2]` model requests through its gateway
 * (the launcher's session header on each, as the real clients send it), then exits as `argv[3]`
 * says: `exit` (code 0), or `kill` (killed by SIGKILL, as a crash or `kill -9` would).
 */
const REQUESTING_CLIENT = `
const count = Number(process.argv[2]);
for (let index = 0; index < count; index++) {
  const answer = await fetch(process.env.GATEWAY_URL + '/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-toolmask-session': process.env.SESSION,
      ...(process.env.CLIENT_SESSION ? { 'x-session-affinity': process.env.CLIENT_SESSION } : {}),
    },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi ' + index }] }] }),
  });
  await answer.text();
}
if (process.argv[3] === 'kill') process.kill(process.pid, 'SIGKILL');
// 'wait FILE': the client keeps running (as a client retrying would) until FILE exists.
const { existsSync } = await import('node:fs');
while (process.argv[3] === 'wait' && !existsSync(process.argv[4])) {
  await new Promise((resolve) => setTimeout(resolve, 20));
}
`;

async function summaryRun(
  options: {
    requests: number;
    ending: 'exit' | 'kill';
    upstreams?: LaunchOptions['upstreams'];
    clientSession?: string;
  },
  paths: Awaited<ReturnType<typeof folder>>,
  during?: (gatewayUrl: string) => Promise<void>,
) {
  const client = path.join(paths.root, 'requesting-client.mjs');
  await fs.writeFile(client, REQUESTING_CLIENT);
  const said: string[] = [];
  const code = await launchClient({
    client: 'gemini',
    reuse: GEMINI_REUSE,
    bin: process.execPath,
    args: [client, String(options.requests), options.ending],
    env: { PATH: process.env['PATH'] ?? '' },
    cwd: paths.root,
    stateDir: paths.stateDir,
    upstreams: options.upstreams ?? {},
    gatewaySettingsFile: paths.settingsFile,
    say: (line) => said.push(line),
    resumeCommand: (session) => `toolmask opencode -s ${session}`,
    async setup(gateway, sessionId) {
      await during?.(gateway.url);
      return {
        env: {
          PATH: process.env['PATH'] ?? '',
          GATEWAY_URL: gateway.url,
          SESSION: sessionId,
          ...(options.clientSession ? { CLIENT_SESSION: options.clientSession } : {}),
        },
        summary: 'banner',
        cleanup: async () => [],
      };
    },
  });
  return { code, said };
}

async function fakeGemini() {
  const upstream = await startFakeUpstream(async () =>
    geminiAnswer([{ text: 'hello' }], { prompt: 1_000, cached: 600 }),
  );
  cleanups.push(() => upstream.close());
  return upstream;
}

describe('the run summary when the client exits (issue 24)', () => {
  it.each([
    ['exits', 'exit', 0],
    ['is killed (SIGKILL)', 'kill', 137],
  ] as const)(
    'the client %s: the figures and the dashboard hint follow',
    async (_name, ending, exit) => {
      const paths = await folder();
      const upstream = await fakeGemini();
      const run = await summaryRun(
        { requests: 3, ending, upstreams: { gemini: upstream.url } },
        paths,
      );
      expect(run.code).toBe(exit);
      expect(run.said[0]).toBe('banner');
      expect(run.said.slice(1)).toEqual([
        "toolmask: this run: 3 requests, 0 outputs masked, billed the same as without masking, cache hits 60% of 3,000 prompt tokens (provider's count)",
        "toolmask: dashboard: this run's gateway stopped with it; `toolmask gateway` shows its sessions",
      ]);
    },
  );

  it("sets the terminal title to the run's dashboard: the client's full-screen UI wipes the banner (issue 35)", async () => {
    const paths = await folder();
    const go = path.join(paths.root, 'go');
    await fs.writeFile(go, '');
    const titles: string[] = [];
    let url = '';
    const code = await launchClient({
      client: 'claude',
      reuse: GEMINI_REUSE,
      bin: process.execPath,
      args: [paths.client, go],
      env: { PATH: process.env['PATH'] ?? '' },
      cwd: paths.root,
      stateDir: paths.stateDir,
      upstreams: {},
      gatewaySettingsFile: paths.settingsFile,
      say: () => undefined,
      setTitle: (title) => titles.push(title),
      restoreTitle: () => titles.push('(restored)'),
      async setup(gateway) {
        url = gateway.url;
        return {
          env: { PATH: process.env['PATH'] ?? '', GATEWAY_URL: gateway.url },
          summary: '',
          cleanup: async () => [],
        };
      },
    });
    expect(code).toBe(0);
    // Put back when the run ends: the address died with the run's gateway.
    expect(titles).toEqual([
      `toolmask claude · dashboard ${url} (toolmask dashboard opens it)`,
      '(restored)',
    ]);
  });

  it("the client's own session id: its resume command through toolmask follows (issue 35)", async () => {
    const paths = await folder();
    const upstream = await fakeGemini();
    const run = await summaryRun(
      {
        requests: 2,
        ending: 'exit',
        upstreams: { gemini: upstream.url },
        clientSession: 'ses_1a2b',
      },
      paths,
    );
    expect(run.said).toContain('toolmask: resume through toolmask: toolmask opencode -s ses_1a2b');
    // Without one, no such line.
    const plain = await summaryRun(
      { requests: 1, ending: 'exit', upstreams: { gemini: upstream.url } },
      paths,
    );
    expect(plain.said.some((line) => line.includes('resume'))).toBe(false);
  });

  it('an upstream that cannot be reached: counted and named in the exit line and gateway.log (issue 35)', async () => {
    const paths = await folder();
    const dead = await startFakeUpstream(() => ({ json: {} }));
    await dead.close();
    const run = await summaryRun(
      { requests: 2, ending: 'exit', upstreams: { gemini: dead.url } },
      paths,
    );
    expect(run.said[1]).toBe(
      `toolmask: this run: 2 requests, 0 outputs masked, net billed not measured (the provider reported no usage), cache hits not reported by the provider, 2 requests could not reach ${dead.url} (the client got 502; gateway.log has each)`,
    );
    const log = await fs.readFile(path.join(paths.stateDir, 'gateway.log'), 'utf8');
    expect(log).toContain(`the upstream ${dead.url} could not be reached`);
  });

  it.each([
    ['headless: one line on stderr', true],
    ['a full-screen UI: the terminal title', false],
  ])(
    'an unreachable upstream is said while the client still runs, %s (issue 35)',
    async (_name, headless) => {
      const paths = await folder();
      const dead = await startFakeUpstream(() => ({ json: {} }));
      await dead.close();
      const client = path.join(paths.root, 'requesting-client.mjs');
      await fs.writeFile(client, REQUESTING_CLIENT);
      // The client runs on until the notice came: it cannot have come from the exit line.
      const noticed = path.join(paths.root, 'noticed');
      const said: string[] = [];
      const titles: string[] = [];
      const note = (into: string[]) => (line: string) => {
        into.push(line);
        if (line.includes('could not be reached') || line.includes('unreachable')) {
          void fs.writeFile(noticed, '');
        }
      };
      let url = '';
      const code = await launchClient({
        client: 'claude',
        reuse: GEMINI_REUSE,
        bin: process.execPath,
        args: [client, '2', 'wait', noticed],
        env: { PATH: process.env['PATH'] ?? '' },
        cwd: paths.root,
        stateDir: paths.stateDir,
        upstreams: { gemini: dead.url },
        gatewaySettingsFile: paths.settingsFile,
        say: note(said),
        setTitle: note(titles),
        headless,
        async setup(gateway, sessionId) {
          url = gateway.url;
          const env = { PATH: process.env['PATH'] ?? '', GATEWAY_URL: url, SESSION: sessionId };
          return { env, summary: 'banner', cleanup: async () => [] };
        },
      });
      expect(code).toBe(0);
      const line = `toolmask: the upstream ${dead.url} could not be reached: claude got 502 and may retry on its own for minutes (gateway.log has each failure; Ctrl-C stops the run)`;
      const title = `toolmask claude · upstream ${dead.url} unreachable · dashboard ${url}`;
      expect(said.includes(line)).toBe(headless);
      expect(titles.includes(title)).toBe(!headless);
    },
  );

  it("a standalone gateway's run counts its own requests, and says what other clients sent", async () => {
    const paths = await folder();
    const upstream = await fakeGemini();
    const standalone = await listenGateway({
      port: 0,
      stateDir: paths.stateDir,
      settingsFile: paths.settingsFile,
      upstreams: { gemini: upstream.url },
    });
    cleanups.push(() => standalone.close());
    // Another client of the same gateway, during the run.
    const other = async (gatewayUrl: string) => {
      const answer = await fetch(
        `${gatewayUrl}/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'other' }] }] }),
        },
      );
      await answer.text();
    };
    const run = await summaryRun(
      { requests: 2, ending: 'exit', upstreams: { gemini: upstream.url } },
      paths,
      other,
    );
    expect(run.code).toBe(0);
    // Reused: its masking settings are its own (its --settings file here), and it is said.
    expect(run.said[0]).toMatch(
      /^toolmask: using the gateway already running at http:\/\/127\.0\.0\.1:\d+ \(pid \d+\); its own masking settings apply/,
    );
    expect(run.said[0]).toContain(`(its --settings ${path.resolve(paths.settingsFile)})`);
    expect(run.said.slice(2)).toEqual([
      "toolmask: this run: 2 requests, 0 outputs masked, billed the same as without masking, cache hits 60% of 2,000 prompt tokens (provider's count)",
      'toolmask: the gateway also carried 1 request of other clients meanwhile (not counted above)',
      `toolmask: dashboard ${standalone.dashboardUrl}`,
    ]);
  });

  it('a standalone gateway for other upstreams is not reused by a launch that asks for none (item 3)', async () => {
    const paths = await folder();
    const standalone = await listenGateway({
      port: 0,
      stateDir: paths.stateDir,
      settingsFile: paths.settingsFile,
      upstreams: { gemini: 'http://127.0.0.1:9' },
    });
    cleanups.push(() => standalone.close());
    const go = path.join(paths.root, 'go');
    await fs.writeFile(go, '');
    const run = launch(paths, go);
    expect(await run.exit).toBe(0);
    expect(await run.gateway).not.toBe(standalone.url);
  });
});
