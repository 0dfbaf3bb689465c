/**
 * The real opencode 1.18.33 writes a session against a scripted fake (two bash calls, then the
 * final text: test-support's record-real-sessions.ts), and `toolmask replay` (the built CLI)
 * reads its data folder directly: the database, with the write-ahead log where opencode left
 * the session (it does not checkpoint when it exits). The report is the one of the same session
 * through `opencode export`, and the database files are not touched.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { BIN, binaryExists, recordOpencode } from '@toolmask/test-support/record-real-sessions';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const CLI = path.join(repo, 'packages/cli/dist/index.js');
const cleanups = cleanUpAfterEach();

type Timed = Record<string, unknown> & { passMs?: number };

interface Report {
  pricing: { provider: string; recorded?: { requests: number } };
  sessions: unknown[];
  strategies: Array<{ name: string; summary: Timed; requests: Timed[] }>;
}

function replay(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, 'replay', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function digests(folder: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const name of (await fs.readdir(folder)).filter((entry) => entry.startsWith('opencode'))) {
    const bytes = await fs.readFile(path.join(folder, name));
    result[name] = createHash('sha256').update(bytes).digest('hex');
  }
  return result;
}

const untimed = ({ passMs: _time, ...rest }: Timed) => rest;

/** What a replay report says of the sessions, without the paths and pass times. */
const figures = (report: Report) => ({
  pricing: report.pricing,
  sessions: report.sessions,
  strategies: report.strategies.map(({ name, summary, requests }) => ({
    name,
    summary: untimed(summary),
    requests: requests.map(untimed),
  })),
});

describe('replaying OpenCode’s database', () => {
  it.skipIf(!binaryExists('opencode'))(
    'reads ~/.local/share/opencode directly, as `opencode export` would give it',
    async () => {
      const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-opencode-db-'));
      cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
      const run = await recordOpencode(root);
      expect(run.code, run.stderr).toBe(0);
      // Where opencode left the session: in the log, the main file not yet written.
      const wal = await fs.stat(path.join(run.sessionsDir, 'opencode.db-wal'));
      expect(wal.size).toBeGreaterThan(0);
      const before = await digests(run.sessionsDir);

      const text = replay('--no-chart', '--since', '2026-01-01', run.sessionsDir);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stderr).toContain(`found 1 session file in ${run.sessionsDir}`);
      expect(text.stderr).toContain('--since 2026-01-01: 1 session kept, 0 older left out');
      expect(text.stdout).toContain(
        'Replayed 1 recorded task: 1 session, 3 requests per strategy.',
      );
      expect(text.stdout).toContain('recorded usage: 3 requests carry the provider');
      expect(text.stderr).not.toMatch(/\n\s+at /);

      const direct = JSON.parse(replay('--json', run.sessionsDir).stdout) as Report;
      expect(direct.pricing).toMatchObject({ provider: 'openai', recorded: { requests: 3 } });
      expect(await digests(run.sessionsDir)).toEqual(before);

      // The same session through opencode's own reader of its database.
      const project = path.join(root, 'project');
      const options = {
        cwd: project,
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          HOME: path.join(root, 'home'),
          PWD: project,
        },
        encoding: 'utf8' as const,
      };
      const opencode = path.join(BIN, 'opencode');
      const listed = execFileSync(opencode, ['session', 'list', '--format', 'json'], options);
      const id = (JSON.parse(listed) as Array<{ id: string }>)[0]!.id;
      const exported = path.join(root, `${id}.json`);
      await fs.writeFile(exported, execFileSync(opencode, ['export', id], options));
      const viaExport = JSON.parse(replay('--json', exported).stdout) as Report;
      expect(figures(direct)).toEqual(figures(viaExport));
    },
  );
});
