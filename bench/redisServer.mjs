/**
 * A `redis-server` for section 5 (the team gateway), started as the tests start one
 * (packages/test-support/src/redis-server.ts): on a free loopback port, no config file, nothing
 * saved (`--save '' --appendonly no`), a folder of its own as `--dir`. With it, a client (the
 * gateway's own ioredis) for what the bench reads: `INFO`, `SCAN`, `MEMORY USAGE`.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { accepts, freePort } from './childProcess.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { Redis } = createRequire(path.join(root, 'packages/gateway/package.json'))('ioredis');

/** Where `redis-server` is on PATH; undefined when it is not there. */
export function redisServerPath() {
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!folder) continue;
    const candidate = path.join(folder, 'redis-server');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/** `INFO <section>` as `{ field: value }` (values as Redis wrote them). */
export function parseInfo(text) {
  const fields = {};
  for (const line of text.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields[line.slice(0, at)] = line.slice(at + 1);
  }
  return fields;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function launch(command, port, dir) {
  const log = fs.openSync(path.join(dir, 'redis.log'), 'a');
  const child = spawn(
    command,
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      ...['--dir', dir, '--daemonize', 'no', '--loglevel', 'warning'],
    ],
    { cwd: dir, stdio: ['ignore', log, log] },
  );
  fs.closeSync(log);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 10_000;
  while (child.exitCode === null && child.signalCode === null && Date.now() < deadline) {
    if (await accepts(port)) return { child, exited };
    await sleep(10);
  }
  child.kill('SIGKILL');
  await exited;
  return undefined;
}

/**
 * Starts a Redis in a new folder under `scratch`: `{ url, port, pid, client, info(section),
 * close() }`; `close` stops it and removes its folder.
 */
export async function startRedisServer(scratch) {
  const command = redisServerPath();
  if (!command) throw new Error('redis-server is not on PATH (apt-get install -y redis-server)');
  const dir = fs.mkdtempSync(path.join(scratch, 'redis-'));
  let started;
  let port;
  // A free port can be taken by someone else before redis-server binds it: try a few.
  for (let attempt = 1; attempt <= 3 && !started; attempt++) {
    port = await freePort();
    started = await launch(command, port, dir);
  }
  if (!started) {
    const log = fs.readFileSync(path.join(dir, 'redis.log'), 'utf8');
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`redis-server did not start: ${log.slice(-2_000)}`);
  }
  const { child, exited } = started;
  const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
  await client.ping();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    client,
    info: async (section) => parseInfo(await client.info(section)),
    async close() {
      client.disconnect();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 3_000);
        await exited;
        clearTimeout(killer);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
