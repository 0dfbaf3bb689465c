/**
 * What the gateway benches share: a program started in a child process of its own (a gateway, the
 * fake upstream, the bare proxy), so it does not share a thread with the client that times it, and
 * percentiles of what was timed.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The value at `share` (0..1) of `values`, NaN when there are none. */
export function percentile(values, share) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? NaN;
}

/**
 * Starts `node args...` and resolves once it prints `listening on URL`: its URL, its memory as
 * /proc says (`rssMb` now, `peakMb` the high-water mark), what it wrote on stderr, and a close that
 * waits for it to exit. `log`: a file that gets its stdout; `env`: variables added to this
 * process's environment for it.
 */
export async function startListening(args, log, env) {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  if (log) child.stdout.pipe(fs.createWriteStream(log));
  const url = await new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (\S+)/.exec(stdout);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`)));
  });
  const field = (name) => {
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  };
  return {
    url,
    pid: child.pid,
    rssMb: () => field('VmRSS'),
    peakMb: () => field('VmHWM'),
    memory: () => ({ rssMb: field('VmRSS'), peakMb: field('VmHWM') }),
    stderr: () => stderr,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
    },
  };
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The fake Gemini API in a process of its own (bench/fakeGeminiUpstream.mjs). */
export const startFakeUpstream = () =>
  startListening([path.join(root, 'bench/fakeGeminiUpstream.mjs')]);

/**
 * `toolmask gateway` as a person runs it (the built CLI), on a free port, with `args` after
 * `gateway --port 0`; `nodeArgs` and BENCH_GATEWAY_NODE_ARGS pass flags to its node (`--trace-gc`);
 * `env`: variables added to its environment (a team gateway's keys).
 */
export function startGatewayProcess(args, log, nodeArgs = [], env = undefined) {
  return startListening(
    [
      ...nodeArgs,
      ...(process.env.BENCH_GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      path.join(root, 'packages/cli/dist/index.js'),
      'gateway',
      '--port',
      '0',
      ...args,
    ],
    log,
    env,
  );
}

/** A free loopback port (another process may take it before it is bound: callers retry). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections on loopback `port`. */
export function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
