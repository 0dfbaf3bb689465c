/**
 * HAProxy for section 5, with the configuration the docs give a team (docs/team/haproxy.cfg:
 * round robin, no stickiness, `/healthz` checked every 500 ms), its two placeholders filled as
 * packages/test-support/src/haproxy.ts fills them: a free loopback port, one `server` line per
 * backend. `haproxy -db` in the foreground; its log (a line per request) goes to a file, so that
 * the bench process, which times the requests, never reads it.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { accepts, freePort } from './childProcess.mjs';

export const HAPROXY_PATH = '/usr/sbin/haproxy';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEMPLATE = path.join(root, 'docs/team/haproxy.cfg');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The template with `{{listen}}` and `{{servers}}` (each alone on its line) filled. */
function config(template, port, backends) {
  const fill = (text, placeholder, value) => {
    if (text.match(new RegExp(placeholder.source, 'gm'))?.length !== 1) {
      throw new Error(`${placeholder} is not on exactly one line of ${TEMPLATE}`);
    }
    return text.replace(new RegExp(placeholder.source, 'm'), (_, indent) => value(indent));
  };
  const listening = fill(
    template,
    /^([ \t]*bind )\{\{listen\}\}$/,
    (bind) => `${bind}127.0.0.1:${port}`,
  );
  return fill(listening, /^([ \t]*)\{\{servers\}\}$/, (indent) =>
    backends.map(({ name, port: to }) => `${indent}server ${name} 127.0.0.1:${to}`).join('\n'),
  );
}

/**
 * Starts HAProxy in front of `backends` (`{ name, port }`), its files in a new folder under
 * `scratch`: `{ url, pid, log, close() }`; ready once its port accepts connections.
 */
export async function startHaproxy({ backends, scratch }) {
  const template = fs.readFileSync(TEMPLATE, 'utf8');
  const dir = fs.mkdtempSync(path.join(scratch, 'haproxy-'));
  const logFile = path.join(dir, 'haproxy.log');
  for (let attempt = 1; attempt <= 3; attempt++) {
    // Another process may take the port before haproxy binds it: try another.
    const port = await freePort();
    const configFile = path.join(dir, 'haproxy.cfg');
    fs.writeFileSync(configFile, config(template, port, backends));
    const log = fs.openSync(logFile, 'a');
    const child = spawn(HAPROXY_PATH, ['-db', '-f', configFile], {
      stdio: ['ignore', log, log],
    });
    fs.closeSync(log);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const running = () => child.exitCode === null && child.signalCode === null;
    const deadline = Date.now() + 10_000;
    while (running() && Date.now() < deadline && !(await accepts(port))) await sleep(25);
    if (running() && (await accepts(port))) {
      return {
        url: `http://127.0.0.1:${port}`,
        pid: child.pid,
        log: () => fs.readFileSync(logFile, 'utf8'),
        async close() {
          if (running()) {
            child.kill('SIGTERM');
            const killer = setTimeout(() => child.kill('SIGKILL'), 3_000);
            await exited;
            clearTimeout(killer);
          }
        },
      };
    }
    child.kill('SIGKILL');
    await exited;
  }
  throw new Error(`haproxy did not start: ${fs.readFileSync(logFile, 'utf8').slice(-2_000)}`);
}
