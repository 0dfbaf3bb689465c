/**
 * The output store: atomic, content-addressed, private writes (unit cases on memfs and a real temp
 * dir), then its guarantees as the pass relies on them (docs/reliability.md, guarantees 2 and 3).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Content } from '../services/maskingTypes.js';
import { createFileToolOutputStore, type StoreFileSystem } from './toolOutputStore.js';
import { outputFileName, sessionDirectory } from './outputLayout.js';
import {
  HARNESS_PLACE,
  bulkyHistory,
  checkNoPartialFiles,
  faultyFs,
  harness,
  lines,
  memoryFs,
  memoryStore,
  outputIndex,
  responseAt,
} from '../test-utils/maskingHarness.js';

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
});

// The store's guarantees through the pass (docs/reliability.md): nothing is lost, nothing leaks.
// The kill mid-write is tested in services/processes.reliability.test.ts.
const { SESSION, DIRECTORY } = HARNESS_PLACE;

describe('guarantee 2: an output is replaced only after its full text is durably on disk', () => {
  it('writes each file under a temporary name, syncs, closes, then renames it', async () => {
    const memory = memoryFs();
    const { fs: logged, log } = faultyFs(memory);
    const h = harness(createFileToolOutputStore({ fs: logged, fsync: true }));
    const result = await h.service.mask(bulkyHistory(), h.host);
    expect(result.maskedCount).toBe(4);
    for (const item of result.offloaded) {
      const name = path.basename(item.filePath);
      const ops = log.filter((line) => line.includes(name));
      const open = ops.findIndex((line) => line.startsWith('open '));
      expect(ops[open]).toMatch(
        new RegExp(`^open ${DIRECTORY}/\\.${name}\\.\\d+\\.[0-9a-f]+\\.tmp wx$`),
      );
      const temporary = ops[open]!.split(' ')[1]!;
      expect(ops.slice(open)).toEqual([
        `open ${temporary} wx`,
        `write ${temporary}`,
        `fsync ${temporary}`,
        `close ${temporary}`,
        `rename ${temporary} -> ${item.filePath}`,
      ]);
      // The final name is never opened for writing.
      expect(log.some((line) => line.startsWith(`open ${item.filePath}`))).toBe(false);
    }
  });

  it('the same output masked again (after a crash, in a new process) reuses its file', async () => {
    const memory = memoryFs();
    const { fs: logged, log } = faultyFs(memory);
    const input = bulkyHistory();
    const first = harness(createFileToolOutputStore({ fs: logged }));
    const a = await first.service.mask(input, first.host);
    const opens = log.filter((line) => line.startsWith('open ')).length;
    const second = harness(createFileToolOutputStore({ fs: logged }));
    const b = await second.service.mask(structuredClone(input), second.host);
    expect(b.newHistory).toEqual(a.newHistory);
    expect(log.filter((line) => line.startsWith('open ')).length).toBe(opens);
    expect(checkNoPartialFiles(memory, DIRECTORY)).toHaveLength(4);
  });

  it('a stale temporary file of a killed pass is removed, a fresh one (another live process) is kept', async () => {
    const memory = memoryFs();
    memory.mkdirSync(DIRECTORY, { recursive: true, mode: 0o700 });
    const stale = path.join(DIRECTORY, '.read_file.c9.0123456789abcdef.txt.4242.a1b2c3d4e5f6.tmp');
    const fresh = path.join(DIRECTORY, '.read_file.c8.0123456789abcdef.txt.4343.a1b2c3d4e5f6.tmp');
    const other = path.join(DIRECTORY, '.notes.tmp');
    for (const file of [stale, fresh, other]) memory.writeFileSync(file, 'partial');
    const hourAgo = new Date(Date.now() - 3_600_000);
    memory.utimesSync(stale, hourAgo, hourAgo);
    memory.utimesSync(other, hourAgo, hourAgo);
    const h = harness(memoryStore(memory));
    const result = await h.service.mask(bulkyHistory(), h.host);
    expect(result.maskedCount).toBe(4);
    const names = memory.readdirSync(DIRECTORY) as string[];
    expect(names).not.toContain(path.basename(stale));
    expect(names).toContain(path.basename(fresh));
    expect(names).toContain(path.basename(other)); // not one of ours: never touched
  });
});

// ---------------------------------------------------------------------------------------------
// Guarantee 3: nothing leaks
// ---------------------------------------------------------------------------------------------

describe('guarantee 3: private modes, no symlink followed, names stay inside', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
    root = undefined;
  });
  const makeRoot = () => (root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-leaks-')));
  const mode = (target: string) => fs.statSync(target).mode & 0o777;

  it('folders 0700 and files 0600 even with umask 000', async () => {
    const project = makeRoot();
    const previous = process.umask(0);
    try {
      const h = harness(createFileToolOutputStore(), {}, {}, { project, session: SESSION });
      const result = await h.service.mask(bulkyHistory(), h.host);
      expect(result.maskedCount).toBe(4);
      const directory = sessionDirectory(project, SESSION);
      expect(mode(directory)).toBe(0o700);
      expect(mode(path.dirname(directory))).toBe(0o700);
      for (const item of result.offloaded) expect(mode(item.filePath)).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });

  it('tightens folders that already existed open, and never reuses a file others can read', async () => {
    const project = makeRoot();
    const directory = sessionDirectory(project, SESSION);
    fs.mkdirSync(directory, { recursive: true });
    fs.chmodSync(path.dirname(directory), 0o777);
    fs.chmodSync(directory, 0o755);
    const input = bulkyHistory();
    const first = harness(createFileToolOutputStore(), {}, {}, { project, session: SESSION });
    const masked = await first.service.mask(input, first.host);
    // Someone (an older version, a copy tool) left one file world-readable.
    const exposed = masked.offloaded[0]!.filePath;
    fs.chmodSync(exposed, 0o644);
    const again = harness(createFileToolOutputStore(), {}, {}, { project, session: SESSION });
    const result = await again.service.mask(structuredClone(input), again.host);
    expect(result.maskedCount).toBe(4);
    expect(mode(directory)).toBe(0o700);
    expect(mode(path.dirname(directory))).toBe(0o700);
    for (const item of result.offloaded) expect(mode(item.filePath)).toBe(0o600);
    expect(fs.readFileSync(exposed, 'utf8')).toBe(
      (responseAt(input, outputIndex(0)) as { output: string }).output,
    );
  });

  it('does not follow a symlink planted as the tool-outputs folder or the session folder', async () => {
    for (const planted of ['tool-outputs', 'session']) {
      const project = makeRoot();
      const elsewhere = path.join(project, 'elsewhere');
      fs.mkdirSync(elsewhere);
      const directory = sessionDirectory(project, SESSION);
      if (planted === 'tool-outputs') {
        fs.symlinkSync(elsewhere, path.dirname(directory));
      } else {
        fs.mkdirSync(path.dirname(directory), { mode: 0o700 });
        fs.symlinkSync(elsewhere, directory);
      }
      const h = harness(createFileToolOutputStore(), {}, {}, { project, session: SESSION });
      const input = bulkyHistory();
      const result = await h.service.mask(input, h.host);
      expect(result.newHistory).toBe(input);
      expect(result.failures).toHaveLength(4);
      expect(fs.readdirSync(elsewhere, { recursive: true })).toEqual([]);
      fs.rmSync(project, { recursive: true, force: true });
    }
  });

  it('replaces a symlink planted at a final name (dangling or not) without writing through it', async () => {
    const project = makeRoot();
    const input = bulkyHistory();
    // Learn the final names, then start over with symlinks planted at them.
    const probe = harness(
      memoryStore(memoryFs()),
      {},
      {},
      {
        project,
        session: SESSION,
      },
    );
    const names = (await probe.service.mask(input, probe.host)).offloaded.map((o) => o.filePath);
    const directory = sessionDirectory(project, SESSION);
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    const victim = path.join(project, 'victim.txt');
    fs.writeFileSync(victim, 'original');
    fs.symlinkSync(victim, names[0]!);
    fs.symlinkSync(path.join(project, 'dangling-target.txt'), names[1]!);
    const h = harness(createFileToolOutputStore(), {}, {}, { project, session: SESSION });
    const result = await h.service.mask(input, h.host);
    expect(result.maskedCount).toBe(4);
    expect(fs.readFileSync(victim, 'utf8')).toBe('original');
    expect(fs.existsSync(path.join(project, 'dangling-target.txt'))).toBe(false);
    for (const name of names) expect(fs.lstatSync(name).isSymbolicLink()).toBe(false);
  });

  it('hostile tool names, call ids and session ids never put a file outside the session folder', async () => {
    const project = makeRoot();
    const hostile = [
      '../../../../tmp/escape',
      '/etc/passwd',
      '..\\..\\windows',
      'a\u0000b',
      'CON',
      'x'.repeat(5_000),
      '.hidden',
      '',
    ];
    for (const session of ['../../outside', '/abs', 'nul\u0000', 's'.repeat(1_000)]) {
      const input: Content[] = hostile.map((value, i) => ({
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: value,
              name: hostile[(i + 3) % hostile.length],
              response: { output: lines(300, `hostile ${i}`) },
            },
          },
        ],
      }));
      input.push({ role: 'user', parts: [{ text: 'next' }] });
      const h = harness(createFileToolOutputStore(), {}, {}, { project, session });
      const result = await h.service.mask(input, h.host);
      expect(result.maskedCount).toBe(hostile.length);
      const directory = sessionDirectory(project, session);
      expect(path.dirname(path.dirname(directory))).toBe(project);
      for (const item of result.offloaded) expect(path.dirname(item.filePath)).toBe(directory);
    }
    // Everything under the project is a tool-outputs/session-*/<file>; nothing anywhere else.
    const all = fs.readdirSync(project, { recursive: true, withFileTypes: true });
    for (const entry of all.filter((e) => e.isFile())) {
      const relative = path.relative(project, path.join(entry.parentPath, entry.name));
      expect(relative).toMatch(
        /^tool-outputs\/session-[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[0-9a-f]{16}\.txt$/,
      );
    }
    expect(fs.existsSync('/tmp/escape')).toBe(false);
  });
});
