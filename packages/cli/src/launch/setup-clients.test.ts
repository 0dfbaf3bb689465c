/**
 * `toolmask setup claude|codex|opencode [--undo]` on temporary homes: what each writes, and that
 * `--undo` gives back every file byte for byte (compared with the whole home before setup) when
 * nothing changed it since, or takes back only setup's values when something did; refusals
 * change nothing.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyClientSetup, undoClientSetup, type SetupClientName } from './setup-clients.js';
import { scanToml } from './setup-toml.js';

const GATEWAY = 'http://127.0.0.1:8787';

let root: string | undefined;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
  root = undefined;
});

async function folders() {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-setup-clients-'));
  const home = path.join(root, 'home');
  await fs.mkdir(home);
  return { home, stateDir: path.join(root, 'state'), env: { HOME: home } };
}

/** Every file under `folder` (links as `-> target`), with its bytes and mode. */
async function snapshot(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await fs.readdir(folder, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const name = path.relative(folder, full);
    if (entry.isSymbolicLink()) files[name] = `-> ${await fs.readlink(full)}`;
    else if (entry.isFile()) {
      const mode = ((await fs.stat(full)).mode & 0o777).toString(8);
      files[name] = `${mode} ${(await fs.readFile(full)).toString('base64')}`;
    } else files[`${name}/`] = 'folder';
  }
  return files;
}

async function write(file: string, text: string, mode = 0o644) {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text, { mode });
  await fs.chmod(file, mode);
}

const setup = (
  client: SetupClientName,
  stateDir: string,
  env: Record<string, string>,
  gatewayUpstreams?: Record<string, string>,
) =>
  applyClientSetup({
    client,
    gatewayUrl: GATEWAY,
    stateDir,
    env,
    ...(gatewayUpstreams ? { gatewayUpstreams } : {}),
  });

const backupsUnder = async (home: string) =>
  Object.keys(await snapshot(home)).filter((name) => name.includes('toolmask-backup'));

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

    const report = await setup('claude', stateDir, env);
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
    expect(await backupsUnder(home)).toHaveLength(2);
    await expect(setup('claude', stateDir, env)).rejects.toThrow(/set up for claude already/);

    const undo = await undoClientSetup({ client: 'claude', stateDir });
    expect(undo.lines.join('\n')).toContain('put back exactly as it was before setup');
    expect(await snapshot(home)).toEqual(before);
    await expect(undoClientSetup({ client: 'claude', stateDir })).rejects.toThrow(
      /nothing to undo/,
    );
  });

  it('parses the JSON the list edit writes (settings.json read back)', async () => {
    const { home, stateDir, env } = await folders();
    await write(path.join(home, '.claude', 'settings.json'), CLAUDE_SETTINGS);
    await setup('claude', stateDir, env);
    const settings = await fs.readFile(path.join(home, '.claude', 'settings.json'), 'utf8');
    const parsed = JSON.parse(settings.replace('// mine', ''));
    expect(parsed.permissions.allow).toEqual(['Bash(ls:*)', 'mcp__toolmask__read_tool_output']);
  });

  it('a fresh home: both files created, and removed again by --undo', async () => {
    const { home, stateDir, env } = await folders();
    const before = await snapshot(home);
    await setup('claude', stateDir, env);
    expect((await fs.stat(path.join(home, '.claude.json'))).mode & 0o777).toBe(0o600);
    expect(
      JSON.parse(await fs.readFile(path.join(home, '.claude', 'settings.json'), 'utf8')),
    ).toEqual({
      permissions: { allow: ['mcp__toolmask__read_tool_output'] },
      env: { ANTHROPIC_BASE_URL: `${GATEWAY}/anthropic` },
    });
    await undoClientSetup({ client: 'claude', stateDir });
    // The .claude folder setup made stays (mkdir -p); no file is left in it.
    expect(await snapshot(home)).toEqual({ ...before, '.claude/': 'folder' });
  });

  it('claude rewrote its state file since: only mcpServers.toolmask goes, its own keys stay, the backup goes', async () => {
    const { home, stateDir, env } = await folders();
    await write(path.join(home, '.claude', 'settings.json'), CLAUDE_SETTINGS);
    await write(path.join(home, '.claude.json'), CLAUDE_STATE, 0o600);
    await setup('claude', stateDir, env);
    const stateFile = path.join(home, '.claude.json');
    const state = JSON.parse(await fs.readFile(stateFile, 'utf8'));
    await fs.writeFile(stateFile, JSON.stringify({ ...state, numStartups: 4 }, null, 2));

    const undo = await undoClientSetup({ client: 'claude', stateDir });
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
    await expect(
      setup('claude', stateDir, env, { anthropic: 'https://api.anthropic.com' }),
    ).rejects.toThrow(
      'claude sends its requests to https://proxy.example/anthropic (env.ANTHROPIC_BASE_URL in',
    );
    await expect(setup('claude', stateDir, env, {})).rejects.toThrow(
      '`toolmask gateway --anthropic-upstream https://proxy.example/anthropic`',
    );
    expect(await snapshot(home)).toEqual(before);
    await expect(fs.stat(path.join(stateDir, 'setup-claude.json'))).rejects.toThrow();

    // The same upstream: fine. Not known: said, with the command.
    await setup('claude', stateDir, env, { anthropic: 'https://proxy.example/anthropic/' });
    await undoClientSetup({ client: 'claude', stateDir });
    const report = await setup('claude', stateDir, env);
    expect(report.lines.join('\n')).toContain(
      'start the gateway with `toolmask gateway --anthropic-upstream https://proxy.example/anthropic`',
    );
    await undoClientSetup({ client: 'claude', stateDir });
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
    await setup('claude', stateDir, env);
    expect((await undoClientSetup({ client: 'claude', stateDir })).failures).toEqual([]);
    expect(await snapshot(home)).toEqual(before);

    await setup('claude', stateDir, env);
    const state = JSON.parse(await fs.readFile(stateFile, 'utf8'));
    expect(state.mcpServers.toolmask.url).toBe(`${GATEWAY}/mcp`);
    // claude rewrites the file as it runs, with more history.
    await fs.writeFile(
      stateFile,
      JSON.stringify({ ...state, numStartups: 901, projects: projects(3000) }, null, 2),
    );

    const undo = await undoClientSetup({ client: 'claude', stateDir });
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
    await expect(setup('claude', stateDir, env)).rejects.toThrow(
      `${stateFile}: it is 67,108,865 bytes, larger than the 64 MB toolmask setup edits`,
    );
    expect(await snapshot(home)).toEqual(before);
  });

  it('--undo puts back every file it can, reports the one it cannot (and why), and keeps it for another --undo', async () => {
    const { home, stateDir, env } = await folders();
    const settingsFile = path.join(home, '.claude', 'settings.json');
    const stateFile = path.join(home, '.claude.json');
    await write(settingsFile, CLAUDE_SETTINGS);
    await write(stateFile, CLAUDE_STATE, 0o600);
    await setup('claude', stateDir, env);
    const asSetupLeftIt = await fs.readFile(settingsFile);
    // The settings file replaced by a link (a dotfiles manager): not followed.
    const target = path.join(root!, 'dotfiles-settings.json');
    await write(target, '{}');
    await fs.rm(settingsFile);
    await fs.symlink(target, settingsFile);

    const undo = await undoClientSetup({ client: 'claude', stateDir });
    expect(undo.failures).toEqual([
      expect.stringContaining(`${settingsFile} is a symbolic link (to ${target})`),
    ]);
    expect(await fs.readFile(stateFile, 'utf8')).toBe(CLAUDE_STATE);
    expect(undo.lines.join('\n')).toContain(`${stateFile}: put back exactly as it was`);
    expect(await fs.readFile(target, 'utf8')).toBe('{}');

    // Fixed by the person: the next --undo finishes it.
    await fs.rm(settingsFile);
    await fs.writeFile(settingsFile, asSetupLeftIt);
    const again = await undoClientSetup({ client: 'claude', stateDir });
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
    const report = await setup('claude', stateDir, env);
    expect((await fs.stat(stateFile)).mode & 0o777).toBe(0o600);
    // No secret in settings.json: its mode is the person's.
    expect((await fs.stat(settingsFile)).mode & 0o777).toBe(0o644);
    expect(report.lines).toContain(
      `${stateFile}: now 0600 (it was 0644): it holds the gateway's access secret`,
    );
    await undoClientSetup({ client: 'claude', stateDir });
    expect(await snapshot(home)).toEqual(before);
  });

  it('refuses Bedrock, a settings file that is a link (naming it) or a FIFO, without writing', async () => {
    const { home, stateDir, env } = await folders();
    await expect(
      setup('claude', stateDir, { ...env, CLAUDE_CODE_USE_BEDROCK: '1' }),
    ).rejects.toThrow(/another provider \(CLAUDE_CODE_USE_BEDROCK\)/);
    const target = path.join(root!, 'dotfiles-settings.json');
    await write(target, '{}');
    await fs.mkdir(path.join(home, '.claude'));
    await fs.symlink(target, path.join(home, '.claude', 'settings.json'));
    await expect(setup('claude', stateDir, env)).rejects.toThrow(
      `${path.join(home, '.claude', 'settings.json')} is a symbolic link (to ${target})`,
    );
    await fs.rm(path.join(home, '.claude', 'settings.json'));
    execFileSync('mkfifo', [path.join(home, '.claude.json')]);
    await expect(setup('claude', stateDir, env)).rejects.toThrow(
      /\.claude\.json: it is not a regular file/,
    );
    expect(await fs.readFile(target, 'utf8')).toBe('{}');
    await expect(fs.stat(path.join(stateDir, 'setup-claude.json'))).rejects.toThrow();
  });
});

const CODEX_CONFIG = `# my codex
model = "gpt-5-codex" # favourite
approval_policy = "on-request"

[projects."/home/me/work"]
trust_level = "trusted"

[mcp_servers.docs]
command = "docs-server"
args = ["--port", "[1]"]
`;

describe('toolmask setup codex', () => {
  it("OpenAI's own provider: a provider and an MCP server of toolmask's; --undo gives back every byte", async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    await write(file, CODEX_CONFIG);
    const before = await snapshot(home);
    await setup('codex', stateDir, env, { openai: 'https://api.openai.com/v1' });
    const text = await fs.readFile(file, 'utf8');
    expect(
      text.startsWith(
        CODEX_CONFIG.replace(
          'approval_policy = "on-request"\n',
          'approval_policy = "on-request"\nmodel_provider = "toolmask"\n',
        ),
      ),
    ).toBe(true);
    expect(text).toContain(
      `\n[model_providers.toolmask]\nname = "OpenAI through toolmask"\nbase_url = "${GATEWAY}/openai/v1"\nenv_key = "OPENAI_API_KEY"\nwire_api = "responses"\n\n[mcp_servers.toolmask]\nurl = "${GATEWAY}/mcp"\nhttp_headers = { "x-toolmask-token" = "`,
    );
    expect(text).toMatch(/default_tools_approval_mode = "approve"\n$/);
    expect(() => scanToml(text)).not.toThrow();
    await expect(setup('codex', stateDir, env)).rejects.toThrow(/already/);
    await undoClientSetup({ client: 'codex', stateDir });
    expect(await snapshot(home)).toEqual(before);
  });

  it("a provider of the person's own: its base_url pointed at the gateway in place, put back by --undo", async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    const own = `model_provider = 'router'\n\n[model_providers.router]\nname = "Router"\nbase_url = 'https://router.example/api/v1'   # theirs\nenv_key = "ROUTER_KEY"`;
    await write(file, own);
    const before = await snapshot(home);
    await setup('codex', stateDir, env, { openai: 'https://router.example/api/v1' });
    const text = await fs.readFile(file, 'utf8');
    expect(text).toContain(
      `base_url = "${GATEWAY}/openai/v1"   # theirs\nenv_key = "ROUTER_KEY"\n\n[mcp_servers.toolmask]`,
    );
    expect(text).not.toContain('model_providers.toolmask');
    await undoClientSetup({ client: 'codex', stateDir });
    expect(await snapshot(home)).toEqual(before);
  });

  it('a file edited since: only setup’s lines and tables go, the edit stays, the backup goes', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    await write(file, CODEX_CONFIG);
    await setup('codex', stateDir, env);
    const edited = (await fs.readFile(file, 'utf8')).replace(
      '[projects."/home/me/work"]',
      '[projects."/home/me/other"]\ntrust_level = "trusted"\n\n[projects."/home/me/work"]',
    );
    await fs.writeFile(file, edited);
    const undo = await undoClientSetup({ client: 'codex', stateDir });
    expect(undo.lines.join('\n')).toContain(
      '[model_providers.toolmask] and [mcp_servers.toolmask] removed',
    );
    expect(await fs.readFile(file, 'utf8')).toBe(
      CODEX_CONFIG.replace(
        '[projects."/home/me/work"]',
        '[projects."/home/me/other"]\ntrust_level = "trusted"\n\n[projects."/home/me/work"]',
      ),
    );
    expect(await backupsUnder(home)).toEqual([]);
  });

  it('no config yet: created 0600, removed by --undo', async () => {
    const { home, stateDir, env } = await folders();
    await setup('codex', stateDir, env);
    const file = path.join(home, '.codex', 'config.toml');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(await fs.readFile(file, 'utf8')).toMatch(
      /^model_provider = "toolmask"\n\n\[model_providers\.toolmask\]/,
    );
    await undoClientSetup({ client: 'codex', stateDir });
    await expect(fs.stat(file)).rejects.toThrow();
  });

  it('config.toml gets the access secret: left 0600, and said; --undo gives its mode back, or keeps 0600 in a file edited since', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    await write(file, CODEX_CONFIG, 0o644);
    const before = await snapshot(home);
    const report = await setup('codex', stateDir, env);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(report.lines).toContain(
      `${file}: now 0600 (it was 0644): it holds the gateway's access secret`,
    );
    await undoClientSetup({ client: 'codex', stateDir });
    expect(await snapshot(home)).toEqual(before);

    await setup('codex', stateDir, env);
    await fs.appendFile(file, '\n[projects."/home/me/other"]\ntrust_level = "trusted"\n');
    const undo = await undoClientSetup({ client: 'codex', stateDir });
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(undo.lines).toContain(
      `${file}: left 0600 (it was 0644 before setup; edited since, it may hold what you would not share)`,
    );
  });

  it('a ~/.codex that is a link (a dotfiles folder): edited where it leads, as for ~/.gemini; a linked config.toml is refused', async () => {
    const { home, stateDir, env } = await folders();
    const dotfiles = path.join(root!, 'dotfiles', 'codex');
    await write(path.join(dotfiles, 'config.toml'), CODEX_CONFIG);
    await fs.symlink('../dotfiles/codex', path.join(home, '.codex'));
    await setup('codex', stateDir, env);
    expect((await fs.lstat(path.join(home, '.codex'))).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(path.join(dotfiles, 'config.toml'), 'utf8')).toContain(
      '[mcp_servers.toolmask]',
    );
    await undoClientSetup({ client: 'codex', stateDir });
    expect(await fs.readFile(path.join(dotfiles, 'config.toml'), 'utf8')).toBe(CODEX_CONFIG);

    await fs.rm(path.join(home, '.codex'));
    await fs.mkdir(path.join(home, '.codex'));
    await fs.symlink(path.join(dotfiles, 'config.toml'), path.join(home, '.codex', 'config.toml'));
    await expect(setup('codex', stateDir, env)).rejects.toThrow(
      `${path.join(home, '.codex', 'config.toml')} is a symbolic link`,
    );
  });

  it('OPENAI_BASE_URL in the environment is not the upstream (codex 0.169.0 ignores it)', async () => {
    const { home, stateDir, env } = await folders();
    await write(path.join(home, '.codex', 'config.toml'), CODEX_CONFIG);
    const withVariable = { ...env, OPENAI_BASE_URL: 'https://proxy.example/v1' };
    await setup('codex', stateDir, withVariable, { openai: 'https://api.openai.com/v1' });
    await undoClientSetup({ client: 'codex', stateDir });
    const report = await setup('codex', stateDir, withVariable);
    expect(report.lines.join('\n')).toContain(
      "codex sent its requests to https://api.openai.com/v1 (OpenAI's own provider)",
    );
  });

  it('a profile file that chooses its own provider or base URL: set up, with a warning naming it', async () => {
    const { home, stateDir, env } = await folders();
    await write(path.join(home, '.codex', 'config.toml'), CODEX_CONFIG);
    await write(path.join(home, '.codex', 'work.config.toml'), 'model_provider = "azure"\n');
    await write(
      path.join(home, '.codex', 'eu.config.toml'),
      'openai_base_url = "https://eu.example/v1"\n',
    );
    await write(path.join(home, '.codex', 'plain.config.toml'), 'model = "o3"\n');
    await write(path.join(home, '.codex', 'broken.config.toml'), 'model = "\n');
    const report = await setup('codex', stateDir, env);
    const text = report.lines.join('\n');
    expect(text).toContain(
      `${path.join(home, '.codex', 'work.config.toml')} sets model_provider: \`codex --profile work\` may not go through the gateway`,
    );
    expect(text).toContain(
      `${path.join(home, '.codex', 'eu.config.toml')} sets openai_base_url: \`codex --profile eu\` may not go through the gateway`,
    );
    expect(text).not.toContain('plain.config.toml');
    expect(text).toContain(`${path.join(home, '.codex', 'broken.config.toml')} is not valid TOML`);
  });

  it('a legacy `profile` key is no longer a reason to refuse (codex 0.169.0 refuses it itself)', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    await write(file, 'profile = "work"\n[profiles.work]\nmodel_provider = "azure"\n');
    await setup('codex', stateDir, env);
    expect(await fs.readFile(file, 'utf8')).toContain('[mcp_servers.toolmask]');
  });

  it('a config.toml that would not parse as TOML (a key twice) is refused, untouched', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    await write(file, 'model = "a"\nmodel = "b"\n');
    const before = await snapshot(home);
    await expect(setup('codex', stateDir, env)).rejects.toThrow(
      `${file} is not valid TOML (line 2:`,
    );
    expect(await snapshot(home)).toEqual(before);
    await expect(fs.stat(path.join(stateDir, 'setup-codex.json'))).rejects.toThrow();
  });

  it('refuses, changing nothing: tables of its own already there, a provider it cannot point, an upstream the gateway does not have, a text it cannot follow', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    const cases: Array<[string, string | RegExp, Record<string, string>?]> = [
      [
        '[mcp_servers.toolmask]\nurl = "http://x/mcp"\n',
        'it already has mcp_servers.toolmask (the table [mcp_servers.toolmask])',
      ],
      [
        'model_providers.toolmask.base_url = "http://x"\n',
        'it already has model_providers.toolmask (the key model_providers.toolmask.base_url)',
      ],
      ['mcp_servers = { docs = { command = "d" } }\n', 'mcp_servers as an inline table'],
      [
        'model_provider = "ollama"\n',
        'model_provider is "ollama", which has no [model_providers.ollama] table',
      ],
      ['model = "unterminated\n', /cannot read it as TOML \(line 1: unterminated string\)/],
      ['model = "gpt-5"\n', 'but the gateway at http://127.0.0.1:8787 has no OpenAI upstream', {}],
    ];
    for (const [text, message, upstreams] of cases) {
      await write(file, text);
      const before = await snapshot(home);
      await expect(setup('codex', stateDir, env, upstreams)).rejects.toThrow(message);
      expect(await snapshot(home)).toEqual(before);
    }
    await expect(fs.stat(path.join(stateDir, 'setup-codex.json'))).rejects.toThrow();
  });
});

const OPENCODE_CONFIG = `{
  // opencode
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "router": {
      "npm": "@ai-sdk/openai-compatible",
      "options": { "baseURL": "https://router.example/v1", "apiKey": "{env:ROUTER_KEY}" },
      "models": { "m1": {} }
    }
  },
  "model": "router/m1"
}
`;

describe('toolmask setup opencode', () => {
  it('points the OpenAI-compatible provider at the gateway and adds mcp.toolmask; --undo gives back every byte', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.config', 'opencode', 'opencode.json');
    await write(file, OPENCODE_CONFIG);
    const before = await snapshot(home);
    const report = await setup('opencode', stateDir, env, { openai: 'https://router.example/v1' });
    const config = JSON.parse((await fs.readFile(file, 'utf8')).replace('// opencode', '')) as {
      provider: { router: { options: Record<string, string> } };
      mcp: unknown;
    };
    expect(config.provider.router.options).toEqual({
      baseURL: `${GATEWAY}/openai/v1`,
      apiKey: '{env:ROUTER_KEY}',
    });
    expect(config.mcp).toEqual({
      toolmask: {
        type: 'remote',
        url: `${GATEWAY}/mcp`,
        headers: { 'x-toolmask-token': expect.any(String) },
        enabled: true,
      },
    });
    expect(report.lines.join('\n')).toContain(
      `provider.router.options.baseURL "https://router.example/v1" → "${GATEWAY}/openai/v1"`,
    );
    await undoClientSetup({ client: 'opencode', stateDir });
    expect(await snapshot(home)).toEqual(before);
  });

  it('a config opencode edited since (its $schema line): the values put back, the edit kept', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.config', 'opencode', 'opencode.json');
    const own = OPENCODE_CONFIG.replace('  "$schema": "https://opencode.ai/config.json",\n', '');
    await write(file, own);
    await setup('opencode', stateDir, env);
    const now = await fs.readFile(file, 'utf8');
    await fs.writeFile(
      file,
      now.replace('{\n', '{\n  "$schema": "https://opencode.ai/config.json",\n'),
    );
    await undoClientSetup({ client: 'opencode', stateDir });
    expect(await fs.readFile(file, 'utf8')).toBe(
      own.replace('{\n', '{\n  "$schema": "https://opencode.ai/config.json",\n'),
    );
    expect(await backupsUnder(home)).toEqual([]);
  });

  it('the config file that gets the access secret is left 0600, and said; --undo gives its mode back', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.config', 'opencode', 'opencode.json');
    await write(file, OPENCODE_CONFIG, 0o664);
    const before = await snapshot(home);
    const report = await setup('opencode', stateDir, env);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(report.lines).toContain(
      `${file}: now 0600 (it was 0664): it holds the gateway's access secret`,
    );
    await undoClientSetup({ client: 'opencode', stateDir });
    expect(await snapshot(home)).toEqual(before);
  });

  it('refuses a config without an OpenAI-compatible provider, and one whose upstream the gateway does not have', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.config', 'opencode', 'opencode.json');
    await write(file, '{ "model": "anthropic/claude" }\n');
    await expect(setup('opencode', stateDir, env)).rejects.toThrow(/no OpenAI-compatible provider/);
    await write(file, OPENCODE_CONFIG);
    const before = await snapshot(home);
    await expect(
      setup('opencode', stateDir, env, { openai: 'https://api.openai.com/v1' }),
    ).rejects.toThrow(
      'opencode sends its requests to https://router.example/v1 (provider "router"), but the gateway at http://127.0.0.1:8787 sends the OpenAI API to https://api.openai.com/v1',
    );
    expect(await snapshot(home)).toEqual(before);
  });
});
