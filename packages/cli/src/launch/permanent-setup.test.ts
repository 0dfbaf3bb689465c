import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applySetup, undoSetup } from './permanent-setup.js';

let root: string;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

async function folders() {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-setup-'));
  const clientDir = path.join(root, '.gemini');
  const stateDir = path.join(root, 'state');
  await fs.mkdir(clientDir);
  return { clientDir, stateDir };
}

// As gemini-cli writes it: one key per line (an inline object would be expanded by the edit).
const ORIGINAL = `{
  // my theme, keep it
  "ui": {
    "theme": "GitHub"
  },
  "mcpServers": {
    "other": {
      "command": "other-server"
    }
  }
}
`;

describe('toolmask setup', () => {
  it('gemini: adds the MCP server and base URLs keeping comments and a backup; --undo puts back exactly that', async () => {
    const { clientDir, stateDir } = await folders();
    await fs.writeFile(path.join(clientDir, 'settings.json'), ORIGINAL);
    await fs.writeFile(path.join(clientDir, '.env'), 'GEMINI_API_KEY=abc\n');
    const report = await applySetup({
      client: 'gemini',
      clientDir,
      gatewayUrl: 'http://127.0.0.1:8787',
      stateDir,
      env: {},
    });
    const settings = await fs.readFile(path.join(clientDir, 'settings.json'), 'utf8');
    expect(settings).toContain('// my theme, keep it');
    expect(settings).toContain('"other"');
    expect(settings).toMatch(/"toolmask": \{[^}]*"httpUrl": "http:\/\/127\.0\.0\.1:8787\/mcp"/);
    // No auth type chosen, an API key in .env: the API key is chosen, or gemini would refuse
    // GOOGLE_GEMINI_BASE_URL.
    expect(settings).toMatch(/"selectedType": "gemini-api-key"/);
    const env = await fs.readFile(path.join(clientDir, '.env'), 'utf8');
    expect(env).toBe(
      [
        'GEMINI_API_KEY=abc',
        'GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8787/gemini',
        'GOOGLE_VERTEX_BASE_URL=http://127.0.0.1:8787/vertex',
        'CODE_ASSIST_ENDPOINT=http://127.0.0.1:8787/code-assist',
        `GEMINI_EXP=${path.join(stateDir, 'gemini-experiments.json')}`,
        '',
      ].join('\n'),
    );
    expect(await fs.readFile(path.join(clientDir, 'settings.json.toolmask-backup'), 'utf8')).toBe(
      ORIGINAL,
    );
    expect(report.lines.join('\n')).toContain('mcpServers.toolmask (unset) →');
    expect(report.lines.join('\n')).toContain(
      'security.auth.selectedType (unset) → "gemini-api-key"',
    );
    await expect(
      applySetup({
        client: 'gemini',
        clientDir,
        gatewayUrl: 'http://127.0.0.1:8787',
        stateDir,
        env: {},
      }),
    ).rejects.toThrow(/already/);

    // A later edit of the person's own stays.
    const edited = settings.replace('"GitHub"', '"Dracula"');
    await fs.writeFile(path.join(clientDir, 'settings.json'), edited);
    await undoSetup({ client: 'gemini', stateDir });
    expect(await fs.readFile(path.join(clientDir, 'settings.json'), 'utf8')).toBe(
      ORIGINAL.replace('"GitHub"', '"Dracula"'),
    );
    expect(await fs.readFile(path.join(clientDir, '.env'), 'utf8')).toBe('GEMINI_API_KEY=abc\n');
    await expect(undoSetup({ client: 'gemini', stateDir })).rejects.toThrow(/nothing to undo/);
  });

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

  it('gemini: a settings file with a byte order mark is read as gemini reads it, and keeps the mark', async () => {
    const { clientDir, stateDir } = await folders();
    const file = path.join(clientDir, 'settings.json');
    await fs.writeFile(file, `\uFEFF${ORIGINAL}`);
    await applySetup({
      client: 'gemini',
      clientDir,
      gatewayUrl: 'http://127.0.0.1:8787',
      stateDir,
      env: { GEMINI_API_KEY: 'abc' },
    });
    const text = await fs.readFile(file, 'utf8');
    expect(text.startsWith('\uFEFF{')).toBe(true);
    expect(text).toContain('"toolmask"');
    await undoSetup({ client: 'gemini', stateDir });
    expect(await fs.readFile(file, 'utf8')).toBe(`\uFEFF${ORIGINAL}`);
  });

  it('refuses a settings file that is a FIFO, without waiting on it', async () => {
    const { clientDir, stateDir } = await folders();
    const file = path.join(clientDir, 'settings.json');
    execFileSync('mkfifo', [file]);
    await expect(
      applySetup({
        client: 'gemini',
        clientDir,
        gatewayUrl: 'http://127.0.0.1:8787',
        stateDir,
        env: { GEMINI_API_KEY: 'abc' },
      }),
    ).rejects.toThrow(/settings\.json: it is not a regular file/);
    await expect(fs.stat(path.join(stateDir, 'setup-gemini.json'))).rejects.toThrow();
  });

  it("gemini: the person's own GEMINI_EXP flags stay in force, and --undo removes toolmask's file", async () => {
    const { clientDir, stateDir } = await folders();
    const own = path.join(root, 'my-experiments.json');
    await fs.writeFile(
      own,
      JSON.stringify({ flags: [{ flagId: 1, boolValue: true }], experimentIds: [7] }),
    );
    await fs.writeFile(path.join(clientDir, '.env'), `GEMINI_API_KEY=abc\nGEMINI_EXP=${own}\n`);
    const report = await applySetup({
      client: 'gemini',
      clientDir,
      gatewayUrl: 'http://127.0.0.1:8787',
      stateDir,
      env: {},
    });
    const ours = path.join(stateDir, 'gemini-experiments.json');
    const merged = JSON.parse(await fs.readFile(ours, 'utf8')) as {
      flags: Array<{ flagId: number }>;
      experimentIds: number[];
    };
    expect(merged.flags[0]).toEqual({ flagId: 1, boolValue: true });
    expect(merged.flags.length).toBeGreaterThan(1);
    expect(merged.experimentIds).toEqual([7]);
    expect(report.lines.join('\n')).toContain('your own GEMINI_EXP flags');
    await undoSetup({ client: 'gemini', stateDir });
    await expect(fs.stat(ours)).rejects.toThrow();
    expect(await fs.readFile(path.join(clientDir, '.env'), 'utf8')).toBe(
      `GEMINI_API_KEY=abc\nGEMINI_EXP=${own}\n`,
    );
  });

  it('refuses a settings file that is not valid JSON, naming it, and changes nothing', async () => {
    const { clientDir, stateDir } = await folders();
    await fs.writeFile(path.join(clientDir, 'settings.json'), '{ "ui": ');
    await expect(
      applySetup({
        client: 'gemini',
        clientDir,
        gatewayUrl: 'http://127.0.0.1:8787',
        stateDir,
        env: {},
      }),
    ).rejects.toThrow(/settings\.json: not valid JSON/);
    expect(await fs.readFile(path.join(clientDir, 'settings.json'), 'utf8')).toBe('{ "ui": ');
    await expect(fs.stat(path.join(stateDir, 'setup-gemini.json'))).rejects.toThrow();
  });

  it('a ~/.qwen that is a link, with linked files: written through, the links kept', async () => {
    const { stateDir } = await folders();
    const dotfiles = path.join(root, 'dotfiles', 'qwen');
    await fs.mkdir(dotfiles, { recursive: true });
    await fs.writeFile(path.join(root, 'dotfiles', 'qwen-settings.json'), '{}\n');
    await fs.writeFile(path.join(root, 'dotfiles', 'qwen.env'), 'OPENAI_API_KEY=k\n');
    await fs.symlink('../qwen-settings.json', path.join(dotfiles, 'settings.json'));
    await fs.symlink('../qwen.env', path.join(dotfiles, '.env'));
    const clientDir = path.join(root, '.qwen');
    await fs.symlink(dotfiles, clientDir);
    await applySetup({
      client: 'qwen',
      clientDir,
      gatewayUrl: 'http://127.0.0.1:8787',
      stateDir,
      env: {},
    });
    for (const link of [
      clientDir,
      path.join(dotfiles, 'settings.json'),
      path.join(dotfiles, '.env'),
    ])
      expect((await fs.lstat(link)).isSymbolicLink()).toBe(true);
    expect(
      JSON.parse(await fs.readFile(path.join(root, 'dotfiles', 'qwen-settings.json'), 'utf8')),
    ).toMatchObject({ mcpServers: { toolmask: { httpUrl: 'http://127.0.0.1:8787/mcp' } } });
    expect(await fs.readFile(path.join(root, 'dotfiles', 'qwen.env'), 'utf8')).toBe(
      'OPENAI_API_KEY=k\nOPENAI_BASE_URL=http://127.0.0.1:8787/openai/v1\n',
    );
    await undoSetup({ client: 'qwen', stateDir });
    expect((await fs.lstat(path.join(dotfiles, 'settings.json'))).isSymbolicLink()).toBe(true);
    expect(
      JSON.parse(await fs.readFile(path.join(root, 'dotfiles', 'qwen-settings.json'), 'utf8')),
    ).toEqual({});
    expect(await fs.readFile(path.join(root, 'dotfiles', 'qwen.env'), 'utf8')).toBe(
      'OPENAI_API_KEY=k\n',
    );
  });

  it('gemini with no auth type and no API key: no GOOGLE_GEMINI_BASE_URL, and it says why', async () => {
    const { clientDir, stateDir } = await folders();
    const report = await applySetup({
      client: 'gemini',
      clientDir,
      gatewayUrl: 'http://127.0.0.1:8787',
      stateDir,
      env: {},
    });
    const env = await fs.readFile(path.join(clientDir, '.env'), 'utf8');
    expect(env).not.toContain('GOOGLE_GEMINI_BASE_URL');
    expect(env).toContain('CODE_ASSIST_ENDPOINT=http://127.0.0.1:8787/code-assist');
    const settings = JSON.parse(await fs.readFile(path.join(clientDir, 'settings.json'), 'utf8'));
    expect(settings).not.toHaveProperty('security');
    expect(report.lines.join('\n')).toContain('GOOGLE_GEMINI_BASE_URL is left out');
  });

  it('gemini with an auth type chosen: that choice is left alone', async () => {
    for (const selectedType of ['gemini-api-key', 'oauth-personal'] as const) {
      const { clientDir, stateDir } = await folders();
      await fs.writeFile(
        path.join(clientDir, 'settings.json'),
        JSON.stringify({ security: { auth: { selectedType } } }, null, 2),
      );
      await applySetup({
        client: 'gemini',
        clientDir,
        gatewayUrl: 'http://127.0.0.1:8787',
        stateDir,
        env: { GEMINI_API_KEY: 'k' },
      });
      const settings = JSON.parse(await fs.readFile(path.join(clientDir, 'settings.json'), 'utf8'));
      expect(settings.security.auth.selectedType).toBe(selectedType);
      const env = await fs.readFile(path.join(clientDir, '.env'), 'utf8');
      expect(env.includes('GOOGLE_GEMINI_BASE_URL')).toBe(selectedType === 'gemini-api-key');
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
