import { execFileSync } from 'node:child_process';
import { pbkdf2 } from 'node:crypto';
import { closeSync, constants, openSync, promises as fs, readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { appendLines, ensurePrivateDirectory, writeAtomically } from './privateFiles.js';

/** Both ways a write's own calls run (privateFiles.ts). */
const CALLS = ['thread-pool', 'inline'] as const;

let root: string;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

describe.each(CALLS)('private files (calls: %s)', (calls) => {
  it('makes the folder 0700 and the files 0600', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-private-'));
    const file = path.join(root, 'a', 'b', 'records.jsonl');
    await appendLines(file, '{"n":1}\n', { calls });
    await writeAtomically(path.join(root, 'a', 'b', 'meta.json'), '{}\n', { calls });
    expect((await fs.stat(path.join(root, 'a', 'b'))).mode & 0o777).toBe(0o700);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.join(root, 'a', 'b', 'meta.json'))).mode & 0o777).toBe(0o600);
  });

  // Folders are checked once per process; retention may remove one later (an old conversation
  // that comes back): the next write makes it again instead of failing.
  it('a folder removed after it was checked is made again by the next write', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-private-'));
    const folder = path.join(root, 'conversation');
    await appendLines(path.join(folder, 'decisions.jsonl'), '{"n":1}\n', { calls });
    await writeAtomically(path.join(folder, 'meta.json'), '{"n":1}\n', { calls });
    await fs.rm(folder, { recursive: true });

    await appendLines(path.join(folder, 'decisions.jsonl'), '{"n":2}\n', { calls });
    expect(await fs.readFile(path.join(folder, 'decisions.jsonl'), 'utf8')).toBe('{"n":2}\n');
    await fs.rm(folder, { recursive: true });
    await writeAtomically(path.join(folder, 'meta.json'), '{"n":2}\n', { calls });
    expect(await fs.readFile(path.join(folder, 'meta.json'), 'utf8')).toBe('{"n":2}\n');
    expect((await fs.stat(folder)).mode & 0o777).toBe(0o700);
    expect(await fs.readdir(folder)).toEqual(['meta.json']);
  });
});

// Hole 8 of issue 21: a process that can write into the 0700 state folder plants links so that
// the gateway's next write lands outside it. Every write below refuses, and the target is unchanged.
describe.each(CALLS)('private files never write through a planted link (calls: %s)', (calls) => {
  async function stateWithOutside() {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-private-'));
    const state = path.join(root, 'state');
    const outside = path.join(root, 'outside');
    await fs.mkdir(state, { mode: 0o700 });
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'victim.txt'), 'untouched\n');
    return { state, outside };
  }

  it('refuses to append to a link planted at the file (ELOOP), leaving its target unchanged', async () => {
    const { state, outside } = await stateWithOutside();
    await fs.mkdir(path.join(state, 'usage'), { mode: 0o700 });
    const day = path.join(state, 'usage', '2024-05-01.jsonl');
    await fs.symlink(path.join(outside, 'victim.txt'), day);

    await expect(appendLines(day, '{"n":1}\n', { root: state, calls })).rejects.toMatchObject({
      name: 'PrivateFileError',
      code: 'ELOOP',
    });
    // Without a root too: the file's own name is never followed.
    await expect(appendLines(day, '{"n":1}\n')).rejects.toMatchObject({ code: 'ELOOP' });
    expect(await fs.readFile(path.join(outside, 'victim.txt'), 'utf8')).toBe('untouched\n');
    // A dangling link is refused as well: nothing is created at its target.
    const dangling = path.join(state, 'usage', '2024-05-02.jsonl');
    await fs.symlink(path.join(outside, 'created.txt'), dangling);
    await expect(appendLines(dangling, '{"n":1}\n', { root: state, calls })).rejects.toMatchObject({
      code: 'ELOOP',
    });
    expect(await fs.readdir(outside)).toEqual(['victim.txt']);
  });

  it('refuses a linked folder right below the root (a linked conversations/), writing nothing', async () => {
    const { state, outside } = await stateWithOutside();
    await fs.symlink(outside, path.join(state, 'conversations'));
    const folder = path.join(state, 'conversations', 'abcdef0123456789');

    await expect(
      appendLines(path.join(folder, 'decisions.jsonl'), '{"n":1}\n', { root: state, calls }),
    ).rejects.toMatchObject({ name: 'PrivateFileError', code: 'ENOTDIR' });
    await expect(
      writeAtomically(path.join(folder, 'meta.json'), '{}\n', { root: state, calls }),
    ).rejects.toMatchObject({ code: 'ENOTDIR' });
    await expect(ensurePrivateDirectory(folder, { root: state, calls })).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
    expect(await fs.readdir(outside)).toEqual(['victim.txt']);
  });

  it('refuses a link at any depth: an intermediate folder, or the last one (conversations/<id>)', async () => {
    const { state, outside } = await stateWithOutside();
    await fs.mkdir(path.join(outside, 'c'));
    await fs.mkdir(path.join(state, 'a'), { mode: 0o700 });
    await fs.symlink(outside, path.join(state, 'a', 'b'));
    await expect(
      appendLines(path.join(state, 'a', 'b', 'c', 'records.jsonl'), '{"n":1}\n', {
        root: state,
        calls,
      }),
    ).rejects.toMatchObject({ code: 'ENOTDIR' });
    await expect(
      writeAtomically(path.join(state, 'a', 'b', 'c', 'meta.json'), '{}\n', { root: state, calls }),
    ).rejects.toMatchObject({ code: 'ENOTDIR' });

    await fs.mkdir(path.join(state, 'conversations'), { mode: 0o700 });
    const id = path.join(state, 'conversations', 'abcdef0123456789');
    await fs.symlink(outside, id);
    await expect(
      appendLines(path.join(id, 'decisions.jsonl'), '{"n":1}\n', { root: state, calls }),
    ).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(await fs.readdir(outside)).toEqual(['c', 'victim.txt']);
    expect(await fs.readdir(path.join(outside, 'c'))).toEqual([]);
  });

  it('with folders above it checked and cached, a link planted further down is still refused', async () => {
    const { state, outside } = await stateWithOutside();
    await appendLines(path.join(state, 'usage', 'a.jsonl'), '{"n":1}\n', { root: state, calls });
    // The cache holds `state` and `state/usage`; the new folders below are checked on first use,
    // the link in the middle included.
    await fs.mkdir(path.join(outside, 'deeper'));
    await fs.symlink(outside, path.join(state, 'usage', 'sub'));
    const file = path.join(state, 'usage', 'sub', 'deeper', 'b.jsonl');
    await expect(appendLines(file, '{"n":1}\n', { root: state, calls })).rejects.toMatchObject({
      code: 'ENOTDIR',
    });
    expect(await fs.readdir(path.join(outside, 'deeper'))).toEqual([]);
  });

  // rename(2) replaces the name itself: a link planted at the final name is replaced by a 0600
  // file, and its target is never opened (pins the behaviour; it held before the change too).
  it('a whole-file write replaces a link planted at the final name, never writing its target', async () => {
    const { state, outside } = await stateWithOutside();
    const conversation = path.join(state, 'conversations', 'abcdef0123456789');
    await ensurePrivateDirectory(conversation, { root: state, calls });
    const meta = path.join(conversation, 'meta.json');
    await fs.symlink(path.join(outside, 'victim.txt'), meta);

    await writeAtomically(meta, '{"n":1}\n', { root: state, calls });
    const stats = await fs.lstat(meta);
    expect(stats.isFile() && !stats.isSymbolicLink()).toBe(true);
    expect(stats.mode & 0o777).toBe(0o600);
    expect(await fs.readFile(meta, 'utf8')).toBe('{"n":1}\n');
    expect(await fs.readFile(path.join(outside, 'victim.txt'), 'utf8')).toBe('untouched\n');
  });

  it('writes below a root as before: folders 0700 (tightened), files 0600, appended whole', async () => {
    const { state } = await stateWithOutside();
    await fs.chmod(state, 0o755);
    const previous = process.umask(0);
    try {
      const folder = path.join(state, 'conversations', 'abcdef0123456789');
      await appendLines(path.join(folder, 'decisions.jsonl'), '{"n":1}\n', { root: state, calls });
      await appendLines(path.join(folder, 'decisions.jsonl'), '{"n":2}\n', { root: state, calls });
      await writeAtomically(path.join(folder, 'meta.json'), '{}\n', { root: state, calls });
      for (const each of [state, path.join(state, 'conversations'), folder]) {
        expect((await fs.lstat(each)).mode & 0o777).toBe(0o700);
      }
      expect((await fs.stat(path.join(folder, 'decisions.jsonl'))).mode & 0o777).toBe(0o600);
      expect((await fs.stat(path.join(folder, 'meta.json'))).mode & 0o777).toBe(0o600);
      expect(await fs.readFile(path.join(folder, 'decisions.jsonl'), 'utf8')).toBe(
        '{"n":1}\n{"n":2}\n',
      );
    } finally {
      process.umask(previous);
    }
  });

  it('refuses a file outside its root', async () => {
    const { state, outside } = await stateWithOutside();
    await expect(
      appendLines(path.join(outside, 'x.jsonl'), '{}\n', { root: state, calls }),
    ).rejects.toMatchObject({ code: 'EINVAL' });
    await expect(
      appendLines(path.join(state, '..', 'outside', 'x.jsonl'), '{}\n', { root: state, calls }),
    ).rejects.toMatchObject({ code: 'EINVAL' });
    expect(await fs.readdir(outside)).toEqual(['victim.txt']);
  });
});

/**
 * Threads of this process blocked in a FIFO's open, waiting for the other end (Linux names that
 * wait `wait_for_partner` in the thread's wchan). Read without the pool, which may be held.
 */
function threadsWaitingOnFifos(): number {
  let waiting = 0;
  for (const task of readdirSync('/proc/self/task')) {
    try {
      if (readFileSync(`/proc/self/task/${task}/wchan`, 'utf8') === 'wait_for_partner') waiting++;
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return waiting;
}

// A settings file on a hung mount holds a thread of libuv's pool per read; with every thread held,
// a write through the pool waits as long. The gateway's per-request state is written inline.
describe('inline writes', () => {
  it('write while every thread of the pool is held by a read that does not finish', async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-private-'));
    const state = path.join(root, 'state');
    const folder = path.join(state, 'conversations', 'abcdef0123456789');
    await appendLines(path.join(folder, 'decisions.jsonl'), '{"n":1}\n', { root: state });
    const threads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
    const fifos = Array.from({ length: threads }, (_, index) => path.join(root, `fifo${index}`));
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    // Opening a FIFO for reading waits for a writer, on a thread of the pool.
    // One thread busy with other work of this process for a moment (as in a shared test
    // process): the FIFO queued behind it has its open started only when that work ends.
    const busy = promisify(pbkdf2)('p', 's', 200_000, 32, 'sha256');
    const held = fifos.map((fifo) => fs.open(fifo, 'r'));
    try {
      // Every thread of the pool in its FIFO's open before the writes.
      await expect.poll(threadsWaitingOnFifos, { timeout: 10_000 }).toBe(threads);
      const written = Promise.all([
        appendLines(path.join(folder, 'decisions.jsonl'), '{"n":2}\n', {
          root: state,
          calls: 'inline',
        }),
        writeAtomically(path.join(folder, 'meta.json'), '{}\n', { root: state, calls: 'inline' }),
      ]);
      // A bound for a hang, not a speed: through the pool, the writes wait for ever.
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<'hung'>((resolve) => {
        timer = setTimeout(() => resolve('hung'), 5_000);
      });
      expect(await Promise.race([written.then(() => 'written'), hung])).toBe('written');
      clearTimeout(timer);
    } finally {
      // Each FIFO opened for reading and writing (on Linux that never waits) lets its read go,
      // started or not, and is closed once every read is through: no thread stays held for the
      // files that run after this one in the same process.
      const writers = fifos.map((fifo) => openSync(fifo, constants.O_RDWR));
      try {
        for (const handle of await Promise.all(held)) await handle.close();
      } finally {
        for (const writer of writers) closeSync(writer);
      }
      await busy;
    }
    expect(await fs.readFile(path.join(folder, 'decisions.jsonl'), 'utf8')).toBe(
      '{"n":1}\n{"n":2}\n',
    );
  });
});
