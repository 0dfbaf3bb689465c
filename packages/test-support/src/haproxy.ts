/**
 * HAProxy in front of test servers, with the configuration the docs show
 * (`docs/team/haproxy.cfg`: round robin, no stickiness, `/healthz` checks every 500 ms, retries
 * redispatched): its two placeholders filled (a free loopback port, one `server` line per backend),
 * `haproxy -db -f` in the foreground, ready once its port accepts connections.
 *
 * Where `/usr/sbin/haproxy` (Debian's package) is absent, tests that need it skip with a note
 * (`haproxyAvailable`, for `describe.skipIf`); in CI (`CI` set) they run and fail instead, since CI
 * must run them. haproxy stops with the test whose context was passed, or on `stop()`, and at the
 * latest when the test process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'vitest';
import { freePort, inCi } from './loopback-servers.js';

export const HAPROXY_PATH = '/usr/sbin/haproxy';
/** The configuration the docs show, with `{{listen}}` and `{{servers}}` to fill. */
export const HAPROXY_TEMPLATE = fileURLToPath(
  new URL('../../../docs/team/haproxy.cfg', import.meta.url),
);

export interface HaproxyBackend {
  /** The `server` name: HAProxy's log lines and state changes name the backend by it. */
  name: string;
  port: number;
  /** @default '127.0.0.1' */
  host?: string;
}

export interface HaproxyOptions {
  backends: readonly HaproxyBackend[];
  /** The test it serves: haproxy stops when it ends. Without it, the caller stops it. */
  test?: Pick<TestContext, 'onTestFinished'>;
  /** How long haproxy may take to accept connections. @default 10000 */
  startTimeoutMs?: number;
}

export interface RunningHaproxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** What haproxy printed so far: its warnings (a server going DOWN) and one line per request. */
  output(): string;
  /** Stops haproxy (SIGTERM, then SIGKILL after 3 s) and removes its configuration. */
  stop(): Promise<void>;
}

const OUTPUT_LIMIT = 256 * 1024;
const BIND_ATTEMPTS = 3;

const MISSING = `${HAPROXY_PATH} is absent (apt-get install -y haproxy)`;

/**
 * Whether tests that need haproxy should run: where it is installed, and always in CI (where
 * `startHaproxy` then fails them). Warns when they skip.
 */
export function haproxyAvailable(what = 'HAProxy tests'): boolean {
  if (existsSync(HAPROXY_PATH) || inCi()) return true;
  console.warn(`[toolmask] ${what} skipped: ${MISSING}; in CI they fail instead`);
  return false;
}

/** The template with its placeholders filled; each must be alone on its line, once. */
export function haproxyConfig(
  template: string,
  port: number,
  backends: readonly HaproxyBackend[],
): string {
  const fill = (text: string, placeholder: RegExp, value: (indent: string) => string) => {
    const found = text.match(new RegExp(placeholder.source, 'gm')) ?? [];
    if (found.length !== 1) {
      throw new Error(`${placeholder} matches ${found.length} lines of the template, not one`);
    }
    return text.replace(new RegExp(placeholder.source, 'm'), (_, indent: string) => value(indent));
  };
  const listening = fill(
    template,
    /^([ \t]*bind )\{\{listen\}\}$/,
    (bind) => `${bind}127.0.0.1:${port}`,
  );
  return fill(listening, /^([ \t]*)\{\{servers\}\}$/, (indent) =>
    backends
      .map(({ name, host, port: backendPort }) => {
        if (!/^[\w.-]+$/.test(name)) throw new Error(`not a server name: ${name}`);
        return `${indent}server ${name} ${host ?? '127.0.0.1'}:${backendPort}`;
      })
      .join('\n'),
  );
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts haproxy in front of `backends`; see the module comment. */
export async function startHaproxy(options: HaproxyOptions): Promise<RunningHaproxy> {
  if (!existsSync(HAPROXY_PATH)) {
    throw new Error(`${MISSING}: CI must install it to run the HAProxy tests`);
  }
  if (options.backends.length === 0) throw new Error('startHaproxy: no backends');
  const template = await fs.readFile(HAPROXY_TEMPLATE, 'utf8');
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-haproxy-'));
  let failure = '';
  for (let attempt = 1; attempt <= BIND_ATTEMPTS; attempt += 1) {
    // Another process may take the port between freePort() and haproxy's bind: try another.
    const port = await freePort();
    const configFile = path.join(directory, 'haproxy.cfg');
    await fs.writeFile(configFile, haproxyConfig(template, port, options.backends));
    const started = await launch(configFile, port, options.startTimeoutMs ?? 10_000);
    if ('failure' in started) {
      failure = started.failure;
      continue;
    }
    const running: RunningHaproxy = {
      url: `http://127.0.0.1:${port}`,
      port,
      output: started.output,
      async stop() {
        await started.stop();
        await fs.rm(directory, { recursive: true, force: true });
      },
    };
    options.test?.onTestFinished(() => running.stop());
    return running;
  }
  await fs.rm(directory, { recursive: true, force: true });
  throw new Error(`haproxy did not start: ${failure}`);
}

async function launch(
  configFile: string,
  port: number,
  timeoutMs: number,
): Promise<{ failure: string } | { output: () => string; stop: () => Promise<void> }> {
  const child = spawn(HAPROXY_PATH, ['-db', '-f', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
    child.once('error', (error) => {
      keep(Buffer.from(String(error)));
      exited = true;
      resolve();
    });
  });
  // The last resort: a test process that ends without stopping it takes haproxy along.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    await terminate(child, exit, () => exited);
  };
  const deadline = Date.now() + timeoutMs;
  while (!exited && Date.now() < deadline) {
    if (await accepts(port)) return { output: () => output, stop };
    await sleep(25);
  }
  await stop();
  return {
    failure: exited
      ? `it exited:\n${output}`
      : `its port ${port} accepted no connection in ${timeoutMs} ms:\n${output}`,
  };
}

async function terminate(
  child: ChildProcess,
  exit: Promise<void>,
  exited: () => boolean,
): Promise<void> {
  if (exited()) return;
  child.kill('SIGTERM');
  const killed = await Promise.race([exit.then(() => true), sleep(3_000).then(() => false)]);
  if (!killed) {
    child.kill('SIGKILL');
    await exit;
  }
}
