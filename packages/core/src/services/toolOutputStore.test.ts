import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Volume, createFsFromVolume } from 'memfs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createFileToolOutputStore,
  outputFileName,
  sanitizeNameComponent,
  sessionDirectory,
  type StoreFileSystem,
} from './toolOutputStore.js';

function memoryFs() {
  return createFsFromVolume(new Volume());
}

describe('file names', () => {
  it('are content-addressed and sanitized', () => {
    const a = outputFileName('run_shell_command', 'call-1', 'hello');
    expect(a).toMatch(/^run_shell_command_call-1_[0-9a-f]{16}\.txt$/);
    expect(outputFileName('run_shell_command', 'call-1', 'hello')).toBe(a);
    expect(outputFileName('run_shell_command', 'call-1', 'hello!')).not.toBe(a);
  });

  it.each([
    ['../../etc/passwd'],
    ['/absolute/path'],
    ['a\u0000b'],
    ['x'.repeat(10_000)],
    ['CON'],
    ['..'],
    [''],
  ])('cannot leave the folder for the id %j', (callId) => {
    const name = outputFileName('tool', callId, 'text');
    expect(name).toBe(path.basename(name));
    expect(name).not.toContain('..');
    expect(name).not.toContain('\u0000');
    expect(name.length).toBeLessThan(140);
    expect(name.replace(/\.txt$/, '').toUpperCase()).not.toBe('CON');
  });

  it('keeps non-string names safe and never empty', () => {
    expect(sanitizeNameComponent(42, 'fallback')).toBe('fallback');
    expect(sanitizeNameComponent('///', 'fallback')).toBe('_');
    expect(sessionDirectory('/p', '../x')).toBe(path.join('/p', 'tool-outputs', 'session-_x'));
  });
});

describe('createFileToolOutputStore on memfs', () => {
  it('writes the full text, 0600 in a 0700 folder, and reuses the same file', async () => {
    const fsm = memoryFs();
    const store = createFileToolOutputStore({ fs: fsm as unknown as StoreFileSystem });
    const directory = '/project/tool-outputs/session-1';
    const saved = await store.save(directory, 'a_b_0123.txt', 'full output\n');
    expect(saved).toBe('/project/tool-outputs/session-1/a_b_0123.txt');
    expect(await fsm.promises.readFile(saved, 'utf8')).toBe('full output\n');
    expect(Number((await fsm.promises.stat(saved)).mode) & 0o777).toBe(0o600);
    expect(Number((await fsm.promises.stat(directory)).mode) & 0o777).toBe(0o700);
    await store.save(directory, 'a_b_0123.txt', 'full output\n');
    expect(await fsm.promises.readdir(directory)).toEqual(['a_b_0123.txt']);
  });

  it('closes a descriptor exactly once when the rename fails', async () => {
    const fsm = memoryFs();
    const closed: number[] = [];
    const failing = {
      ...fsm,
      mkdirSync: fsm.mkdirSync.bind(fsm),
      lstatSync: fsm.lstatSync.bind(fsm),
      chmodSync: fsm.chmodSync.bind(fsm),
      openSync: fsm.openSync.bind(fsm),
      writeSync: fsm.writeSync.bind(fsm),
      fsyncSync: fsm.fsyncSync.bind(fsm),
      unlinkSync: fsm.unlinkSync.bind(fsm),
      readdirSync: fsm.readdirSync.bind(fsm),
      closeSync: (descriptor: number) => {
        closed.push(descriptor);
        fsm.closeSync(descriptor);
      },
      renameSync: () => {
        throw Object.assign(new Error('permission denied'), { code: 'EACCES' });
      },
    };
    const store = createFileToolOutputStore({ fs: failing as unknown as StoreFileSystem });
    await expect(store.save('/p/tool-outputs/s', 'a_b_1.txt', 'text')).rejects.toThrow(
      'permission denied',
    );
    expect(closed).toHaveLength(1);
    expect(await fsm.promises.readdir('/p/tool-outputs/s')).toEqual([]);
  });

  it('refuses names that would leave the folder', async () => {
    const store = createFileToolOutputStore({ fs: memoryFs() as unknown as StoreFileSystem });
    await expect(store.save('/p/tool-outputs/s', '../escape.txt', 'x')).rejects.toThrow(/refusing/);
    await expect(store.save('/p/tool-outputs/s', '.hidden', 'x')).rejects.toThrow(/refusing/);
  });
});

describe('createFileToolOutputStore on a real temp dir', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('writes atomically with private modes and leaves no temporary files', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-store-'));
    const store = createFileToolOutputStore();
    const directory = sessionDirectory(root, 'abc');
    const text = 'ü'.repeat(100_000);
    const saved = await store.save(directory, outputFileName('read_file', 'c1', text), text);
    expect(fs.readFileSync(saved, 'utf8')).toBe(text);
    expect(fs.statSync(saved).mode & 0o777).toBe(0o600);
    expect(fs.statSync(directory).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(directory)).toEqual([path.basename(saved)]);
  });

  it('does not follow a symlink planted as the session folder', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-store-'));
    const elsewhere = path.join(root, 'elsewhere');
    fs.mkdirSync(elsewhere);
    const directory = sessionDirectory(root, 'abc');
    fs.mkdirSync(path.dirname(directory), { recursive: true });
    fs.symlinkSync(elsewhere, directory);
    const store = createFileToolOutputStore();
    await expect(store.save(directory, 'x_y_1.txt', 'secret')).rejects.toThrow(/symlink refused/);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it('replaces a symlink planted at the final name instead of writing through it', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-store-'));
    const target = path.join(root, 'victim.txt');
    fs.writeFileSync(target, 'original');
    const directory = sessionDirectory(root, 'abc');
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    fs.symlinkSync(target, path.join(directory, 'x_y_1.txt'));
    const saved = await createFileToolOutputStore().save(directory, 'x_y_1.txt', 'secret output');
    expect(fs.lstatSync(saved).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(saved, 'utf8')).toBe('secret output');
    expect(fs.readFileSync(target, 'utf8')).toBe('original');
  });
});
