/** The person's files are written through their links, atomically, keeping their mode. */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { ensureOwnDirectory, linkTarget, writeOwnFile } from './person-files.js';

const cleanups = cleanUpAfterEach();

async function root(): Promise<string> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-person-files-'));
  cleanups.push(() => fs.rm(folder, { recursive: true, force: true }));
  return folder;
}

describe("the person's own files, written through their links", () => {
  it('writes through a chain of links into the dotfiles, which stay links', async () => {
    const dir = await root();
    await fs.mkdir(path.join(dir, 'dotfiles'));
    await fs.writeFile(path.join(dir, 'dotfiles', 'settings.json'), '{}', { mode: 0o644 });
    await fs.chmod(path.join(dir, 'dotfiles', 'settings.json'), 0o644);
    await fs.symlink('dotfiles/settings.json', path.join(dir, 'middle.json'));
    await fs.symlink(path.join(dir, 'middle.json'), path.join(dir, 'settings.json'));
    await writeOwnFile(path.join(dir, 'settings.json'), '{"a":1}');
    expect((await fs.lstat(path.join(dir, 'settings.json'))).isSymbolicLink()).toBe(true);
    expect((await fs.lstat(path.join(dir, 'middle.json'))).isSymbolicLink()).toBe(true);
    const target = path.join(dir, 'dotfiles', 'settings.json');
    expect(await fs.readFile(target, 'utf8')).toBe('{"a":1}');
    expect((await fs.stat(target)).mode & 0o777).toBe(0o644);
    // No temporary file is left beside it.
    expect(await fs.readdir(path.join(dir, 'dotfiles'))).toEqual(['settings.json']);
  });

  it('creates the target of a dangling link, and a new file 0600', async () => {
    const dir = await root();
    await fs.symlink(path.join(dir, 'dotfiles', '.env'), path.join(dir, '.env'));
    await writeOwnFile(path.join(dir, '.env'), 'A=1\n');
    expect(await fs.readFile(path.join(dir, 'dotfiles', '.env'), 'utf8')).toBe('A=1\n');
    await writeOwnFile(path.join(dir, 'new.json'), '{}');
    expect((await fs.stat(path.join(dir, 'new.json'))).mode & 0o777).toBe(0o600);
  });

  it('a loop of links is an error, not a hang', async () => {
    const dir = await root();
    await fs.symlink(path.join(dir, 'b'), path.join(dir, 'a'));
    await fs.symlink(path.join(dir, 'a'), path.join(dir, 'b'));
    await expect(linkTarget(path.join(dir, 'a'))).rejects.toMatchObject({ code: 'ELOOP' });
  });

  it('a folder that is a link to a folder is fine; a missing one is made', async () => {
    const dir = await root();
    await fs.mkdir(path.join(dir, 'dotfiles-gemini'), { mode: 0o755 });
    await fs.symlink(path.join(dir, 'dotfiles-gemini'), path.join(dir, '.gemini'));
    await ensureOwnDirectory(path.join(dir, '.gemini'));
    // Left as it is: not the state folder's 0700.
    expect((await fs.stat(path.join(dir, 'dotfiles-gemini'))).mode & 0o777).toBe(0o755);
    await ensureOwnDirectory(path.join(dir, 'new', '.qwen'));
    expect((await fs.stat(path.join(dir, 'new', '.qwen'))).isDirectory()).toBe(true);
  });
});
