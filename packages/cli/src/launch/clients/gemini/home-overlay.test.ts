/**
 * The one-run view of `~/.gemini`: when the person's folder, or files in it, are links into a
 * dotfiles repository, the launch works, and what gemini wrote during the run reaches the
 * dotfiles, with the links left in place. Views left by launchers that were killed are swept by
 * the next launch (whatever state their owner file is in); those of running launchers are not.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { deadPid } from '@toolmask/test-support/dead-pid';
import { KEPT_VIEW_MS, restoreAbandonedOverlays } from '../../run/home-overlay.js';
import { GEMINI_OVERLAY } from './config.js';
import { planGeminiLaunch, prepareGeminiLaunch } from './launch.js';

const cleanups = cleanUpAfterEach();

async function linkedHome() {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-overlay-'));
  cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
  const dotfiles = path.join(home, 'dotfiles', 'gemini');
  const settingsTarget = path.join(home, 'dotfiles', 'gemini-settings.json');
  await fs.mkdir(dotfiles, { recursive: true });
  await fs.writeFile(
    settingsTarget,
    '{\n  // mine\n  "security": { "auth": { "selectedType": "gemini-api-key" } }\n}\n',
  );
  await fs.writeFile(path.join(dotfiles, 'history.txt'), 'old\n');
  await fs.writeFile(path.join(home, 'dotfiles', 'trusted.json'), '{}');
  // ~/.gemini is a link; in it, settings.json and trustedFolders.json are links too.
  await fs.symlink(settingsTarget, path.join(dotfiles, 'settings.json'));
  await fs.symlink(path.join(home, 'dotfiles', 'trusted.json'), path.join(dotfiles, 'trust.json'));
  await fs.symlink(dotfiles, path.join(home, '.gemini'));
  return { home, dotfiles, settingsTarget, stateDir: path.join(home, 'state') };
}

describe('the gemini home overlay and a symlinked ~/.gemini', () => {
  it('launches, and brings back what the run wrote through the links', async () => {
    const paths = await linkedHome();
    const env = { HOME: paths.home, GEMINI_CLI_HOME: paths.home, GEMINI_API_KEY: 'k' };
    const launch = await prepareGeminiLaunch({
      env,
      cwd: paths.home,
      plan: await planGeminiLaunch(env, paths.home),
      gateway: { url: 'http://127.0.0.1:1', accessSecret: 'a'.repeat(64) },
      stateDir: paths.stateDir,
      sessionId: 's',
    });
    const overlay = path.join(launch.overlay.home, '.gemini');
    expect(await fs.readFile(path.join(overlay, 'history.txt'), 'utf8')).toBe('old\n');
    // What gemini does during the run: a setting changed, a new file, a linked file replaced.
    // (The run's ui block holds the launcher's hideWindowTitle: gemini's theme joins it.)
    const settings = await fs.readFile(path.join(overlay, 'settings.json'), 'utf8');
    expect(settings).toContain('"hideWindowTitle": true');
    await fs.writeFile(
      path.join(overlay, 'settings.json'),
      settings.replace('"hideWindowTitle": true', '"hideWindowTitle": true, "theme": "Dracula"'),
    );
    await fs.writeFile(path.join(overlay, 'new.json'), 'new');
    await fs.rm(path.join(overlay, 'trust.json'));
    await fs.writeFile(path.join(overlay, 'trust.json'), '{"replaced":true}');
    expect(await launch.overlay.restore()).toEqual([]);

    expect((await fs.lstat(path.join(paths.home, '.gemini'))).isSymbolicLink()).toBe(true);
    expect((await fs.lstat(path.join(paths.dotfiles, 'settings.json'))).isSymbolicLink()).toBe(
      true,
    );
    const saved = await fs.readFile(paths.settingsTarget, 'utf8');
    expect(saved).toContain('// mine');
    expect(saved).toContain('"Dracula"');
    expect(saved).not.toContain('toolmask');
    expect(saved).not.toContain('hideWindowTitle');
    expect(await fs.readFile(path.join(paths.dotfiles, 'new.json'), 'utf8')).toBe('new');
    expect((await fs.lstat(path.join(paths.dotfiles, 'trust.json'))).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(path.join(paths.home, 'dotfiles', 'trusted.json'), 'utf8')).toBe(
      '{"replaced":true}',
    );
  });
});

describe('the .env files gemini reads', () => {
  it("the person's home .env is where gemini looks for it in the overlay; GEMINI_CLI_HOME's .gemini/.env gives the upstream", async () => {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-overlay-env-'));
    cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
    const geminiHome = path.join(home, 'gemini-home');
    await fs.mkdir(path.join(geminiHome, '.gemini'), { recursive: true });
    await fs.writeFile(path.join(geminiHome, '.env'), 'GEMINI_API_KEY=from-home-env\n');
    await fs.writeFile(
      path.join(geminiHome, '.gemini', '.env'),
      'GOOGLE_GEMINI_BASE_URL=https://proxy.example/gemini\n',
    );
    const project = path.join(home, 'project');
    await fs.mkdir(project);
    // The user's own home (HOME) is elsewhere: gemini goes by GEMINI_CLI_HOME.
    const env = {
      HOME: path.join(home, 'elsewhere'),
      GEMINI_CLI_HOME: geminiHome,
      GEMINI_API_KEY: 'k',
    };
    const plan = await planGeminiLaunch(env, project);
    expect(plan.upstreams).toEqual({ gemini: 'https://proxy.example/gemini' });
    const launch = await prepareGeminiLaunch({
      env,
      cwd: project,
      plan,
      gateway: { url: 'http://127.0.0.1:1', accessSecret: 'a'.repeat(64) },
      stateDir: path.join(home, 'state'),
      sessionId: 's',
    });
    expect(await fs.readFile(path.join(launch.overlay.home, '.env'), 'utf8')).toBe(
      'GEMINI_API_KEY=from-home-env\n',
    );
    expect(await launch.overlay.restore()).toEqual([]);
    expect(await fs.readFile(path.join(geminiHome, '.env'), 'utf8')).toBe(
      'GEMINI_API_KEY=from-home-env\n',
    );
  });
});

describe('overlays left behind', () => {
  async function plainHome() {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-overlay-'));
    cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
    await fs.mkdir(path.join(home, '.gemini'));
    return { home, launchDir: path.join(home, 'state', 'launch') };
  }

  async function launch(home: string) {
    const env = { HOME: home, GEMINI_CLI_HOME: home, GEMINI_API_KEY: 'k' };
    return prepareGeminiLaunch({
      env,
      cwd: home,
      plan: await planGeminiLaunch(env, home),
      gateway: { url: 'http://127.0.0.1:1', accessSecret: 'a'.repeat(64) },
      stateDir: path.join(home, 'state'),
      sessionId: 's',
    });
  }

  it("a killed launcher's overlay with a torn owner file is swept, not a failure", async () => {
    const { home, launchDir } = await plainHome();
    const leftover = path.join(launchDir, `gemini-${await deadPid()}-0123abcd`);
    await fs.mkdir(path.join(leftover, '.gemini'), { recursive: true });
    await fs.writeFile(path.join(leftover, '.toolmask-overlay.json'), '{"pid": 12, "realD');
    const next = await launch(home);
    cleanups.push(async () => void (await next.overlay.restore()));
    await expect(fs.stat(leftover)).rejects.toThrow();
  });

  it('the overlay of a running launcher is left alone, even before its owner file exists', async () => {
    const { home, launchDir } = await plainHome();
    // This process is alive: as if another launcher were still setting its view up.
    const running = path.join(launchDir, `gemini-${process.pid}-0123abcd`);
    await fs.mkdir(path.join(running, '.gemini'), { recursive: true });
    const next = await launch(home);
    cleanups.push(async () => void (await next.overlay.restore()));
    expect((await fs.stat(running)).isDirectory()).toBe(true);
  });
});

describe('the paths gemini printed during the run (issue 24, item 2)', () => {
  it.each([
    ['a tmp folder the person already had (linked in)', true],
    ['a tmp folder gemini made during the run (moved back)', false],
  ])('%s: still lead to the file after the run', async (_name, hadTmp) => {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-overlay-paths-'));
    cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
    await fs.mkdir(path.join(home, '.gemini', ...(hadTmp ? ['tmp'] : [])), { recursive: true });
    const env = { HOME: home, GEMINI_CLI_HOME: home, GEMINI_API_KEY: 'k' };
    const stateDir = path.join(home, 'state');
    const launch = await prepareGeminiLaunch({
      env,
      cwd: home,
      plan: await planGeminiLaunch(env, home),
      gateway: { url: 'http://127.0.0.1:1', accessSecret: 'a'.repeat(64) },
      stateDir,
      sessionId: 's',
    });
    // What gemini 0.61.0 does with a long output: saves it under its project temp dir, as it
    // sees it, and prints that path ("Output too long and was saved to: …").
    const printed = path.join(
      launch.overlay.home,
      '.gemini',
      'tmp',
      'project-1',
      'tool-outputs',
      'session-1',
      'run_shell_command_1.txt',
    );
    await fs.mkdir(path.dirname(printed), { recursive: true });
    await fs.writeFile(printed, 'the whole output\n');
    expect(await launch.overlay.restore()).toEqual([]);

    expect(await fs.readFile(printed, 'utf8')).toBe('the whole output\n');
    const real = path.join(home, '.gemini', 'tmp', 'project-1', 'tool-outputs', 'session-1');
    expect(await fs.readFile(path.join(real, 'run_shell_command_1.txt'), 'utf8')).toBe(
      'the whole output\n',
    );
    // What stays of the view is its folder and one link; the next launch leaves it alone.
    expect(await fs.readdir(launch.overlay.home)).toEqual(['.gemini']);
    const next = await prepareGeminiLaunch({
      env,
      cwd: home,
      plan: await planGeminiLaunch(env, home),
      gateway: { url: 'http://127.0.0.1:1', accessSecret: 'a'.repeat(64) },
      stateDir,
      sessionId: 's2',
    });
    await next.overlay.restore();
    expect(await fs.readFile(printed, 'utf8')).toBe('the whole output\n');
  });

  it('a kept view goes after KEPT_VIEW_MS, so that runs do not pile up folders forever', async () => {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-overlay-kept-'));
    cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
    const launchDir = path.join(home, 'state', 'launch');
    const realDir = path.join(home, '.gemini');
    await fs.mkdir(realDir, { recursive: true });
    const view = async (name: string, ageMs: number) => {
      const root = path.join(launchDir, `gemini-${await deadPid()}-${name}`);
      await fs.mkdir(root, { recursive: true });
      await fs.symlink(realDir, path.join(root, '.gemini'));
      const when = new Date(Date.now() - ageMs);
      await fs.lutimes(path.join(root, '.gemini'), when, when);
      return root;
    };
    const old = await view('0000aaaa', KEPT_VIEW_MS + 60_000);
    const recent = await view('0000bbbb', KEPT_VIEW_MS - 60_000);
    expect(await restoreAbandonedOverlays(launchDir, GEMINI_OVERLAY)).toEqual([]);
    await expect(fs.lstat(old)).rejects.toThrow();
    expect((await fs.lstat(path.join(recent, '.gemini'))).isSymbolicLink()).toBe(true);
    // The person's folder is never touched.
    expect((await fs.stat(realDir)).isDirectory()).toBe(true);
  });
});
