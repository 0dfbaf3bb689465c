/**
 * The real `claude`, `codex` and `opencode` write a session against a scripted fake (two or three
 * tool calls, test-support's record-real-sessions.ts), and `toolmask replay` (the built CLI) replays what each
 * wrote where it keeps its sessions: three requests, the recorded usage read. OpenCode keeps its
 * sessions in SQLite, so its session is exported with `opencode export` first.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import {
  BIN,
  FINAL,
  binaryExists,
  recordClaude,
  recordCodex,
  recordOpencode,
} from '@toolmask/test-support/record-real-sessions';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const CLI = path.join(repo, 'packages/cli/dist/index.js');
const cleanups = cleanUpAfterEach();

async function scratch(): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-real-sessions-'));
  cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
  return root;
}

function replayJson(target: string) {
  const run = spawnSync(process.execPath, [CLI, 'replay', '--json', target], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as {
    pricing: { provider: string; recorded?: { requests: number } };
    strategies: Array<{ summary: { requestCount: number } }>;
  };
}

describe('replaying what the real agents wrote', () => {
  it.skipIf(!binaryExists('claude'))('claude: ~/.claude/projects', async () => {
    const run = await recordClaude(await scratch());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(FINAL);
    const report = replayJson(run.sessionsDir);
    expect(report.pricing).toMatchObject({ provider: 'anthropic', recorded: { requests: 3 } });
    expect(report.strategies[0]!.summary.requestCount).toBe(3);
  });

  it.skipIf(!binaryExists('codex'))('codex: ~/.codex/sessions', async () => {
    const run = await recordCodex(await scratch());
    expect(run.code, run.stderr).toBe(0);
    const report = replayJson(run.sessionsDir);
    expect(report.pricing).toMatchObject({ provider: 'openai', recorded: { requests: 3 } });
    expect(report.strategies[0]!.summary.requestCount).toBe(3);
  });

  it.skipIf(!binaryExists('opencode'))(
    'opencode: a session exported from its database',
    async () => {
      const root = await scratch();
      const run = await recordOpencode(root);
      expect(run.code, run.stderr).toBe(0);
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
      const id = (JSON.parse(listed) as Array<{ id: string }>)[0]?.id;
      expect(id).toBeDefined();
      const exported = path.join(root, `${id}.json`);
      await fs.writeFile(exported, execFileSync(opencode, ['export', id!], options));
      const report = replayJson(exported);
      expect(report.pricing).toMatchObject({ provider: 'openai', recorded: { requests: 3 } });
      expect(report.strategies[0]!.summary.requestCount).toBe(3);
    },
  );
});
