/**
 * `toolmask claude -p` with the real `claude` against an upstream nobody listens on (issue 35):
 * Claude Code retries the gateway's 502 on its own, with backoff, for about three minutes, and
 * prints nothing meanwhile. The launcher must say the unreachable upstream on stderr while claude
 * still retries, within seconds of the first failure, and count it in the exit line once the run
 * is stopped.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_BIN, TOOLMASK_CLI } from '@toolmask/test-support/run-toolmask';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { processMarker, processesMarked } from '@toolmask/test-support/marked-processes';

const cleanups = cleanUpAfterEach();
const marker = processMarker();

/** A loopback port that was free a moment ago: nothing listens there. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(!existsSync(path.join(REPO_BIN, 'claude')))(
  'toolmask claude -p against an unreachable upstream',
  () => {
    it('says the upstream on stderr while claude still retries, and counts it at exit', async () => {
      const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-claude-dead-'));
      cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
      const home = path.join(root, 'home');
      await fs.mkdir(path.join(home, '.claude'), { recursive: true });
      const upstream = `http://127.0.0.1:${await closedPort()}`;
      const child = spawn(
        process.execPath,
        [TOOLMASK_CLI, 'claude', '--state-dir', path.join(root, 'state'), '-p', 'hi'],
        {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            PATH: `${REPO_BIN}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
            ...marker,
            HOME: home,
            NO_COLOR: '1',
            ANTHROPIC_BASE_URL: upstream,
            ANTHROPIC_API_KEY: 'fake-anthropic-key',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
          },
        },
      );
      cleanups.push(async () => void child.kill('SIGKILL'));
      let stderr = '';
      let exited = false;
      const closed = new Promise<number | null>((resolve) =>
        child.on('close', (code) => {
          exited = true;
          resolve(code);
        }),
      );
      const said = new Promise<number>((resolve) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('could not be reached')) resolve(performance.now());
        });
      });
      const startedAt = performance.now();
      // Claude Code gives up after minutes; the line comes long before (seconds under load).
      const saidAt = await Promise.race([said, closed.then(() => undefined)]);
      expect(saidAt, stderr).toBeDefined();
      console.log(`the unreachable upstream said after ${Math.round(saidAt! - startedAt)} ms`);
      expect(exited, 'claude was still retrying').toBe(false);
      const line = stderr.split('\n').find((text) => text.includes('could not be reached'));
      expect(line).toBe(
        `toolmask: the upstream ${upstream} could not be reached: claude got 502 and may retry on its own for minutes (gateway.log has each failure; Ctrl-C stops the run)`,
      );

      // Stopped (SIGTERM is passed on to claude): the exit line counts and names it.
      child.kill('SIGTERM');
      await closed;
      expect(stderr).toMatch(
        new RegExp(
          `toolmask: this run: .*\\d+ requests? could not reach ${upstream.replace(/[.]/g, '\\.')} \\(the client got 502; gateway\\.log has each\\)`,
        ),
      );
      expect(stderr.split('could not be reached').length, 'said once').toBe(2);
      expect(processesMarked(marker)).toEqual([]);
    }, 90_000);
  },
);
