/**
 * `toolmask setup opencode [--undo]` on temporary homes: the provider's base URL and the MCP server
 * in opencode's global config, and that `--undo` gives back every byte when nothing changed it
 * since, or takes back only setup's values when something did; refusals change nothing.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { setUpClient, undoClient } from '../../../test-data/client-setup.js';
import { backupsUnder, snapshot, temporaryHomes, write } from '../../../test-data/setup-homes.js';
import { opencodeClient } from './index.js';

const GATEWAY = 'http://127.0.0.1:8787';
const { folders } = temporaryHomes('toolmask-setup-opencode-');

const setup = (
  stateDir: string,
  env: Record<string, string>,
  gatewayUpstreams?: Record<string, string>,
) =>
  setUpClient(opencodeClient, {
    gatewayUrl: GATEWAY,
    stateDir,
    env,
    ...(gatewayUpstreams ? { gatewayUpstreams } : {}),
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
    const report = await setup(stateDir, env, { openai: 'https://router.example/v1' });
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
    // The config has its "$schema" line already: no word about opencode adding one.
    expect(report.lines.join('\n')).not.toContain('$schema');
    await undoClient(opencodeClient, stateDir);
    expect(await snapshot(home)).toEqual(before);
  });

  it('a config opencode edited since (its $schema line): the values put back, the edit kept', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.config', 'opencode', 'opencode.json');
    const own = OPENCODE_CONFIG.replace('  "$schema": "https://opencode.ai/config.json",\n', '');
    await write(file, own);
    const report = await setup(stateDir, env);
    expect(report.lines.join('\n')).toContain(`opencode adds a "$schema" line to ${file}`);
    const now = await fs.readFile(file, 'utf8');
    await fs.writeFile(
      file,
      now.replace('{\n', '{\n  "$schema": "https://opencode.ai/config.json",\n'),
    );
    await undoClient(opencodeClient, stateDir);
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
    const report = await setup(stateDir, env);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(report.lines).toContain(
      `${file}: now 0600 (it was 0664): it holds the gateway's access secret`,
    );
    await undoClient(opencodeClient, stateDir);
    expect(await snapshot(home)).toEqual(before);
  });

  it("says when the folder's project config sets the provider's baseURL again: opencode there would bypass the gateway (issue 35)", async () => {
    const { root, home, stateDir, env } = await folders();
    await write(path.join(home, '.config', 'opencode', 'opencode.json'), OPENCODE_CONFIG);
    const project = path.join(root, 'project');
    await write(path.join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await write(path.join(project, 'opencode.json'), OPENCODE_CONFIG);
    const inProject = await setUpClient(opencodeClient, {
      gatewayUrl: GATEWAY,
      stateDir,
      env,
      gatewayUpstreams: { openai: 'https://router.example/v1' },
      cwd: project,
    });
    expect(inProject.lines).toContain(
      `In ${project}, a project config sets provider "router"'s baseURL (https://router.example/v1) over the global one: opencode there goes straight to it, not through the gateway. Run \`toolmask opencode\` there, or drop that baseURL from the project's config.`,
    );
    await undoClient(opencodeClient, stateDir);
    // Elsewhere, nothing to say.
    const elsewhere = await setUpClient(opencodeClient, {
      gatewayUrl: GATEWAY,
      stateDir,
      env,
      gatewayUpstreams: { openai: 'https://router.example/v1' },
      cwd: root,
    });
    expect(elsewhere.lines.join('\n')).not.toContain('a project config');
  });

  it('refuses a config without an OpenAI-compatible provider, and one whose upstream the gateway does not have', async () => {
    const { home, stateDir, env } = await folders();
    const file = path.join(home, '.config', 'opencode', 'opencode.json');
    await write(file, '{ "model": "anthropic/claude" }\n');
    await expect(setup(stateDir, env)).rejects.toThrow(/no OpenAI-compatible provider/);
    await write(file, OPENCODE_CONFIG);
    const before = await snapshot(home);
    await expect(setup(stateDir, env, { openai: 'https://api.openai.com/v1' })).rejects.toThrow(
      'opencode sends its requests to https://router.example/v1 (provider "router"), but the gateway at http://127.0.0.1:8787 sends the OpenAI API to https://api.openai.com/v1',
    );
    expect(await snapshot(home)).toEqual(before);
  });
});
