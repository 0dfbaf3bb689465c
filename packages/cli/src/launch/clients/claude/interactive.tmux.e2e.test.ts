/**
 * An interactive `toolmask claude` in tmux (issue 35, item 4): the real `claude` binary's
 * full-screen UI, a scripted loopback Messages API fake as its upstream. While the session runs,
 * `toolmask status` in another terminal names the launcher's own gateway and prints its dashboard
 * address, and `toolmask dashboard --print` prints the same; the launcher wrote the terminal title
 * naming that gateway before claude started (read from the pane's raw output).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { anthropicAnswer } from '@toolmask/test-support/fake-anthropic';
import { startFakeUpstream } from '@toolmask/test-support/fake-upstream';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const CLI = path.join(repo, 'packages/cli/dist/index.js');
const BIN = path.join(repo, 'node_modules/.bin');
const KEY = 'sk-ant-fake-key-0123456789abcdefghij';
const ANSWER = 'HELLO FROM THE FAKE MODEL';
const hasTmux = spawnSync('tmux', ['-V']).status === 0;

const cleanups = cleanUpAfterEach();

async function until<T>(what: string, probe: () => T | undefined, ms = 60_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.skipIf(!hasTmux || !existsSync(path.join(BIN, 'claude')))(
  'an interactive toolmask claude in tmux',
  () => {
    it('toolmask status prints the dashboard address of its gateway while it runs', async () => {
      const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-claude-tmux-'));
      cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
      const home = path.join(root, 'home');
      const project = path.join(root, 'project');
      const state = path.join(root, 'state');
      await fs.mkdir(home);
      await fs.mkdir(project);
      const upstream = await startFakeUpstream((request) =>
        request.path === '/v1/messages' ? anthropicAnswer([{ text: ANSWER }]) : { json: {} },
      );
      cleanups.push(() => upstream.close());
      // Onboarding done, the key approved and the folder trusted: claude opens its prompt.
      await fs.writeFile(
        path.join(home, '.claude.json'),
        JSON.stringify({
          hasCompletedOnboarding: true,
          theme: 'dark',
          customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
          projects: {
            [project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true },
          },
        }),
      );
      const masking = path.join(root, 'masking.json');
      await fs.writeFile(masking, '{}');
      const raw = path.join(root, 'pane.raw');
      const socket = `toolmask-test-${process.pid}`;
      const tmux = (...args: string[]) =>
        execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
      const env = [
        `PATH=${BIN}:/usr/bin:/bin`,
        `HOME=${home}`,
        'TERM=xterm-256color',
        `ANTHROPIC_API_KEY=${KEY}`,
        `ANTHROPIC_BASE_URL=${upstream.url}`,
        'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1',
      ];
      // The pane's raw output is recorded from before the launcher starts.
      const command = `sleep 1; exec env -i ${env.join(' ')} ${process.execPath} ${CLI} claude --state-dir ${state} --masking-settings ${masking}`;
      tmux('new-session', '-d', '-s', 'run', '-x', '160', '-y', '40', '-c', project, command);
      cleanups.push(async () => {
        spawnSync('tmux', ['-L', socket, 'kill-server']);
      });
      tmux('pipe-pane', '-o', '-t', 'run', `cat >> ${raw}`);

      const screen = () => tmux('capture-pane', '-p', '-t', 'run');
      await until('the prompt', () => (/❯/.test(screen()) ? true : undefined));
      tmux('send-keys', '-t', 'run', '-l', 'say hi');
      tmux('send-keys', '-t', 'run', 'Enter');
      await until('the answer', () => (screen().includes(ANSWER) ? true : undefined));

      const status = spawnSync(process.execPath, [CLI, 'status', '--state-dir', state], {
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home },
      });
      expect(status.status, status.stderr).toBe(0);
      const launch = /^launch {5}toolmask claude's own gateway (http:\/\/127\.0\.0\.1:\d+) /m.exec(
        status.stdout,
      );
      expect(launch, status.stdout).not.toBeNull();
      const url = launch![1]!;
      const secret = (await fs.readFile(path.join(state, 'access-secret'), 'utf8')).trim();
      expect(status.stdout).toContain(`dashboard  ${url}/?token=${secret}`);
      const printed = spawnSync(
        process.execPath,
        [CLI, 'dashboard', '--print', '--state-dir', state],
        { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home } },
      );
      expect(printed.stdout).toBe(`${url}/?token=${secret}\n`);
      // The requests went through that gateway; the title named it before claude drew its UI.
      expect(upstream.requests.some((request) => request.path === '/v1/messages')).toBe(true);
      const output = await fs.readFile(raw, 'utf8');
      expect(output).toContain(
        `\u001b]0;toolmask claude · dashboard ${url} (toolmask dashboard opens it)\u0007`,
      );
    }, 120_000);
  },
);
