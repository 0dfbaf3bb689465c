/**
 * A real `redis-server` (the Debian package) for tests of the Redis stores: one per call, on a
 * free loopback port, with no config file, nothing saved (`--save ''`, `--appendonly no`) and a
 * temporary folder as `--dir`. Fault tests stop it and start it again on the same port, or
 * freeze it (SIGSTOP) to play a Redis that answers nothing.
 *
 * Where `redis-server` is not on PATH, tests skip with `REDIS_SKIP_MESSAGE` outside CI; in CI
 * (`CI` set) they run and fail, so a missing package never passes silently.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { processMarker } from './marked-processes.js';
import { freePort, inCi } from './loopback-servers.js';

/** Where `redis-server` is on PATH; undefined when it is not there. */
export function redisServerPath(): string | undefined {
  for (const folder of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (!folder) continue;
    const candidate = path.join(folder, 'redis-server');
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

export const REDIS_SKIP_MESSAGE =
  'skipped: redis-server is not on PATH (apt-get install -y redis-server); in CI they fail instead';

/**
 * Whether tests that need `redis-server` should run: where it is installed, and always in CI
 * (where `startRedisServer` then fails them). Warns with `REDIS_SKIP_MESSAGE` when they skip.
 */
export function redisAvailable(what = 'Redis tests'): boolean {
  if (redisServerPath() !== undefined || inCi()) return true;
  console.warn(`[toolmask] ${what} ${REDIS_SKIP_MESSAGE}`);
  return false;
}

export interface RedisServerOptions {
  /** Clients must authenticate with it (`--requirepass`). */
  password?: string;
  /** Milliseconds to wait for the server to answer PING. @default 10000 */
  startTimeoutMs?: number;
}

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` (without the password). */
  readonly url: string;
  readonly port: number;
  /** The running server's pid; undefined while stopped. */
  readonly pid: number | undefined;
  /**
   * Stops the server; `restart()` brings it back on the same port. Its data is lost, as a
   * Redis without persistence loses it, unless `keepData` (then it is saved and loaded again).
   */
  stop(options?: { keepData?: boolean }): Promise<void>;
  /** Starts a stopped server again on the same port; resolves once it answers PING. */
  restart(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Thaws a paused process (SIGCONT). */
  resume(): void;
  /** Stops it for good and removes its folder; safe to call twice. */
  close(): Promise<void>;
}

/** Servers still running, killed when the test process exits whatever the tests did. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const command = redisServerPath();
  if (!command) {
    throw new Error(
      'redis-server is not on PATH (apt-get install -y redis-server); in CI the Redis tests fail rather than skip',
    );
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolmask-redis-'));
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  let child: ChildProcess | undefined;
  let port = 0;
  let paused = false;

  // A free port can be taken by someone else before redis-server binds it: try a few.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      child = await launch(command, port, dir, options.password, startTimeoutMs);
      break;
    } catch (error) {
      if (attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  async function stopProcess(keepData: boolean): Promise<void> {
    const current = child;
    if (!current) return;
    child = undefined;
    if (paused) current.kill('SIGCONT');
    paused = false;
    const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
    if (current.exitCode === null && current.signalCode === null) {
      if (keepData) {
        await sendCommands(port, options.password, ['SHUTDOWN', 'SAVE']).catch(() => undefined);
      } else {
        current.kill('SIGTERM');
      }
      const killer = setTimeout(() => current.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
    running.delete(current);
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid;
    },
    async stop(stopOptions = {}) {
      await stopProcess(stopOptions.keepData ?? false);
    },
    async restart() {
      if (child) throw new Error(`redis-server on port ${port} is still running`);
      child = await launch(command, port, dir, options.password, startTimeoutMs);
    },
    pause() {
      if (!child) throw new Error(`redis-server on port ${port} is not running`);
      child.kill('SIGSTOP');
      paused = true;
    },
    resume() {
      if (!child) throw new Error(`redis-server on port ${port} is not running`);
      child.kill('SIGCONT');
      paused = false;
    },
    async close() {
      await stopProcess(false);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function launch(
  command: string,
  port: number,
  dir: string,
  password: string | undefined,
  startTimeoutMs: number,
): Promise<ChildProcess> {
  const settings: Array<[string, string]> = [
    ['port', String(port)],
    ['bind', '127.0.0.1'],
    ['save', ''],
    ['appendonly', 'no'],
    ['dir', dir],
    ['daemonize', 'no'],
    ['loglevel', 'warning'],
  ];
  const args = settings.flatMap(([name, value]) => [`--${name}`, value]);
  if (password !== undefined) args.push('--requirepass', password);
  const child = spawn(command, args, {
    cwd: dir,
    env: { ...process.env, ...processMarker() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  // The test process must not wait for the server; the exit hook above ends it.
  child.unref();
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4_000);
  };
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', collect);
    (stream as net.Socket | null)?.unref();
  }
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(error));
    child.once('exit', (code, signal) =>
      reject(new Error(`redis-server on port ${port} exited (${signal ?? code}): ${output}`)),
    );
  });
  exited.catch(() => undefined);
  const deadline = Date.now() + startTimeoutMs;
  try {
    for (;;) {
      const answer = await Promise.race([
        sendCommands(port, password, ['PING']).catch(() => ''),
        exited,
      ]);
      if (answer.includes('+PONG')) return child;
      if (Date.now() > deadline) {
        throw new Error(`redis-server on port ${port} did not answer PING: ${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } catch (error) {
    running.delete(child);
    child.kill('SIGKILL');
    throw error;
  }
}

/** Sends one command (after AUTH when there is a password) and resolves with the raw replies. */
function sendCommands(
  port: number,
  password: string | undefined,
  words: string[],
): Promise<string> {
  const encode = (parts: string[]) =>
    `*${parts.length}\r\n` +
    parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('');
  const request = (password !== undefined ? encode(['AUTH', password]) : '') + encode(words);
  const replies = password !== undefined ? 2 : 1;
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = '';
    const finish = () => {
      socket.destroy();
      resolve(received);
    };
    socket.setTimeout(1_000, () => socket.destroy(new Error('no answer')));
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      if (received.split('\r\n').length > replies) finish();
    });
    // SHUTDOWN closes the connection without a reply.
    socket.on('close', finish);
    socket.on('error', reject);
  });
}
