/**
 * `toolmask replay` through the built CLI on the fixture folders of the agents' own session files
 * (Claude Code, Codex, OpenCode): the report, each provider's pricing, `--since`, and the error for
 * a file that is none of the known formats.
 */
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const CLI = path.join(repo, 'packages/cli/dist/index.js');
const DATA = path.join(repo, 'packages/cli/src/input/test-data');

function replay(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, 'replay', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const row = (stdout: string, name: string) =>
  stdout
    .split('\n')
    .find((line) => line.startsWith(name))
    ?.trim()
    .split(/\s{2,}/);

describe('toolmask replay on the agents’ own session files', () => {
  it.each([
    ['claude-code', 'anthropic', 1.25],
    ['codex', 'openai', 1],
    ['opencode', 'openai', 1],
  ])(
    'replays the %s fixture folder, priced with %s cache rules',
    (folder, provider, writePrice) => {
      const text = replay('--compare', '--no-chart', path.join(DATA, folder));
      expect(text.code, text.stderr).toBe(0);
      expect(text.stderr).toContain(`found 1 session file in ${path.join(DATA, folder)}`);
      expect(row(text.stdout, 'requests')).toEqual(['requests', '3', '3', '3']);
      expect(row(text.stdout, 'outputs masked')).toEqual(['outputs masked', '0', '0', '0']);
      expect(text.stdout).toContain('recorded usage: 3 requests carry the provider');

      const json = replay('--json', path.join(DATA, folder));
      expect(json.code).toBe(0);
      const report = JSON.parse(json.stdout) as {
        pricing: { provider: string; cacheWritePrice: number; recorded: { requests: number } };
        strategies: Array<{
          name: string;
          summary: { requestCount: number; billedTokens: number };
        }>;
      };
      expect(report.pricing).toMatchObject({ provider, cacheWritePrice: writePrice });
      expect(report.pricing.recorded.requests).toBe(3);
      expect(report.strategies.map((strategy) => strategy.name)).toEqual(['none', 'toolmask']);
      expect(report.strategies[0]!.summary.billedTokens).toBeGreaterThan(0);
    },
  );

  it('prices with another provider on request, and keeps the same figures otherwise', () => {
    const claude = path.join(DATA, 'claude-code');
    const billed = (...args: string[]) =>
      (
        JSON.parse(replay('--json', ...args, claude).stdout) as {
          strategies: Array<{ summary: { billedTokens: number; cachedTokens: number } }>;
        }
      ).strategies[0]!.summary;
    const anthropic = billed();
    const openai = billed('--pricing', 'openai');
    expect(openai.cachedTokens).toBe(anthropic.cachedTokens);
    expect(anthropic.billedTokens).toBeGreaterThan(openai.billedTokens);
  });

  it('replays an interactive Claude Code transcript (its first line a mode record), with --since', async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-replay-interactive-'));
    try {
      const project = path.join(DATA, 'claude-code', '-home-user-project');
      const [name] = await fs.readdir(project);
      const recorded = await fs.readFile(path.join(project, name!), 'utf8');
      const sessionId = name!.replace(/\.jsonl$/, '');
      await fs.mkdir(path.join(folder, '-home-user-project'));
      await fs.writeFile(
        path.join(folder, '-home-user-project', name!),
        [
          JSON.stringify({ type: 'mode', mode: 'normal', sessionId }),
          JSON.stringify({ type: 'permission-mode', permissionMode: 'default', sessionId }),
          recorded,
        ].join('\n'),
      );
      const run = replay('--since', '2000-01-01', '--compare', '--no-chart', folder);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('--since 2000-01-01: 1 session kept');
      expect(row(run.stdout, 'requests')).toEqual(['requests', '3', '3', '3']);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });

  it('--since leaves out older sessions', () => {
    const run = replay('--since', '2030-01-01', path.join(DATA, 'codex'));
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('--since 2030-01-01: 0 sessions kept, 1 older left out');
  });

  it('names the file and what was expected for a file of no known format (exit 2)', async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-replay-agents-'));
    try {
      const file = path.join(folder, 'log.jsonl');
      await fs.writeFile(file, '{"level":"info","msg":"hi"}\n');
      const run = replay(file);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `toolmask: ${file}: not a session: expected a Claude Code transcript, a Codex session file, a qwen-code or gemini-cli chat recording (JSON Lines)`,
      );
      expect(run.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });
});
