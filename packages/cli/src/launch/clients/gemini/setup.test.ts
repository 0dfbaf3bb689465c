/**
 * `toolmask setup gemini [--undo]` on temporary folders: what it writes in settings.json and
 * .env, and that `--undo` puts back the exact bytes (modes, files it created, backups removed),
 * or only setup's values in a file edited since; refusals (a link, a FIFO, text it cannot read)
 * change nothing. The guarantees of the one setup engine (launch/setup/), with gemini's plan.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setUpClient, undoClient } from '../../../test-data/client-setup.js';
import { geminiClient } from './index.js';

let root: string;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

/** Setup of gemini whose folder is `clientDir` (`<GEMINI_CLI_HOME>/.gemini`). */
function applySetup(options: {
  client: 'gemini';
  clientDir: string;
  gatewayUrl: string;
  stateDir: string;
  env: Record<string, string>;
}) {
  return setUpClient(geminiClient, {
    gatewayUrl: options.gatewayUrl,
    stateDir: options.stateDir,
    env: { ...options.env, GEMINI_CLI_HOME: path.dirname(options.clientDir) },
  });
}

const undoSetup = (options: { client: 'gemini'; stateDir: string }) =>
  undoClient(geminiClient, options.stateDir);

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

describe('toolmask setup gemini', () => {
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
    // No backup left behind, whichever way each file was put back.
    expect((await fs.readdir(clientDir)).sort()).toEqual(['.env', 'settings.json']);
    await expect(undoSetup({ client: 'gemini', stateDir })).rejects.toThrow(/nothing to undo/);
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

  describe('never through a link or a FIFO (issue 21, hole 10)', () => {
    const setup = (clientDir: string, stateDir: string) =>
      applySetup({
        client: 'gemini',
        clientDir,
        gatewayUrl: 'http://127.0.0.1:8787',
        stateDir,
        env: { GEMINI_API_KEY: 'abc' },
      });

    it('a .env (or settings.json) that is a link to a file outside HOME: refused, naming it; the target and the folder untouched', async () => {
      for (const name of ['.env', 'settings.json']) {
        const { clientDir, stateDir } = await folders();
        const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-outside-'));
        try {
          const target = path.join(outside, 'passwd');
          const original = 'root:x:0:0:root:/root:/bin/bash\n';
          await fs.writeFile(target, original);
          await fs.symlink(target, path.join(clientDir, name));
          await expect(setup(clientDir, stateDir)).rejects.toThrow(
            `${path.join(clientDir, name)} is a symbolic link (to ${target}); toolmask setup does not edit a file through a link`,
          );
          expect(await fs.readFile(target, 'utf8')).toBe(original);
          expect(await fs.readdir(outside)).toEqual(['passwd']);
          expect(await fs.readdir(clientDir)).toEqual([name]);
          await expect(fs.stat(stateDir)).rejects.toThrow();
        } finally {
          await fs.rm(outside, { recursive: true, force: true });
          await fs.rm(root, { recursive: true, force: true });
        }
      }
    });

    it('a .env that is a FIFO: refused at once, without waiting on it', async () => {
      const { clientDir, stateDir } = await folders();
      execFileSync('mkfifo', [path.join(clientDir, '.env')]);
      const started = Date.now();
      await expect(setup(clientDir, stateDir)).rejects.toThrow(
        `${path.join(clientDir, '.env')}: it is not a regular file (a FIFO, socket or device)`,
      );
      expect(Date.now() - started).toBeLessThan(2_000);
      await expect(fs.stat(stateDir)).rejects.toThrow();
      expect(await fs.readdir(clientDir)).toEqual(['.env']);
    }, 5_000);

    it('a GEMINI_EXP file of the person that is a FIFO: not waited on, no flags of theirs', async () => {
      const { clientDir, stateDir } = await folders();
      const own = path.join(root, 'exp-fifo');
      execFileSync('mkfifo', [own]);
      await fs.writeFile(path.join(clientDir, '.env'), `GEMINI_EXP=${own}\n`);
      await setup(clientDir, stateDir);
      const ours = JSON.parse(
        await fs.readFile(path.join(stateDir, 'gemini-experiments.json'), 'utf8'),
      ) as { experimentIds: unknown[] };
      expect(ours.experimentIds).toEqual([]);
    }, 5_000);

    it('a dangling link at the backup path: refused, and nothing is created at its target', async () => {
      const { clientDir, stateDir } = await folders();
      const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-outside-'));
      try {
        const file = path.join(clientDir, 'settings.json');
        await fs.writeFile(file, ORIGINAL);
        const target = path.join(outside, 'planted');
        await fs.symlink(target, `${file}.toolmask-backup`);
        await expect(setup(clientDir, stateDir)).rejects.toThrow(
          `${file}.toolmask-backup is a symbolic link (to ${target}); toolmask setup does not write its backup through a link`,
        );
        expect(await fs.readdir(outside)).toEqual([]);
        expect(await fs.readFile(file, 'utf8')).toBe(ORIGINAL);
        await expect(fs.stat(stateDir)).rejects.toThrow();
      } finally {
        await fs.rm(outside, { recursive: true, force: true });
      }
    });

    it('a settings.json turned into a link after setup: --undo refuses it and writes nothing', async () => {
      const { clientDir, stateDir } = await folders();
      const file = path.join(clientDir, 'settings.json');
      await fs.writeFile(file, ORIGINAL);
      await setup(clientDir, stateDir);
      const elsewhere = path.join(root, 'elsewhere.json');
      await fs.rename(file, elsewhere);
      const written = await fs.readFile(elsewhere, 'utf8');
      await fs.symlink(elsewhere, file);
      const env = await fs.readFile(path.join(clientDir, '.env'), 'utf8');
      await expect(undoSetup({ client: 'gemini', stateDir })).rejects.toThrow(
        `${file} is a symbolic link`,
      );
      expect(await fs.readFile(elsewhere, 'utf8')).toBe(written);
      expect(await fs.readFile(path.join(clientDir, '.env'), 'utf8')).toBe(env);
      expect((await fs.stat(path.join(stateDir, 'setup-gemini.json'))).isFile()).toBe(true);
    });
  });

  describe('--undo puts back the exact bytes (issue 21, hole 11)', () => {
    // Layouts setup's edits cannot reverse to the same text: a one-line block it expands, a last
    // line with no newline, CRLF and bytes that are not UTF-8.
    const SETTINGS =
      '{"mcpServers": {"other": {"command": "other-server"}}, "ui": {"theme": "GitHub"}}';
    const ENV = Buffer.concat([
      Buffer.from('# mine\r\nGEMINI_API_KEY=abc\r\nNOTE="caf'),
      Buffer.from([0xe9]),
      Buffer.from('"'),
    ]);

    async function setUp() {
      const { clientDir, stateDir } = await folders();
      const settingsFile = path.join(clientDir, 'settings.json');
      const envFile = path.join(clientDir, '.env');
      await fs.writeFile(settingsFile, SETTINGS, { mode: 0o640 });
      await fs.chmod(settingsFile, 0o640);
      await fs.writeFile(envFile, ENV);
      const options = {
        client: 'gemini' as const,
        clientDir,
        gatewayUrl: 'http://127.0.0.1:8787',
        stateDir,
        env: {},
      };
      await applySetup(options);
      return { clientDir, stateDir, settingsFile, envFile };
    }

    it('files unchanged since setup: byte-identical, mode kept, backups gone', async () => {
      const { clientDir, stateDir, settingsFile, envFile } = await setUp();
      expect(await fs.readFile(settingsFile, 'utf8')).not.toBe(SETTINGS);
      // While set up, it holds the gateway's access secret: its owner's only.
      expect((await fs.stat(settingsFile)).mode & 0o777).toBe(0o600);
      const report = await undoSetup({ client: 'gemini', stateDir });
      expect(await fs.readFile(settingsFile, 'utf8')).toBe(SETTINGS);
      expect((await fs.readFile(envFile)).equals(ENV)).toBe(true);
      expect((await fs.stat(settingsFile)).mode & 0o777).toBe(0o640);
      expect((await fs.readdir(clientDir)).sort()).toEqual(['.env', 'settings.json']);
      expect(report.lines).toEqual([
        `${settingsFile}: put back exactly as it was before setup`,
        `${envFile}: put back exactly as it was before setup`,
      ]);
      // A second setup makes a fresh backup, and its --undo is exact again.
      await applySetup({
        client: 'gemini',
        clientDir,
        gatewayUrl: 'http://127.0.0.1:8787',
        stateDir,
        env: {},
      });
      await undoSetup({ client: 'gemini', stateDir });
      expect(await fs.readFile(settingsFile, 'utf8')).toBe(SETTINGS);
      expect((await fs.readFile(envFile)).equals(ENV)).toBe(true);
    });

    it('a file edited since setup: only the values put back, the edit kept, and it says so', async () => {
      const { stateDir, settingsFile, envFile } = await setUp();
      await fs.appendFile(envFile, 'MINE=1\n');
      const report = await undoSetup({ client: 'gemini', stateDir });
      expect(await fs.readFile(settingsFile, 'utf8')).toBe(SETTINGS);
      expect(report.lines).toContain(
        `${envFile}: edited since setup; only the values setup set are put back`,
      );
      const env = await fs.readFile(envFile);
      expect(env.toString('latin1')).toContain('GEMINI_API_KEY=abc');
      expect(env.toString('latin1')).toContain('MINE=1');
      expect(env.toString('latin1')).not.toContain('127.0.0.1');
      // Its values are back: the backup setup made is not needed any more, and goes (issue 24).
      await expect(fs.stat(`${envFile}.toolmask-backup`)).rejects.toThrow(/ENOENT/);
      expect(report.lines).toContain(
        `${envFile}.toolmask-backup: removed (the file as it was before setup; its values are back)`,
      );
      expect((await fs.readdir(path.dirname(envFile))).sort()).toEqual(['.env', 'settings.json']);
    });

    it('a value the person changed since: left as it is, its value from before setup said, the backup gone', async () => {
      const { stateDir, settingsFile } = await setUp();
      // As gemini rewrites its settings: the file is no longer what setup wrote.
      const settings = JSON.parse(await fs.readFile(settingsFile, 'utf8')) as {
        security: { auth: { selectedType: string } };
      };
      settings.security.auth.selectedType = 'vertex-ai';
      await fs.writeFile(settingsFile, JSON.stringify(settings, null, 2));
      const report = await undoSetup({ client: 'gemini', stateDir });
      expect(report.lines).toContain(
        `${settingsFile}: security.auth.selectedType changed since setup; left as it is (before setup: (unset))`,
      );
      expect(JSON.parse(await fs.readFile(settingsFile, 'utf8'))).toEqual({
        mcpServers: { other: { command: 'other-server' } },
        ui: { theme: 'GitHub' },
        security: { auth: { selectedType: 'vertex-ai' } },
      });
      await expect(fs.stat(`${settingsFile}.toolmask-backup`)).rejects.toThrow(/ENOENT/);
    });

    it('a backup the person replaced since is not removed, and it says so', async () => {
      const { stateDir, envFile } = await setUp();
      await fs.appendFile(envFile, 'MINE=1\n');
      await fs.writeFile(`${envFile}.toolmask-backup`, 'my own notes\n');
      const report = await undoSetup({ client: 'gemini', stateDir });
      expect(await fs.readFile(`${envFile}.toolmask-backup`, 'utf8')).toBe('my own notes\n');
      expect(report.lines).toContain(
        `${envFile}.toolmask-backup: kept, it is not the file as this setup found it; remove it when you no longer need it`,
      );
    });
  });

  describe('a setup recorded by a toolmask from before the one setup engine', () => {
    /**
     * The record as `toolmask setup gemini` wrote it then (its fields), made from the one this
     * setup wrote: the files setup writes are the same bytes (checked against the older binary).
     */
    async function firstRecord(stateDir: string, withDigests: boolean) {
      const file = path.join(stateDir, 'setup-gemini.json');
      const record = JSON.parse(await fs.readFile(file, 'utf8')) as {
        files: Array<{
          file: string;
          created: boolean;
          modeBefore?: number;
          digests: unknown;
          changes: Array<Record<string, unknown>>;
        }>;
        ownFiles: string[];
      };
      const [settings, env] = record.files;
      const fields = (changes: Array<Record<string, unknown>>) =>
        changes.map(({ kind: _kind, ...change }) => change);
      const first = {
        client: 'gemini',
        settingsFile: settings!.file,
        ...(settings!.created ? { settingsFileCreated: true } : {}),
        ...(settings!.modeBefore !== undefined ? { settingsModeBefore: settings!.modeBefore } : {}),
        envFile: env!.file,
        settings: fields(settings!.changes),
        env: fields(env!.changes),
        experimentsFile: record.ownFiles[0],
        ...(withDigests ? { digests: { settings: settings!.digests, env: env!.digests } } : {}),
      };
      await fs.writeFile(file, JSON.stringify(first, null, 2) + '\n');
    }

    it("files unchanged since: put back byte for byte, toolmask's GEMINI_EXP file and the record gone", async () => {
      const { clientDir, stateDir } = await folders();
      const settingsFile = path.join(clientDir, 'settings.json');
      await fs.writeFile(settingsFile, ORIGINAL, { mode: 0o644 });
      await fs.chmod(settingsFile, 0o644);
      await fs.writeFile(path.join(clientDir, '.env'), 'GEMINI_API_KEY=abc\n');
      const options = { client: 'gemini' as const, clientDir, stateDir, env: {} };
      await applySetup({ ...options, gatewayUrl: 'http://127.0.0.1:8787' });
      await firstRecord(stateDir, true);
      const report = await undoSetup({ client: 'gemini', stateDir });
      expect(report.lines).toEqual([
        `${settingsFile}: put back exactly as it was before setup`,
        `${path.join(clientDir, '.env')}: put back exactly as it was before setup`,
      ]);
      expect(await fs.readFile(settingsFile, 'utf8')).toBe(ORIGINAL);
      expect((await fs.stat(settingsFile)).mode & 0o777).toBe(0o644);
      expect((await fs.readdir(clientDir)).sort()).toEqual(['.env', 'settings.json']);
      expect(await fs.readdir(stateDir)).toEqual(['access-secret']);
    });

    it('a record from before digests: the values put back one by one, files setup made removed', async () => {
      const { stateDir } = await folders();
      const clientDir = path.join(root, 'fresh', '.gemini');
      const options = {
        client: 'gemini' as const,
        clientDir,
        stateDir,
        env: { GEMINI_API_KEY: 'k' },
      };
      await applySetup({ ...options, gatewayUrl: 'http://127.0.0.1:8787' });
      await firstRecord(stateDir, false);
      const report = await undoSetup({ client: 'gemini', stateDir });
      expect(report.lines).toContain(
        `${path.join(clientDir, 'settings.json')}: removed (setup had created it)`,
      );
      expect(report.lines).toContain(
        `${path.join(clientDir, '.env')}: GOOGLE_GEMINI_BASE_URL → (unset)`,
      );
      expect(await fs.readdir(clientDir)).toEqual([]);
      expect(await fs.readdir(stateDir)).toEqual(['access-secret']);
    });

    it('a file that cannot be read refuses the whole --undo, as it did then', async () => {
      const { clientDir, stateDir } = await folders();
      const settingsFile = path.join(clientDir, 'settings.json');
      await fs.writeFile(settingsFile, ORIGINAL);
      await applySetup({
        client: 'gemini',
        clientDir,
        stateDir,
        env: {},
        gatewayUrl: 'http://127.0.0.1:8787',
      });
      await firstRecord(stateDir, true);
      const env = await fs.readFile(path.join(clientDir, '.env'), 'utf8');
      const elsewhere = path.join(root, 'elsewhere.json');
      await fs.rename(settingsFile, elsewhere);
      await fs.symlink(elsewhere, settingsFile);
      await expect(undoSetup({ client: 'gemini', stateDir })).rejects.toThrow(
        `${settingsFile} is a symbolic link`,
      );
      expect(await fs.readFile(path.join(clientDir, '.env'), 'utf8')).toBe(env);
      const kept = JSON.parse(await fs.readFile(path.join(stateDir, 'setup-gemini.json'), 'utf8'));
      expect(kept).toHaveProperty('settingsFile', settingsFile);
    });
  });
});
