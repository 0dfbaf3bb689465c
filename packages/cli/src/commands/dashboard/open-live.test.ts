/**
 * `toolmask dashboard` without `--telemetry-outfile` (issue 35, item 4): the live dashboard of the
 * gateway serving the person, a launcher's private one included. It prints the address (`--print`,
 * or no browser), or opens it with the browser, handing it a page that forwards to the address:
 * the access secret is never on the browser's command line. With no gateway: exit 1, saying how
 * to start one.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listenGateway, loadAccessSecret } from '@toolmask/gateway';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { runCli } from '../../program.js';
import { browserCommand } from './open-live.js';

const cleanups = cleanUpAfterEach();

async function run(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { PATH: process.env['PATH'] ?? '', ...env },
    cwd: os.tmpdir(),
  });
  return { code, stdout, stderr };
}

async function folder() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-dashboard-live-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  const settingsFile = path.join(root, 'settings.json');
  await fs.writeFile(settingsFile, '{}');
  return { root, stateDir: path.join(root, 'state'), settingsFile };
}

describe('toolmask dashboard (live)', () => {
  it("prints the address of a launcher's own gateway, or opens it with the browser", async () => {
    const paths = await folder();
    const none = await run(['dashboard', '--state-dir', paths.stateDir]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no gateway is running for .*toolmask gateway/);

    // A launcher's private gateway (toolmask claude in another terminal).
    const gateway = await listenGateway({
      port: 0,
      stateDir: paths.stateDir,
      settingsFile: paths.settingsFile,
      launchOf: 'claude',
      announce: false,
    });
    cleanups.push(() => gateway.close());
    const secret = await loadAccessSecret(paths.stateDir);
    const link = `${gateway.url}/?token=${secret}`;
    const printed = await run(['dashboard', '--print', '--state-dir', paths.stateDir]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toBe(`${link}\n`);
    // No browser (no DISPLAY, no BROWSER): the address, and why it was not opened.
    const headless = await run(['dashboard', '--state-dir', paths.stateDir]);
    expect(headless.stdout).toBe(`${link}\n`);
    expect(headless.stderr).toContain("toolmask claude's own gateway");
    expect(headless.stderr).toContain('no browser here');

    const seen = path.join(paths.root, 'browser-saw.txt');
    const browser = path.join(paths.root, 'browser.sh');
    await fs.writeFile(
      browser,
      `#!/bin/sh\nprintf '%s\\n' "$@" > '${seen}'\ncat "$1" >> '${seen}'\n`,
      {
        mode: 0o700,
      },
    );
    const opened = await run(['dashboard', '--state-dir', paths.stateDir], { BROWSER: browser });
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stderr).toContain(`opened with ${browser}`);
    for (let wait = 0; wait < 200; wait++) {
      if ((await fs.readFile(seen, 'utf8').catch(() => '')).includes('</a>')) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const [argument, ...page] = (await fs.readFile(seen, 'utf8')).split('\n');
    expect(argument).toBe(path.join(paths.stateDir, 'open-dashboard.html'));
    expect(argument).not.toContain(secret);
    expect(page.join('\n')).toContain(`url=${link}"`);
    expect((await fs.stat(argument!)).mode & 0o777).toBe(0o600);
  });

  it('finds a browser: BROWSER, open on macOS, xdg-open only with a display', () => {
    expect(browserCommand({ BROWSER: 'firefox' }, 'linux')).toBe('firefox');
    expect(browserCommand({}, 'darwin')).toBe('open');
    expect(browserCommand({ DISPLAY: ':0' }, 'linux')).toBe('xdg-open');
    expect(browserCommand({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux')).toBe('xdg-open');
    expect(browserCommand({}, 'linux')).toBeUndefined();
  });
});
