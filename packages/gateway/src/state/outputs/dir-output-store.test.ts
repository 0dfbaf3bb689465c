import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach } from '@toolmask/test-support/cleanups';
import { describeSharedOutputStore } from '../../test-utils/output-store-contract.js';
import { createDirOutputStore } from './dir-output-store.js';

async function temporaryFolder(): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-dir-outputs-')));
}

describeSharedOutputStore('dir', async () => {
  const parent = await temporaryFolder();
  return {
    store: createDirOutputStore(path.join(parent, 'shared')),
    cleanup: () => fs.rm(parent, { recursive: true, force: true }),
  };
});

describe('createDirOutputStore', () => {
  const cleanups = cleanUpAfterEach();

  /** A store in a fresh folder, and beside it a secret a planted link could lead to. */
  async function setUp() {
    const parent = await temporaryFolder();
    cleanups.push(() => fs.rm(parent, { recursive: true, force: true }));
    const secret = path.join(parent, 'secret.txt');
    await fs.writeFile(secret, 'secret\n');
    const root = path.join(parent, 'shared');
    const store = createDirOutputStore(root);
    const folder = path.join(root, 'tool-outputs', 'session-a');
    return { store, root, folder, secret };
  }

  const mode = async (file: string) => (await fs.lstat(file)).mode & 0o777;

  it('has the absolute folder as root, a relative one resolved against the current folder', () => {
    expect(createDirOutputStore('/srv/outputs/').root).toBe('/srv/outputs');
    expect(createDirOutputStore('shared').root).toBe(path.resolve('shared'));
  });

  it('writes files 0600 in folders 0700, nothing but the output left', async () => {
    const { store, root, folder } = await setUp();
    const saved = await store.save(folder, 'shell.call-1.0123456789abcdef.txt', 'output\n');
    expect(await fs.readFile(saved, 'utf8')).toBe('output\n');
    expect(await mode(saved)).toBe(0o600);
    expect(await mode(folder)).toBe(0o700);
    expect(await mode(path.join(root, 'tool-outputs'))).toBe(0o700);
    expect(await fs.readdir(folder)).toEqual(['shell.call-1.0123456789abcdef.txt']);
  });

  it('does not follow a symlink planted at an output name', async () => {
    const { store, folder, secret } = await setUp();
    await store.save(folder, 'shell.call-1.0123456789abcdef.txt', 'output\n');
    await fs.symlink(secret, path.join(folder, 'planted.txt'));
    await expect(store.read('tool-outputs/session-a/planted.txt')).rejects.toMatchObject({
      code: 'OUTSIDE',
    });
  });

  it('does not read through a conversation folder or tool-outputs/ that is a symlink', async () => {
    const { store, root, secret } = await setUp();
    const outside = path.dirname(secret);
    await fs.mkdir(path.join(root, 'tool-outputs'), { recursive: true });
    await fs.symlink(outside, path.join(root, 'tool-outputs', 'session-b'));
    await expect(store.read('tool-outputs/session-b/secret.txt')).rejects.toMatchObject({
      code: 'OUTSIDE',
    });

    const { store: other, root: otherRoot } = await setUp();
    await fs.mkdir(otherRoot, { recursive: true });
    await fs.mkdir(path.join(outside, 'session-c'));
    await fs.writeFile(path.join(outside, 'session-c', 'out.txt'), 'elsewhere\n');
    await fs.symlink(outside, path.join(otherRoot, 'tool-outputs'));
    await expect(other.read('tool-outputs/session-c/out.txt')).rejects.toMatchObject({
      code: 'OUTSIDE',
    });
  });

  it('refuses a hard link and a folder where an output should be', async () => {
    const { store, folder, secret } = await setUp();
    await store.save(folder, 'shell.call-1.0123456789abcdef.txt', 'output\n');
    await fs.link(secret, path.join(folder, 'linked.txt'));
    await fs.mkdir(path.join(folder, 'folder.txt'));
    await expect(store.read('tool-outputs/session-a/linked.txt')).rejects.toMatchObject({
      code: 'OUTSIDE',
    });
    await expect(store.read('tool-outputs/session-a/folder.txt')).rejects.toMatchObject({
      code: 'NOT_A_FILE',
    });
  });

  it('saves nothing outside root when refusing a directory', async () => {
    const { store, root } = await setUp();
    const outside = path.join(path.dirname(root), 'elsewhere', 'tool-outputs', 'session-a');
    await expect(store.save(outside, 'a.txt', 'text')).rejects.toMatchObject({ code: 'EINVAL' });
    await expect(fs.lstat(path.dirname(outside))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(fs.lstat(root)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('prunes by each file’s time, then the folders left empty and unused', async () => {
    const { store, root, folder } = await setUp();
    const now = Date.now();
    const old = new Date(now - 3_600_000);
    const oldFile = await store.save(folder, 'old.call-1.0123456789abcdef.txt', 'old');
    const newFile = await store.save(folder, 'new.call-2.0123456789abcdef.txt', 'new');
    await fs.utimes(oldFile, old, old);
    const emptied = path.join(root, 'tool-outputs', 'session-gone');
    const goneFile = await store.save(emptied, 'gone.call-3.0123456789abcdef.txt', 'gone');
    await fs.utimes(goneFile, old, old);
    await fs.utimes(emptied, old, old);

    expect(await store.prune(now - 60_000)).toBe(2);
    expect(await fs.readdir(folder)).toEqual([path.basename(newFile)]);
    await expect(fs.lstat(emptied)).rejects.toMatchObject({ code: 'ENOENT' });
    // Saving into a folder a prune removed creates it again.
    await store.save(emptied, 'gone.call-3.0123456789abcdef.txt', 'gone');
    expect(await store.read('tool-outputs/session-gone/gone.call-3.0123456789abcdef.txt')).toEqual(
      Buffer.from('gone'),
    );
  });

  it('counts saving an output again as a use: prune keeps it', async () => {
    const { store, folder } = await setUp();
    const old = new Date(Date.now() - 3_600_000);
    const file = await store.save(folder, 'shell.call-1.0123456789abcdef.txt', 'same');
    await fs.utimes(file, old, old);
    await store.save(folder, 'shell.call-1.0123456789abcdef.txt', 'same');
    expect(await store.prune(Date.now() - 60_000)).toBe(0);
    expect(await fs.readFile(file, 'utf8')).toBe('same');
  });

  it('never removes or walks into a link planted in tool-outputs/', async () => {
    const { store, root, secret } = await setUp();
    const outside = path.dirname(secret);
    await fs.mkdir(path.join(root, 'tool-outputs'), { recursive: true });
    await fs.symlink(outside, path.join(root, 'tool-outputs', 'session-link'));
    expect(await store.prune(Date.now() + 60_000)).toBe(0);
    expect(await fs.readFile(secret, 'utf8')).toBe('secret\n');
  });
});
