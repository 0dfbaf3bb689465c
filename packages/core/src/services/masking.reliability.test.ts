/**
 * Reliability and security of the masking pass (docs/reliability.md):
 * 1. it never throws: injected write faults (memfs), real failures (a file where a folder should
 *    be, an immutable folder) and hostile parts (cycles, BigInt, throwing getters, proxies) leave
 *    the affected output whole while the rest of the pass goes on, and say what failed;
 * 2. nothing is lost: temp file, fsync, close, then rename; same text, same file; stale temporary
 *    files of a killed pass are cleaned up (the kill itself is tested in processes.reliability.test.ts);
 * 3. nothing leaks: 0700 folders, 0600 files, whatever the umask or what was there before;
 *    symlinks are never followed; hostile names stay inside the session folder;
 * 5. masked state is structural.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Volume, createFsFromVolume } from 'memfs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Content, MaskingHost, MaskingResult } from './maskingTypes.js';
import {
  resolveToolOutputMaskingConfig,
  type ToolOutputMaskingSettings,
} from '../config/toolOutputMaskingSettings.js';
import {
  ToolOutputMaskingService,
  type ToolOutputMaskingServiceDeps,
} from './toolOutputMaskingService.js';
import {
  createFileToolOutputStore,
  sessionDirectory,
  type StoreFileSystem,
  type ToolOutputStore,
} from './toolOutputStore.js';
import { isMaskedResponse, parseMaskedSnippet } from './maskedSnippet.js';
import type { ToolOutputMaskingEvent } from '../telemetry/toolOutputMaskingEvent.js';

const PROJECT = '/project-temp';
const SESSION = 'session-a';
const DIRECTORY = sessionDirectory(PROJECT, SESSION);

type Obj = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const lines = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix} line ${index + 1}`).join('\n');

/** Four bulky outputs (call ids `c0`..`c3`) and a closing prompt; all four are prunable at threshold 0. */
function bulkyHistory(): Content[] {
  const entries: Content[] = [{ role: 'user', parts: [{ text: 'fix the bug' }] }];
  ['run_shell_command', 'read_file', 'grep_search', 'run_shell_command'].forEach((name, i) => {
    const id = `c${i}`;
    entries.push({ role: 'model', parts: [{ functionCall: { id, name, args: {} } }] });
    entries.push({
      role: 'user',
      parts: [{ functionResponse: { id, name, response: { output: lines(400, `out${i}`) } } }],
    });
  });
  entries.push({ role: 'user', parts: [{ text: 'go on' }] });
  return entries;
}
/** Index in `bulkyHistory()` of the output with call id `c<i>`. */
const outputIndex = (i: number) => 2 + 2 * i;

const responseAt = (entries: readonly Content[], index: number, part = 0) =>
  entries[index]?.parts?.[part]?.functionResponse?.response;

type MemoryFs = ReturnType<typeof createFsFromVolume>;
const memoryFs = (): MemoryFs => createFsFromVolume(new Volume());
const asStoreFs = (memory: MemoryFs) => memory as unknown as StoreFileSystem;
/** A store on memfs (no fsync: memfs has nothing to flush). */
const memoryStore = (memory: MemoryFs) => createFileToolOutputStore({ fs: asStoreFs(memory) });

interface Harness {
  service: ToolOutputMaskingService;
  host: MaskingHost;
  events: ToolOutputMaskingEvent[];
  debug: string[];
}

function harness(
  store: ToolOutputStore,
  settings: ToolOutputMaskingSettings = {},
  deps: Partial<ToolOutputMaskingServiceDeps> = {},
  place: { project: string; session: string } = { project: PROJECT, session: SESSION },
): Harness {
  const events: ToolOutputMaskingEvent[] = [];
  const debug: string[] = [];
  const service = new ToolOutputMaskingService({
    store,
    telemetry: (event) => events.push(event),
    debug: (line) => debug.push(line),
    ...deps,
  });
  const config = resolveToolOutputMaskingConfig({
    toolProtectionThreshold: 0,
    minPrunableTokensThreshold: 0,
    ...settings,
  });
  const host: MaskingHost = {
    getToolOutputMaskingConfig: async () => config,
    getSessionId: () => place.session,
    storage: { getProjectTempDir: () => place.project },
  };
  return { service, host, events, debug };
}

/** Every file in `dir` (memfs): no temporary leftovers, final names carry their content's hash. */
function checkNoPartialFiles(memory: MemoryFs, dir: string): string[] {
  let names: string[];
  try {
    names = memory.readdirSync(dir) as string[];
  } catch {
    return [];
  }
  const finals: string[] = [];
  for (const name of names) {
    expect(name.endsWith('.tmp'), `temporary file left behind: ${name}`).toBe(false);
    const text = memory.readFileSync(path.join(dir, name), 'utf8') as string;
    const hash = createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
    expect(name.endsWith(`_${hash}.txt`), `${name} does not hold its own content`).toBe(true);
    finals.push(name);
  }
  return finals;
}

/** All outputs masked except the `c<i>` listed in `whole`, which are the very same objects. */
function expectMaskedExcept(
  input: readonly Content[],
  result: MaskingResult,
  whole: readonly number[],
): void {
  expect(result.newHistory.length).toBe(input.length);
  for (let i = 0; i < 4; i++) {
    const index = outputIndex(i);
    if (whole.includes(i)) {
      expect(result.newHistory[index]).toBe(input[index]);
    } else {
      expect(isMaskedResponse(responseAt(result.newHistory, index)), `c${i} masked`).toBe(true);
    }
  }
  expect(result.maskedCount).toBe(4 - whole.length);
}

// ---------------------------------------------------------------------------------------------
// A file system with injected faults (memfs underneath)
// ---------------------------------------------------------------------------------------------

type Operation = 'mkdir' | 'lstat' | 'chmod' | 'open' | 'write' | 'fsync' | 'close' | 'rename';

interface Fault {
  op: Operation;
  code: string;
  /** Only paths containing this (default: all). */
  match?: string;
  /** How many times it trips (default: always). */
  times?: number;
}

function injectedError(code: string, op: string, target: string): Error {
  return Object.assign(new Error(`${code}: injected failure, ${op} '${target}'`), { code });
}

/**
 * Wraps a memfs instance so that the listed operations fail, and logs every operation as
 * `op path`. A failing write first writes half of its bytes (a write that fails mid-way); a
 * failing close still releases the descriptor (as close(2) does on EIO).
 */
function faultyFs(memory: MemoryFs, faults: Fault[] = []): { fs: StoreFileSystem; log: string[] } {
  const log: string[] = [];
  const paths = new Map<number, string>();
  const trip = (op: Operation, target: string) => {
    log.push(`${op} ${target}`);
    for (const fault of faults) {
      if (fault.op !== op || (fault.match && !target.includes(fault.match))) continue;
      if (fault.times !== undefined && fault.times-- <= 0) continue;
      return injectedError(fault.code, op, target);
    }
    return undefined;
  };
  const m = memory as unknown as Record<string, (...args: unknown[]) => unknown>;
  const pass =
    (op: Operation, name: string) =>
    (target: string, ...rest: unknown[]) => {
      const error = trip(op, String(target));
      if (error) throw error;
      return m[name]!(target, ...rest);
    };
  const wrapped = {
    mkdirSync: pass('mkdir', 'mkdirSync'),
    lstatSync: pass('lstat', 'lstatSync'),
    chmodSync: pass('chmod', 'chmodSync'),
    openSync: (target: string, flags: unknown, mode: unknown) => {
      const error = trip('open', `${target} ${String(flags)}`);
      if (error) throw error;
      const fd = m['openSync']!(target, flags, mode) as number;
      paths.set(fd, target);
      return fd;
    },
    writeSync: (fd: number, data: Buffer, offset = 0, length = data.length - offset) => {
      const error = trip('write', paths.get(fd) ?? String(fd));
      if (error) {
        m['writeSync']!(fd, data, offset, length >> 1);
        throw error;
      }
      return m['writeSync']!(fd, data, offset, length);
    },
    fsyncSync: (fd: number) => {
      const error = trip('fsync', paths.get(fd) ?? String(fd));
      if (error) throw error;
      return m['fsyncSync']!(fd);
    },
    closeSync: (fd: number) => {
      const error = trip('close', paths.get(fd) ?? String(fd));
      m['closeSync']!(fd);
      if (error) throw error;
    },
    renameSync: (from: string, to: string) => {
      const error = trip('rename', `${from} -> ${to}`);
      if (error) throw error;
      return m['renameSync']!(from, to);
    },
    unlinkSync: (target: string) => {
      log.push(`unlink ${target}`);
      return m['unlinkSync']!(target);
    },
    readdirSync: (target: string, ...rest: unknown[]) => m['readdirSync']!(target, ...rest),
  };
  return { fs: wrapped as unknown as StoreFileSystem, log };
}

// ---------------------------------------------------------------------------------------------
// Guarantee 1: never throws
// ---------------------------------------------------------------------------------------------

describe('guarantee 1: a failed write leaves that output whole, the pass goes on', () => {
  it.each(['ENOSPC', 'EACCES', 'EROFS', 'EMFILE', 'EIO'])(
    '%s opening one output file',
    async (code) => {
      const memory = memoryFs();
      const { fs: faulty } = faultyFs(memory, [{ op: 'open', code, match: '_c1_' }]);
      const h = harness(createFileToolOutputStore({ fs: faulty, fsync: true }));
      const input = bulkyHistory();
      const result = await h.service.mask(input, h.host);
      expectMaskedExcept(input, result, [1]);
      expect(result.failures).toEqual([
        expect.objectContaining({ code, callId: 'c1', toolName: 'read_file' }),
      ]);
      expect(h.events).toHaveLength(1);
      expect(h.events[0]!.fields.failure_codes).toBe(code);
      expect(h.events[0]!.fields.failed_count).toBe(1);
      expect(h.debug.some((line) => line.includes(code) && line.includes('c1'))).toBe(true);
      expect(checkNoPartialFiles(memory, DIRECTORY)).toHaveLength(3);
    },
  );

  it.each<[Operation, string]>([
    ['write', 'ENOSPC'],
    ['fsync', 'EIO'],
    ['close', 'EIO'],
    ['rename', 'EXDEV'],
  ])('a %s failing mid-way (%s) leaves no partial and no temporary file', async (op, code) => {
    const memory = memoryFs();
    const { fs: faulty } = faultyFs(memory, [{ op, code, match: '_c2_' }]);
    const h = harness(createFileToolOutputStore({ fs: faulty, fsync: true }));
    const input = bulkyHistory();
    const result = await h.service.mask(input, h.host);
    expectMaskedExcept(input, result, [2]);
    expect(result.failures.map((f) => f.code)).toEqual([code]);
    // Three whole files; nothing at c2's final name; no temporary file left.
    const names = checkNoPartialFiles(memory, DIRECTORY);
    expect(names).toHaveLength(3);
    expect(names.some((name) => name.includes('_c2_'))).toBe(false);
  });

  it('EMFILE on the first opens only: those outputs stay whole, the later ones are masked', async () => {
    const memory = memoryFs();
    const { fs: faulty } = faultyFs(memory, [{ op: 'open', code: 'EMFILE', times: 2 }]);
    const h = harness(createFileToolOutputStore({ fs: faulty }), {}, { writeConcurrency: 1 });
    const input = bulkyHistory();
    const result = await h.service.mask(input, h.host);
    expectMaskedExcept(input, result, [0, 1]);
    expect(result.failures.map((f) => f.code)).toEqual(['EMFILE', 'EMFILE']);
    // The next pass retries them and, the descriptors being back, masks them.
    const next = await h.service.mask(result.newHistory, h.host);
    expect(next.maskedCount).toBe(2);
    expect(next.failures).toEqual([]);
  });

  it.each(['EROFS', 'EACCES', 'ENOSPC'])(
    'every write failing (%s on the folder): nothing masked, the history itself returned',
    async (code) => {
      const { fs: faulty } = faultyFs(memoryFs(), [{ op: 'mkdir', code }]);
      const h = harness(createFileToolOutputStore({ fs: faulty }));
      const input = bulkyHistory();
      const result = await h.service.mask(input, h.host);
      expect(result.newHistory).toBe(input);
      expect(result.maskedCount).toBe(0);
      expect(result.failures.map((f) => f.code)).toEqual([code, code, code, code]);
      expect(h.events[0]!.fields.failure_codes).toBe(code);
    },
  );

  it('a store that throws something other than an Error is still reported, not thrown', async () => {
    const memory = memoryFs();
    const real = memoryStore(memory);
    const weird: unknown[] = ['a string', Object.create(null), null, undefined, 42];
    let calls = 0;
    const store: ToolOutputStore = {
      save: async (directory, fileName, text) => {
        if (calls++ === 1) throw weird[0];
        if (calls === 3) throw weird[1];
        return real.save(directory, fileName, text);
      },
    };
    const h = harness(store, {}, { writeConcurrency: 1 });
    const input = bulkyHistory();
    const result = await h.service.mask(input, h.host);
    expectMaskedExcept(input, result, [1, 2]);
    expect(result.failures).toHaveLength(2);
    for (const value of weird) {
      const throwing = harness({
        save: async () => {
          throw value;
        },
      });
      const r = await throwing.service.mask(bulkyHistory(), throwing.host);
      expect(r.maskedCount).toBe(0);
      expect(r.failures).toHaveLength(4);
    }
  });

  it('a store that saved somewhere else is not trusted', async () => {
    const memory = memoryFs();
    const real = memoryStore(memory);
    const h = harness({
      save: async (directory, fileName, text) => `${await real.save(directory, fileName, text)}.x`,
    });
    const input = bulkyHistory();
    const result = await h.service.mask(input, h.host);
    expect(result.newHistory).toBe(input);
    expect(result.failures.map((f) => f.code)).toEqual(['EPATH', 'EPATH', 'EPATH', 'EPATH']);
  });

  it('throwing telemetry, debug sink or host attributes never escape the pass', async () => {
    const boom = () => {
      throw new Error('sink down');
    };
    const { fs: faulty } = faultyFs(memoryFs(), [{ op: 'open', code: 'ENOSPC', match: '_c0_' }]);
    const h = harness(
      createFileToolOutputStore({ fs: faulty }),
      {},
      {
        telemetry: boom,
        debug: boom,
      },
    );
    const input = bulkyHistory();
    const result = await h.service.mask(input, h.host);
    expectMaskedExcept(input, result, [0]);
    // The default telemetry path with throwing common attributes.
    const defaults = new ToolOutputMaskingService({
      store: memoryStore(memoryFs()),
      commonAttributes: boom,
      debug: boom,
    });
    const second = await defaults.mask(bulkyHistory(), h.host);
    expect(second.maskedCount).toBe(4);
    // A host whose settings, session id or temp dir cannot be read.
    const hosts: MaskingHost[] = [
      { ...h.host, getToolOutputMaskingConfig: () => Promise.reject(new Error('no settings')) },
      { ...h.host, getSessionId: boom },
      { ...h.host, storage: { getProjectTempDir: boom } },
      { ...h.host, storage: { getProjectTempDir: () => 42 as unknown as string } },
    ];
    for (const host of hosts) {
      const r = await defaults.mask(input, host);
      expect(r.newHistory).toBe(input);
    }
  });

  it('a history that is not an array, or a proxy that throws, is returned as it was', async () => {
    const h = harness(memoryStore(memoryFs()));
    const throwingLength = new Proxy(bulkyHistory(), {
      get(target, key) {
        if (key === 'length') throw new Error('length trap');
        return Reflect.get(target, key);
      },
    });
    for (const input of [null, undefined, {}, 'history', 42, throwingLength]) {
      const result = await h.service.mask(input as unknown as Content[], h.host);
      expect(result.newHistory).toBe(input);
      expect(result.maskedCount).toBe(0);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Guarantee 1 (inputs): a part that cannot be read or serialized stays whole, the rest is masked
// ---------------------------------------------------------------------------------------------

const big = () => lines(500, 'hostile');
function revoked<T extends object>(target: T): T {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}
function throwingGetter(object: Obj, key: string, afterReads = 0): Obj {
  let reads = 0;
  Object.defineProperty(object, key, {
    enumerable: true,
    get() {
      if (reads++ >= afterReads) throw new Error(`getter ${key} throws`);
      return big();
    },
  });
  return object;
}
function deeplyNested(depth: number): Obj {
  let value: Obj = { leaf: big() };
  for (let i = 0; i < depth; i++) value = { child: value };
  return value;
}

/** Hostile entries: each is inserted, old, into a bulky history. */
const HOSTILE: Array<[string, () => unknown]> = [
  [
    'a response with a cycle',
    () => {
      const response: Obj = { output: big() };
      response['self'] = response;
      return { role: 'user', parts: [{ functionResponse: { id: 'h', name: 'x', response } }] };
    },
  ],
  [
    'a response with a BigInt',
    () => ({
      role: 'user',
      parts: [{ functionResponse: { id: 'h', name: 'x', response: { output: big(), n: 1n } } }],
    }),
  ],
  [
    'a response whose toJSON throws',
    () => ({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'h',
            name: 'x',
            response: {
              output: big(),
              toJSON() {
                throw new Error('toJSON');
              },
            },
          },
        },
      ],
    }),
  ],
  [
    'a response nested 100,000 levels deep',
    () => ({
      role: 'user',
      parts: [{ functionResponse: { id: 'h', name: 'x', response: deeplyNested(100_000) } }],
    }),
  ],
  [
    'a part whose functionResponse getter throws',
    () => ({ role: 'user', parts: [throwingGetter({}, 'functionResponse')] }),
  ],
  ['an entry whose parts getter throws', () => throwingGetter({ role: 'user' }, 'parts')],
  ['an entry whose parts are a revoked proxy', () => ({ role: 'user', parts: revoked([]) })],
  ['a part that is a revoked proxy', () => ({ role: 'user', parts: [revoked({})] })],
  [
    'a functionResponse whose response getter throws',
    () => ({
      role: 'user',
      parts: [{ functionResponse: throwingGetter({ id: 'h', name: 'x' }, 'response') }],
    }),
  ],
  [
    'a functionResponse whose name getter throws',
    () => ({
      role: 'user',
      parts: [
        { functionResponse: throwingGetter({ id: 'h', response: { output: big() } }, 'name') },
      ],
    }),
  ],
  [
    'a response proxy whose ownKeys trap throws',
    () => ({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'h',
            name: 'x',
            response: new Proxy(
              { output: big() },
              {
                ownKeys() {
                  throw new Error('ownKeys trap');
                },
              },
            ),
          },
        },
      ],
    }),
  ],
  [
    'a response that is a revoked proxy',
    () => ({
      role: 'user',
      parts: [{ functionResponse: { id: 'h', name: 'x', response: revoked({ output: big() }) } }],
    }),
  ],
  [
    'a response whose output getter throws on the second read',
    () => ({
      role: 'user',
      parts: [
        { functionResponse: { id: 'h', name: 'x', response: throwingGetter({}, 'output', 1) } },
      ],
    }),
  ],
  [
    'a response whose error getter throws once the output was serialized',
    () => ({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'h',
            name: 'x',
            response: throwingGetter({ output: big() }, 'error', 1),
          },
        },
      ],
    }),
  ],
  [
    'a functionResponse that is a throwing proxy',
    () => ({
      role: 'user',
      parts: [
        {
          functionResponse: new Proxy(
            {},
            {
              get() {
                throw new Error('get trap');
              },
            },
          ),
        },
      ],
    }),
  ],
];

describe('guarantee 1: hostile parts stay whole and never stop the pass', () => {
  it.each(HOSTILE)('%s', async (_name, make) => {
    const memory = memoryFs();
    const h = harness(memoryStore(memory));
    const hostile = make();
    // Old (position 1), so it is prunable if it counts at all.
    const input = bulkyHistory();
    input.splice(1, 0, hostile as Content);
    const result = await h.service.mask(input, h.host, { cacheLikelyCold: true });
    expect(result.newHistory.length).toBe(input.length);
    expect(result.newHistory[1]).toBe(hostile);
    // What failed is said: in the result (and so in the telemetry event) and in a debug line.
    expect(result.failures.length).toBeGreaterThan(0);
    expect(h.events[0]!.fields.failed_count).toBe(result.failures.length);
    expect(h.debug.length).toBeGreaterThanOrEqual(result.failures.length);
    for (let i = 0; i < 4; i++) {
      const index = outputIndex(i) + 1;
      expect(isMaskedResponse(responseAt(result.newHistory, index)), `c${i} masked`).toBe(true);
      const snippet = parseMaskedSnippet(
        (responseAt(result.newHistory, index) as { output: string }).output,
      );
      expect(memory.readFileSync(snippet!.filePath, 'utf8')).toBe(
        (responseAt(input, index) as { output: string }).output,
      );
    }
    expect(result.maskedCount).toBe(4);
  });

  it('outputs that are not strings, null-prototype responses and String objects are saved whole', async () => {
    const memory = memoryFs();
    const h = harness(memoryStore(memory));
    const responses: Obj[] = [
      { output: lines(400, 'array').split('\n') },
      { output: 12345, detail: lines(400, 'detail') },
      { output: null, detail: lines(400, 'null') },
      Object.assign(Object.create(null) as Obj, { output: lines(400, 'null-proto') }),
      { output: new String(lines(400, 'string-object')) },
      { output: `lone surrogate \ud800 ${lines(400, 'surrogate')}` },
    ];
    const input: Content[] = responses.map((response, i) => ({
      role: 'user',
      parts: [{ functionResponse: { id: `r${i}`, name: 'custom', response } }],
    }));
    input.push({ role: 'user', parts: [{ text: 'next' }] });
    const result = await h.service.mask(input, h.host);
    expect(result.failures).toEqual([]);
    expect(result.maskedCount).toBe(responses.length);
    for (const [i, response] of responses.entries()) {
      const snippet = parseMaskedSnippet(
        (responseAt(result.newHistory, i) as { output: string }).output,
      );
      const saved = memory.readFileSync(snippet!.filePath, 'utf8') as string;
      const plain =
        Object.keys(response).length === 1 &&
        typeof response['output'] === 'string' &&
        !/\p{Cs}/u.test(response['output']);
      if (plain) expect(saved).toBe(response['output']);
      else expect(JSON.parse(saved)).toEqual(JSON.parse(JSON.stringify(response)));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Guarantee 1 on a real file system: real failures, also when running as root
// ---------------------------------------------------------------------------------------------

describe('guarantee 1 on a real file system', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) {
      try {
        execFileSync('chattr', ['-R', '-i', root], { stdio: 'ignore' });
      } catch {
        // chattr absent or unsupported: nothing was made immutable.
      }
      fs.rmSync(root, { recursive: true, force: true });
      root = undefined;
    }
  });

  function realHarness() {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-faults-'));
    return harness(createFileToolOutputStore(), {}, {}, { project: root, session: SESSION });
  }

  it('a regular file where the tool-outputs folder should be (ENOTDIR/EEXIST)', async () => {
    const h = realHarness();
    const blocker = path.join(root!, 'tool-outputs');
    fs.writeFileSync(blocker, 'not a folder');
    const input = bulkyHistory();
    const result = await h.service.mask(input, h.host);
    expect(result.newHistory).toBe(input);
    expect(result.failures).toHaveLength(4);
    for (const failure of result.failures) expect(['ENOTDIR', 'EEXIST']).toContain(failure.code);
    expect(fs.readFileSync(blocker, 'utf8')).toBe('not a folder');
  });

  it('a regular file where the session folder should be', async () => {
    const h = realHarness();
    const directory = sessionDirectory(root!, SESSION);
    fs.mkdirSync(path.dirname(directory), { recursive: true, mode: 0o700 });
    fs.writeFileSync(directory, 'not a folder');
    const input = bulkyHistory();
    const result = await h.service.mask(input, h.host);
    expect(result.newHistory).toBe(input);
    expect(result.failures).toHaveLength(4);
  });

  it('an immutable session folder (chattr +i, refused even to root)', async (context) => {
    const h = realHarness();
    const directory = sessionDirectory(root!, SESSION);
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    try {
      execFileSync('chattr', ['+i', directory], { stdio: 'ignore' });
    } catch {
      context.skip(
        'chattr +i is not available here (not ext2/3/4/xfs/btrfs or no CAP_LINUX_IMMUTABLE)',
      );
    }
    const input = bulkyHistory();
    const result = await h.service.mask(input, h.host);
    expect(result.newHistory).toBe(input);
    expect(result.failures.map((f) => f.code)).toEqual(['EPERM', 'EPERM', 'EPERM', 'EPERM']);
    expect(h.debug.filter((line) => line.includes('EPERM'))).toHaveLength(4);
  });
});

// ---------------------------------------------------------------------------------------------
// Guarantee 2: temp file, fsync, close, rename; same text, same file; stale temp files cleaned
// ---------------------------------------------------------------------------------------------

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
    const stale = path.join(DIRECTORY, '.read_file_c9_0123456789abcdef.txt.4242.a1b2c3d4e5f6.tmp');
    const fresh = path.join(DIRECTORY, '.read_file_c8_0123456789abcdef.txt.4343.a1b2c3d4e5f6.tmp');
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
      expect(relative).toMatch(/^tool-outputs\/session-[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+\.txt$/);
    }
    expect(fs.existsSync('/tmp/escape')).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Guarantee 5: masked state is structural
// ---------------------------------------------------------------------------------------------

describe('guarantee 5: masked state is structural, not a substring guess', () => {
  const here = path.dirname(fileURLToPath(import.meta.url));

  it("an old read of toolmask's own source, which quotes the tag, is masked", async () => {
    const memory = memoryFs();
    const h = harness(memoryStore(memory));
    const sources = ['maskedSnippet.ts', 'masking.reliability.test.ts'].map((name) =>
      fs.readFileSync(path.join(here, name), 'utf8'),
    );
    for (const source of sources) expect(source).toContain('<tool_output_masked');
    const input: Content[] = sources.map((source, i) => ({
      role: 'user',
      parts: [
        { functionResponse: { id: `src${i}`, name: 'read_file', response: { output: source } } },
      ],
    }));
    input.push({ role: 'user', parts: [{ text: 'next' }] });
    const result = await h.service.mask(input, h.host);
    expect(result.maskedCount).toBe(2);
    for (const [i, source] of sources.entries()) {
      const snippet = parseMaskedSnippet(
        (responseAt(result.newHistory, i) as { output: string }).output,
      );
      expect(memory.readFileSync(snippet!.filePath, 'utf8')).toBe(source);
    }
  });

  it('a masked snippet is never masked again, even with every limit at its lowest', async () => {
    const memory = memoryFs();
    const h = harness(memoryStore(memory));
    const first = await h.service.mask(bulkyHistory(), h.host);
    expect(first.maskedCount).toBe(4);
    const files = memory.readdirSync(DIRECTORY);
    const strict = harness(memoryStore(memory), {
      maxOutputTokens: 1,
      protectLatestTurn: false,
    });
    const input = structuredClone(first.newHistory) as Content[];
    const again = await strict.service.mask(input, strict.host, { cacheLikelyCold: true });
    expect(again.newHistory).toBe(input);
    expect(again.tokensBefore).toBe(0);
    expect(memory.readdirSync(DIRECTORY)).toEqual(files);
  });

  it('a snippet with anything added, or a lookalike with an extra key, is an ordinary output', async () => {
    const memory = memoryFs();
    const h = harness(memoryStore(memory));
    const first = await h.service.mask(bulkyHistory(), h.host);
    const snippet = (responseAt(first.newHistory, outputIndex(0)) as { output: string }).output;
    const padding = lines(300, 'more');
    const lookalikes: Obj[] = [
      { output: `${snippet}\n${padding}` },
      { output: `${padding}\n${snippet}` },
      { output: snippet, extra: padding },
    ];
    const input: Content[] = lookalikes.map((response, i) => ({
      role: 'user',
      parts: [{ functionResponse: { id: `l${i}`, name: 'read_file', response } }],
    }));
    input.push({ role: 'user', parts: [{ text: 'next' }] });
    const result = await h.service.mask(input, h.host);
    expect(result.maskedCount).toBe(3);
  });
});
