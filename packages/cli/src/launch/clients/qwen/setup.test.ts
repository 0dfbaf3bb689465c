/**
 * `toolmask setup qwen [--undo]` on temporary folders: settings.json and .env created when
 * missing and removed again, and a ~/.qwen that is a link written through.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setUpClient, undoClient } from '../../../test-data/client-setup.js';
import { qwenClient } from './index.js';

let root: string;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

async function folders() {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-setup-'));
  return { stateDir: path.join(root, 'state') };
}

/** Setup of qwen whose folder is `clientDir` (`$QWEN_HOME`). */
function applySetup(options: {
  client: 'qwen';
  clientDir: string;
  gatewayUrl: string;
  stateDir: string;
  env: Record<string, string>;
}) {
  return setUpClient(qwenClient, {
    gatewayUrl: options.gatewayUrl,
    stateDir: options.stateDir,
    env: { ...options.env, QWEN_HOME: options.clientDir },
  });
}

const undoSetup = (options: { client: 'qwen'; stateDir: string }) =>
  undoClient(qwenClient, options.stateDir);

describe('toolmask setup qwen', () => {
  it('qwen: a missing settings file and .env are created and removed again', async () => {
    const { stateDir } = await folders();
    const clientDir = path.join(root, '.qwen');
    await applySetup({
      client: 'qwen',
      clientDir,
      gatewayUrl: 'http://127.0.0.1:8787',
      stateDir,
      env: {},
    });
    const settings = JSON.parse(await fs.readFile(path.join(clientDir, 'settings.json'), 'utf8'));
    expect(settings).toMatchObject({
      mcpServers: { toolmask: { httpUrl: 'http://127.0.0.1:8787/mcp', alwaysLoadTools: true } },
      context: { clearContextOnIdle: { toolResultsThresholdMinutes: -1 } },
    });
    expect(await fs.readFile(path.join(clientDir, '.env'), 'utf8')).toBe(
      'OPENAI_BASE_URL=http://127.0.0.1:8787/openai/v1\n',
    );
    await undoSetup({ client: 'qwen', stateDir });
    await expect(fs.stat(path.join(clientDir, 'settings.json'))).rejects.toThrow();
    await expect(fs.stat(path.join(clientDir, '.env'))).rejects.toThrow();
  });

  it("says when this shell's environment sets a variable setup writes to .env: qwen takes the environment's (issue 35)", async () => {
    const { stateDir } = await folders();
    const clientDir = path.join(root, '.qwen');
    const report = await applySetup({
      client: 'qwen',
      clientDir,
      gatewayUrl: 'http://127.0.0.1:8787',
      stateDir,
      env: { OPENAI_BASE_URL: 'https://provider.example/v1' },
    });
    expect(report.lines).toContain(
      `OPENAI_BASE_URL is set in this shell's environment (https://provider.example/v1), which qwen takes over ${path.join(clientDir, '.env')}: qwen started from here goes around the gateway; unset it (and remove it from your shell's profile).`,
    );
    await undoSetup({ client: 'qwen', stateDir });
  });

  it('a ~/.qwen that is a link (a dotfiles folder): written through the folder link', async () => {
    const { stateDir } = await folders();
    const dotfiles = path.join(root, 'dotfiles', 'qwen');
    await fs.mkdir(dotfiles, { recursive: true });
    await fs.writeFile(path.join(dotfiles, 'settings.json'), '{}\n');
    const clientDir = path.join(root, '.qwen');
    await fs.symlink(dotfiles, clientDir);
    await applySetup({
      client: 'qwen',
      clientDir,
      gatewayUrl: 'http://127.0.0.1:8787',
      stateDir,
      env: {},
    });
    expect((await fs.lstat(clientDir)).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(path.join(dotfiles, 'settings.json'), 'utf8')).toContain('toolmask');
    await undoSetup({ client: 'qwen', stateDir });
    expect(await fs.readFile(path.join(dotfiles, 'settings.json'), 'utf8')).toBe('{}\n');
  });
});
