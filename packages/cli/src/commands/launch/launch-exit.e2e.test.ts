/**
 * `toolmask gemini` (the built binary) when the person presses Ctrl-C (issue 24, item 7): the
 * terminal sends SIGINT to the whole foreground process group, the launcher and its client alike.
 * The client decides (here: it exits 130 a moment later, as gemini does on its second Ctrl-C); the
 * launcher ignores it, also a further Ctrl-C pressed while it cleans up, prints the run's figures
 * after the client is gone, exits with the client's code, and leaves no process behind.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const CLI = path.join(repo, 'packages/cli/dist/index.js');

const cleanups = cleanUpAfterEach();

/** A stand-in gemini: says it is ready, then exits 130 shortly after the first SIGINT. */
const CLIENT = `#!/usr/bin/env node
process.on('SIGINT', () => setTimeout(() => process.exit(130), 100));
process.stderr.write('client ready\\n');
setInterval(() => undefined, 1000);
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('Ctrl-C in a toolmask gemini run', () => {
  it('the summary follows the client, whose exit code is kept; nothing is left running', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-ctrl-c-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const home = path.join(root, 'home');
    await fs.mkdir(path.join(home, '.gemini'), { recursive: true });
    const client = path.join(root, 'gemini');
    await fs.writeFile(client, CLIENT, { mode: 0o755 });
    // Its own process group, as a terminal's foreground job is: a signal to -pid reaches all.
    const launcher = spawn(process.execPath, [CLI, 'gemini', '--gemini-bin', client, '-p', 'hi'], {
      cwd: root,
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: home,
        GEMINI_CLI_HOME: home,
        TOOLMASK_HOME: path.join(root, 'toolmask'),
        GEMINI_API_KEY: 'x',
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const group = launcher.pid!;
    cleanups.push(async () => {
      if (alive(group)) process.kill(-group, 'SIGKILL');
    });
    let stderr = '';
    const ready = new Promise<void>((resolve) =>
      launcher.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('client ready')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => launcher.on('close', resolve));
    await ready;
    process.kill(-group, 'SIGINT');
    // A second Ctrl-C, just after the client is gone, while the launcher cleans up.
    setTimeout(() => {
      if (alive(group)) process.kill(-group, 'SIGINT');
    }, 150);
    expect(await exited, stderr).toBe(130);
    const lines = stderr.trim().split('\n');
    expect(lines.at(-2)).toBe('toolmask: this run: no model request went through the gateway');
    expect(lines.at(-1)).toContain("dashboard: this run's gateway stopped with it");
    // The whole group is gone: no client, no gateway.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(() => process.kill(-group, 0)).toThrow();
  }, 30_000);
});
