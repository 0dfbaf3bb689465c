/**
 * `toolmask setup codex [--undo]` on temporary homes: the TOML edits it makes in config.toml, and
 * that `--undo` gives back every byte (compared with the whole home before setup) when nothing
 * changed it since, or takes back only setup's lines and tables when something did; refusals
 * change nothing.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpClient, undoClient } from '../../../test-data/client-setup.js';
import { backupsUnder, snapshot, temporaryHomes, write } from '../../../test-data/setup-homes.js';
import { scanToml } from '../../files/toml-scanner.js';
import { codexClient } from './index.js';

const GATEWAY = 'http://127.0.0.1:8787';
const { folders } = temporaryHomes('toolmask-setup-codex-');

const setup = (
  stateDir: string,
  env: Record<string, string>,
  gatewayUpstreams?: Record<string, string>,
) =>
  setUpClient(codexClient, {
    gatewayUrl: GATEWAY,
    stateDir,
    env,
    ...(gatewayUpstreams ? { gatewayUpstreams } : {}),
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
    await setup(stateDir, env, { openai: 'https://api.openai.com/v1' });
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
    expect(text).toMatch(/default_tools_approval_mode = "approve"\nrequired = true\n$/);
    expect(() => scanToml(text)).not.toThrow();
    await expect(setup(stateDir, env)).rejects.toThrow(/already/);
    await undoClient(codexClient, stateDir);
    expect(await snapshot(home)).toEqual(before);
  });

  it("a ChatGPT sign-in is routed as the launcher routes it: codex's own login, to the ChatGPT endpoint (issue 35)", async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    await write(file, CODEX_CONFIG);
    await write(
      path.join(home, '.codex', 'auth.json'),
      JSON.stringify({ auth_mode: 'chatgpt', tokens: { access_token: 't' } }),
    );
    const before = await snapshot(home);
    // The gateway must send the OpenAI API where codex sent it: the ChatGPT endpoint.
    await expect(setup(stateDir, env, { openai: 'https://api.openai.com/v1' })).rejects.toThrow(
      /https:\/\/chatgpt\.com\/backend-api\/codex \(OpenAI's own provider with your ChatGPT sign-in\)/,
    );
    const result = await setup(stateDir, env, {
      openai: 'https://chatgpt.com/backend-api/codex',
    });
    const text = await fs.readFile(file, 'utf8');
    expect(text).toContain(
      `\n[model_providers.toolmask]\nname = "OpenAI (ChatGPT) through toolmask"\nbase_url = "${GATEWAY}/openai"\nwire_api = "responses"\nrequires_openai_auth = true\nsupports_websockets = false\n\n[mcp_servers.toolmask]`,
    );
    expect(text).not.toContain('env_key');
    expect(JSON.stringify(result)).toContain('codex keeps its ChatGPT sign-in');
    await undoClient(codexClient, stateDir);
    expect(await snapshot(home)).toEqual(before);
  });

  it("a provider of the person's own: its base_url pointed at the gateway in place, put back by --undo", async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    const own = `model_provider = 'router'\n\n[model_providers.router]\nname = "Router"\nbase_url = 'https://router.example/api/v1'   # theirs\nenv_key = "ROUTER_KEY"`;
    await write(file, own);
    const before = await snapshot(home);
    await setup(stateDir, env, { openai: 'https://router.example/api/v1' });
    const text = await fs.readFile(file, 'utf8');
    expect(text).toContain(
      `base_url = "${GATEWAY}/openai/v1"   # theirs\nenv_key = "ROUTER_KEY"\n\n[mcp_servers.toolmask]`,
    );
    expect(text).not.toContain('model_providers.toolmask');
    await undoClient(codexClient, stateDir);
    expect(await snapshot(home)).toEqual(before);
  });

  it('a file edited since: only setup’s lines and tables go, the edit stays, the backup goes', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    await write(file, CODEX_CONFIG);
    await setup(stateDir, env);
    const edited = (await fs.readFile(file, 'utf8')).replace(
      '[projects."/home/me/work"]',
      '[projects."/home/me/other"]\ntrust_level = "trusted"\n\n[projects."/home/me/work"]',
    );
    await fs.writeFile(file, edited);
    const undo = await undoClient(codexClient, stateDir);
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
    await setup(stateDir, env);
    const file = path.join(home, '.codex', 'config.toml');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(await fs.readFile(file, 'utf8')).toMatch(
      /^model_provider = "toolmask"\n\n\[model_providers\.toolmask\]/,
    );
    await undoClient(codexClient, stateDir);
    await expect(fs.stat(file)).rejects.toThrow();
  });

  it('config.toml gets the access secret: left 0600, and said; --undo gives its mode back, or keeps 0600 in a file edited since', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    await write(file, CODEX_CONFIG, 0o644);
    const before = await snapshot(home);
    const report = await setup(stateDir, env);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(report.lines).toContain(
      `${file}: now 0600 (it was 0644): it holds the gateway's access secret`,
    );
    await undoClient(codexClient, stateDir);
    expect(await snapshot(home)).toEqual(before);

    await setup(stateDir, env);
    await fs.appendFile(file, '\n[projects."/home/me/other"]\ntrust_level = "trusted"\n');
    const undo = await undoClient(codexClient, stateDir);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(undo.lines).toContain(
      `${file}: left 0600 (it was 0644 before setup; edited since, it may hold what you would not share)`,
    );
  });

  it('a ~/.codex that is a link (a dotfiles folder): edited where it leads, as for ~/.gemini; a linked config.toml is refused', async () => {
    const { root, home, stateDir, env } = await folders();
    const dotfiles = path.join(root, 'dotfiles', 'codex');
    await write(path.join(dotfiles, 'config.toml'), CODEX_CONFIG);
    await fs.symlink('../dotfiles/codex', path.join(home, '.codex'));
    await setup(stateDir, env);
    expect((await fs.lstat(path.join(home, '.codex'))).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(path.join(dotfiles, 'config.toml'), 'utf8')).toContain(
      '[mcp_servers.toolmask]',
    );
    await undoClient(codexClient, stateDir);
    expect(await fs.readFile(path.join(dotfiles, 'config.toml'), 'utf8')).toBe(CODEX_CONFIG);

    await fs.rm(path.join(home, '.codex'));
    await fs.mkdir(path.join(home, '.codex'));
    await fs.symlink(path.join(dotfiles, 'config.toml'), path.join(home, '.codex', 'config.toml'));
    await expect(setup(stateDir, env)).rejects.toThrow(
      `${path.join(home, '.codex', 'config.toml')} is a symbolic link`,
    );
  });

  it('OPENAI_BASE_URL in the environment is not the upstream (codex 0.169.0 ignores it)', async () => {
    const { home, stateDir, env } = await folders();
    await write(path.join(home, '.codex', 'config.toml'), CODEX_CONFIG);
    const withVariable = { ...env, OPENAI_BASE_URL: 'https://proxy.example/v1' };
    await setup(stateDir, withVariable, { openai: 'https://api.openai.com/v1' });
    await undoClient(codexClient, stateDir);
    const report = await setup(stateDir, withVariable);
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
    const report = await setup(stateDir, env);
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

  it("a trusted project's .codex/config.toml in the folder setup runs in that chooses its own provider or base URL: a warning naming it (issue 35)", async () => {
    const { root, home, stateDir, env } = await folders();
    const project = path.join(root, 'work');
    await write(path.join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const projectConfig = path.join(project, '.codex', 'config.toml');
    await write(projectConfig, 'openai_base_url = "https://eu.example/v1"\n');
    const trust = `[projects."${project}"]\ntrust_level = "trusted"\n`;
    await write(path.join(home, '.codex', 'config.toml'), `model = "o3"\n\n${trust}`);
    const report = await setUpClient(codexClient, {
      gatewayUrl: GATEWAY,
      stateDir,
      env,
      cwd: path.join(project, 'src'),
    });
    expect(report.lines).toContain(
      `Warning: ${projectConfig} sets openai_base_url: codex in ${project} may not go through the gateway (a trusted project's config is read over config.toml). Point it at the gateway yourself (docs/gateway.md), or keep that project for runs you want unmasked.`,
    );
    await undoClient(codexClient, stateDir);
    // Untrusted, codex does not read it: nothing said.
    await write(path.join(home, '.codex', 'config.toml'), 'model = "o3"\n');
    const untrusted = await setUpClient(codexClient, {
      gatewayUrl: GATEWAY,
      stateDir,
      env,
      cwd: project,
    });
    expect(untrusted.lines.join('\n')).not.toContain(projectConfig);
  });

  it('a legacy `profile` key is no longer a reason to refuse (codex 0.169.0 refuses it itself)', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    await write(file, 'profile = "work"\n[profiles.work]\nmodel_provider = "azure"\n');
    await setup(stateDir, env);
    expect(await fs.readFile(file, 'utf8')).toContain('[mcp_servers.toolmask]');
  });

  it('a config.toml that would not parse as TOML (a key twice) is refused, untouched', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.codex', 'config.toml');
    await write(file, 'model = "a"\nmodel = "b"\n');
    const before = await snapshot(home);
    await expect(setup(stateDir, env)).rejects.toThrow(`${file} is not valid TOML (line 2:`);
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
      await expect(setup(stateDir, env, upstreams)).rejects.toThrow(message);
      expect(await snapshot(home)).toEqual(before);
    }
    await expect(fs.stat(path.join(stateDir, 'setup-codex.json'))).rejects.toThrow();
  });
});
