/**
 * `toolmask setup claude [--undo]` on temporary homes: what it writes, and that `--undo` gives back
 * every file byte for byte (compared with the whole home before setup) when nothing changed it
 * since, or takes back only setup's values when something did; refusals change nothing.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpClient, undoClient } from '../../../test-data/client-setup.js';
import { backupsUnder, snapshot, temporaryHomes, write } from '../../../test-data/setup-homes.js';
import { claudeClient } from './index.js';

const GATEWAY = 'http://127.0.0.1:8787';
const { folders } = temporaryHomes('toolmask-setup-claude-');

const setup = (
  stateDir: string,
  env: Record<string, string>,
  gatewayUpstreams?: Record<string, string>,
) =>
  setUpClient(claudeClient, {
    gatewayUrl: GATEWAY,
    stateDir,
    env,
    ...(gatewayUpstreams ? { gatewayUpstreams } : {}),
  });

const CLAUDE_SETTINGS = `{
  // mine
  "model": "opus",
  "permissions": {
    "allow": ["Bash(ls:*)"]
  }
}
`;
const CLAUDE_STATE = `{
  "numStartups": 3,
  "mcpServers": {
    "other": { "type": "stdio", "command": "other" }
  }
}
`;

describe('toolmask setup claude', () => {
  it('sets the base URL, the allowed read-back tool and the MCP server; --undo gives back every byte', async () => {
    const { home, stateDir, env } = await folders();
    await write(path.join(home, '.claude', 'settings.json'), CLAUDE_SETTINGS);
    await write(path.join(home, '.claude.json'), CLAUDE_STATE, 0o600);
    const before = await snapshot(home);

    const report = await setup(stateDir, env);
    const settings = await fs.readFile(path.join(home, '.claude', 'settings.json'), 'utf8');
    expect(settings).toContain('// mine');
    expect(settings).toContain(`"ANTHROPIC_BASE_URL": "${GATEWAY}/anthropic"`);
    const state = JSON.parse(await fs.readFile(path.join(home, '.claude.json'), 'utf8'));
    expect(state.mcpServers.other).toEqual({ type: 'stdio', command: 'other' });
    expect(state.mcpServers.toolmask).toMatchObject({
      type: 'http',
      url: `${GATEWAY}/mcp`,
      headers: { 'x-toolmask-token': expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(report.lines.join('\n')).toContain(
      'permissions.allow gets "mcp__toolmask__read_tool_output"',
    );
    expect(report.lines.join('\n')).toContain(
      'permissions.allow gets "mcp__toolmask__search_tool_outputs"',
    );
    expect(await backupsUnder(home)).toHaveLength(2);
    await expect(setup(stateDir, env)).rejects.toThrow(/set up for claude already/);

    const undo = await undoClient(claudeClient, stateDir);
    expect(undo.lines.join('\n')).toContain('put back exactly as it was before setup');
    expect(await snapshot(home)).toEqual(before);
    await expect(undoClient(claudeClient, stateDir)).rejects.toThrow(/nothing to undo/);
  });

  it('parses the JSON the list edit writes (settings.json read back)', async () => {
    const { home, stateDir, env } = await folders();
    await write(path.join(home, '.claude', 'settings.json'), CLAUDE_SETTINGS);
    await setup(stateDir, env);
    const settings = await fs.readFile(path.join(home, '.claude', 'settings.json'), 'utf8');
    const parsed = JSON.parse(settings.replace('// mine', ''));
    expect(parsed.permissions.allow).toEqual([
      'Bash(ls:*)',
      'mcp__toolmask__read_tool_output',
      'mcp__toolmask__search_tool_outputs',
    ]);
  });

  it('a fresh home: both files created, and removed again by --undo', async () => {
    const { home, stateDir, env } = await folders();
    const before = await snapshot(home);
    await setup(stateDir, env);
    expect((await fs.stat(path.join(home, '.claude.json'))).mode & 0o777).toBe(0o600);
    expect(
      JSON.parse(await fs.readFile(path.join(home, '.claude', 'settings.json'), 'utf8')),
    ).toEqual({
      permissions: {
        allow: ['mcp__toolmask__read_tool_output', 'mcp__toolmask__search_tool_outputs'],
      },
      env: { ANTHROPIC_BASE_URL: `${GATEWAY}/anthropic` },
    });
    await undoClient(claudeClient, stateDir);
    // The .claude folder setup made stays (mkdir -p); no file is left in it.
    expect(await snapshot(home)).toEqual({ ...before, '.claude/': 'folder' });
  });

  it('claude rewrote its state file since: only mcpServers.toolmask goes, its own keys stay, the backup goes', async () => {
    const { home, stateDir, env } = await folders();
    await write(path.join(home, '.claude', 'settings.json'), CLAUDE_SETTINGS);
    await write(path.join(home, '.claude.json'), CLAUDE_STATE, 0o600);
    await setup(stateDir, env);
    const stateFile = path.join(home, '.claude.json');
    const state = JSON.parse(await fs.readFile(stateFile, 'utf8'));
    await fs.writeFile(stateFile, JSON.stringify({ ...state, numStartups: 4 }, null, 2));

    const undo = await undoClient(claudeClient, stateDir);
    expect(undo.lines.join('\n')).toContain(`${stateFile}: edited since setup`);
    expect(JSON.parse(await fs.readFile(stateFile, 'utf8'))).toEqual({
      numStartups: 4,
      mcpServers: { other: { type: 'stdio', command: 'other' } },
    });
    expect(await fs.readFile(path.join(home, '.claude', 'settings.json'), 'utf8')).toBe(
      CLAUDE_SETTINGS,
    );
    expect(await backupsUnder(home)).toEqual([]);
  });

  it("the person's own base URL: refused when the running gateway sends elsewhere, nothing written; else kept as the upstream to start", async () => {
    const { home, stateDir, env } = await folders();
    const own = `{ "env": { "ANTHROPIC_BASE_URL": "https://proxy.example/anthropic" } }\n`;
    await write(path.join(home, '.claude', 'settings.json'), own);
    const before = await snapshot(home);
    await expect(setup(stateDir, env, { anthropic: 'https://api.anthropic.com' })).rejects.toThrow(
      'claude sends its requests to https://proxy.example/anthropic (env.ANTHROPIC_BASE_URL in',
    );
    await expect(setup(stateDir, env, {})).rejects.toThrow(
      `\`toolmask gateway --state-dir ${stateDir} --anthropic-upstream https://proxy.example/anthropic\``,
    );
    expect(await snapshot(home)).toEqual(before);
    await expect(fs.stat(path.join(stateDir, 'setup-claude.json'))).rejects.toThrow();

    // The same upstream: fine. Not known: said, with the command.
    await setup(stateDir, env, { anthropic: 'https://proxy.example/anthropic/' });
    await undoClient(claudeClient, stateDir);
    const report = await setup(stateDir, env);
    expect(report.lines.join('\n')).toContain(
      `start the gateway with \`toolmask gateway --state-dir ${stateDir} --anthropic-upstream https://proxy.example/anthropic\``,
    );
    await undoClient(claudeClient, stateDir);
    expect(await snapshot(home)).toEqual(before);
  });

  it('a .claude.json past 1 MB (claude keeps project history in it): set up, and put back by --undo after claude grew it further', async () => {
    const { home, stateDir, env } = await folders();
    const settingsFile = path.join(home, '.claude', 'settings.json');
    const stateFile = path.join(home, '.claude.json');
    await write(settingsFile, CLAUDE_SETTINGS);
    const projects = (count: number) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, index) => [
          `/home/me/project-${index}`,
          { history: 'x'.repeat(1000) },
        ]),
      );
    const heavy = JSON.stringify({ numStartups: 900, projects: projects(1500) }, null, 2);
    expect(heavy.length).toBeGreaterThan(1024 * 1024);
    await write(stateFile, heavy, 0o600);
    const before = await snapshot(home);

    // Unchanged since: its bytes back from the backup (over 1 MB too).
    await setup(stateDir, env);
    expect((await undoClient(claudeClient, stateDir)).failures).toEqual([]);
    expect(await snapshot(home)).toEqual(before);

    await setup(stateDir, env);
    const state = JSON.parse(await fs.readFile(stateFile, 'utf8'));
    expect(state.mcpServers.toolmask.url).toBe(`${GATEWAY}/mcp`);
    // claude rewrites the file as it runs, with more history.
    await fs.writeFile(
      stateFile,
      JSON.stringify({ ...state, numStartups: 901, projects: projects(3000) }, null, 2),
    );

    const undo = await undoClient(claudeClient, stateDir);
    expect(undo.failures).toEqual([]);
    expect(await fs.readFile(settingsFile, 'utf8')).toBe(CLAUDE_SETTINGS);
    const after = JSON.parse(await fs.readFile(stateFile, 'utf8'));
    expect(after.numStartups).toBe(901);
    expect(after).not.toHaveProperty('mcpServers');
    expect(await backupsUnder(home)).toEqual([]);
    await expect(fs.stat(path.join(stateDir, 'setup-claude.json'))).rejects.toThrow();
  });

  it('a .claude.json over 64 MB is refused, naming it and the bound, nothing written', async () => {
    const { home, stateDir, env } = await folders();
    const stateFile = path.join(home, '.claude.json');
    await write(stateFile, '{}');
    // A sparse file: its size is what counts, read or not.
    await fs.truncate(stateFile, 64 * 1024 * 1024 + 1);
    const before = await snapshot(home);
    await expect(setup(stateDir, env)).rejects.toThrow(
      `${stateFile}: it is 67,108,865 bytes, larger than the 64 MB toolmask setup edits`,
    );
    expect(await snapshot(home)).toEqual(before);
  });

  it('--undo puts back every file it can, reports the one it cannot (and why), and keeps it for another --undo', async () => {
    const { root, home, stateDir, env } = await folders();
    const settingsFile = path.join(home, '.claude', 'settings.json');
    const stateFile = path.join(home, '.claude.json');
    await write(settingsFile, CLAUDE_SETTINGS);
    await write(stateFile, CLAUDE_STATE, 0o600);
    await setup(stateDir, env);
    const asSetupLeftIt = await fs.readFile(settingsFile);
    // The settings file replaced by a link (a dotfiles manager): not followed.
    const target = path.join(root, 'dotfiles-settings.json');
    await write(target, '{}');
    await fs.rm(settingsFile);
    await fs.symlink(target, settingsFile);

    const undo = await undoClient(claudeClient, stateDir);
    expect(undo.failures).toEqual([
      expect.stringContaining(`${settingsFile} is a symbolic link (to ${target})`),
    ]);
    expect(await fs.readFile(stateFile, 'utf8')).toBe(CLAUDE_STATE);
    expect(undo.lines.join('\n')).toContain(`${stateFile}: put back exactly as it was`);
    expect(await fs.readFile(target, 'utf8')).toBe('{}');

    // Fixed by the person: the next --undo finishes it.
    await fs.rm(settingsFile);
    await fs.writeFile(settingsFile, asSetupLeftIt);
    const again = await undoClient(claudeClient, stateDir);
    expect(again.failures).toEqual([]);
    expect(await fs.readFile(settingsFile, 'utf8')).toBe(CLAUDE_SETTINGS);
    expect(again.lines.join('\n')).not.toContain(stateFile);
    await expect(fs.stat(path.join(stateDir, 'setup-claude.json'))).rejects.toThrow();
  });

  it('the file that gets the access secret (.claude.json) is left 0600, and said; --undo gives its mode back', async () => {
    const { home, stateDir, env } = await folders();
    const settingsFile = path.join(home, '.claude', 'settings.json');
    const stateFile = path.join(home, '.claude.json');
    await write(settingsFile, CLAUDE_SETTINGS, 0o644);
    await write(stateFile, CLAUDE_STATE, 0o644);
    const before = await snapshot(home);
    const report = await setup(stateDir, env);
    expect((await fs.stat(stateFile)).mode & 0o777).toBe(0o600);
    // No secret in settings.json: its mode is the person's.
    expect((await fs.stat(settingsFile)).mode & 0o777).toBe(0o644);
    expect(report.lines).toContain(
      `${stateFile}: now 0600 (it was 0644): it holds the gateway's access secret`,
    );
    await undoClient(claudeClient, stateDir);
    expect(await snapshot(home)).toEqual(before);
  });

  it('refuses Bedrock, a settings file that is a link (naming it) or a FIFO, without writing', async () => {
    const { root, home, stateDir, env } = await folders();
    await expect(setup(stateDir, { ...env, CLAUDE_CODE_USE_BEDROCK: '1' })).rejects.toThrow(
      /another provider \(CLAUDE_CODE_USE_BEDROCK\)/,
    );
    const target = path.join(root, 'dotfiles-settings.json');
    await write(target, '{}');
    await fs.mkdir(path.join(home, '.claude'));
    await fs.symlink(target, path.join(home, '.claude', 'settings.json'));
    await expect(setup(stateDir, env)).rejects.toThrow(
      `${path.join(home, '.claude', 'settings.json')} is a symbolic link (to ${target})`,
    );
    await fs.rm(path.join(home, '.claude', 'settings.json'));
    execFileSync('mkfifo', [path.join(home, '.claude.json')]);
    await expect(setup(stateDir, env)).rejects.toThrow(/\.claude\.json: it is not a regular file/);
    expect(await fs.readFile(target, 'utf8')).toBe('{}');
    await expect(fs.stat(path.join(stateDir, 'setup-claude.json'))).rejects.toThrow();
  });
});
