/**
 * `toolmask gemini` reads the person's settings as gemini does (a byte order mark is no error; a
 * FIFO in place of the file is refused at once, never waited on) and keeps the person's own
 * `GEMINI_EXP` flags from wherever gemini would find them, a `.env` included.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { DEFAULT_UPSTREAMS } from '@toolmask/gateway';
import { geminiUpstreamShown, planGeminiLaunch, prepareGeminiLaunch } from './launch.js';

const cleanups = cleanUpAfterEach();

async function home(settings?: string) {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-gemini-launch-'));
  cleanups.push(() => fs.rm(folder, { recursive: true, force: true }));
  await fs.mkdir(path.join(folder, '.gemini'));
  if (settings !== undefined)
    await fs.writeFile(path.join(folder, '.gemini', 'settings.json'), settings);
  return folder;
}

async function prepare(folder: string, extra: Record<string, string> = {}) {
  const env = { HOME: folder, GEMINI_CLI_HOME: folder, ...extra };
  return prepareGeminiLaunch({
    env,
    cwd: folder,
    plan: await planGeminiLaunch(env, folder),
    gateway: { url: 'http://127.0.0.1:1', accessSecret: 'a'.repeat(64) },
    stateDir: path.join(folder, 'state'),
    sessionId: 's',
  });
}

describe('toolmask gemini', () => {
  it('reads a settings file that starts with a byte order mark', async () => {
    const folder = await home(
      '\uFEFF{ "security": { "auth": { "selectedType": "vertex-ai" } } }\n',
    );
    const launch = await prepare(folder);
    cleanups.push(async () => void (await launch.overlay.restore()));
    expect(launch.auth).toBe('vertex-ai');
  });

  it('refuses a settings file that is a FIFO, naming it, without waiting on it', async () => {
    const folder = await home();
    const file = path.join(folder, '.gemini', 'settings.json');
    execFileSync('mkfifo', [file]);
    await expect(prepare(folder, { GEMINI_API_KEY: 'k' })).rejects.toThrow(
      `${file}: it is not a regular file`,
    );
  });

  it("keeps the person's own GEMINI_EXP flags when they are set in a .env", async () => {
    const folder = await home();
    const own = path.join(folder, 'my-experiments.json');
    await fs.writeFile(own, JSON.stringify({ flags: [{ flagId: 1, boolValue: true }] }));
    await fs.writeFile(
      path.join(folder, '.gemini', '.env'),
      `GEMINI_API_KEY=k\nGEMINI_EXP=${own}\n`,
    );
    const launch = await prepare(folder);
    cleanups.push(async () => void (await launch.overlay.restore()));
    const file = launch.env['GEMINI_EXP'] as string;
    expect(file).not.toBe(own);
    const flags = (JSON.parse(await fs.readFile(file, 'utf8')) as { flags: unknown[] }).flags;
    expect(flags[0]).toEqual({ flagId: 1, boolValue: true });
    expect(flags.length).toBeGreaterThan(1);
  });

  it("sets no terminal title of gemini's for the run, unless the person chose (issue 35)", async () => {
    const settingsOf = async (launch: Awaited<ReturnType<typeof prepare>>) =>
      JSON.parse(
        await fs.readFile(path.join(launch.overlay.home, '.gemini', 'settings.json'), 'utf8'),
      ) as { ui?: Record<string, unknown> };
    const plain = await prepare(await home(), { GEMINI_API_KEY: 'k' });
    cleanups.push(async () => void (await plain.overlay.restore()));
    expect((await settingsOf(plain)).ui).toEqual({ hideWindowTitle: true });
    const chosen = await prepare(await home('{ "ui": { "hideWindowTitle": false } }'), {
      GEMINI_API_KEY: 'k',
    });
    cleanups.push(async () => void (await chosen.overlay.restore()));
    expect((await settingsOf(chosen)).ui).toEqual({ hideWindowTitle: false });
  });
});

describe('geminiUpstreamShown', () => {
  it('names the upstream of each auth type, own or default', () => {
    const TEST = 'http://127.0.0.1:9999';
    expect(geminiUpstreamShown({}, 'gemini')).toBe(DEFAULT_UPSTREAMS.gemini);
    expect(geminiUpstreamShown({ gemini: TEST }, 'gemini')).toBe(TEST);
    expect(geminiUpstreamShown({}, 'codeAssist')).toBe(DEFAULT_UPSTREAMS.codeAssist);
    expect(geminiUpstreamShown({}, 'vertex')).toContain('regional');
  });
});
