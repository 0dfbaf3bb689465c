/**
 * Reliability and security of the masking pass (docs/reliability.md):
 * 1. it never throws: injected write faults (memfs), real failures (a file where a folder should
 *    be, an immutable folder) and hostile parts (cycles, BigInt, throwing getters, proxies) leave
 *    the affected output whole while the rest of the pass goes on, and say what failed;
 * 5. masked is what the service produced (its record), never what a text looks like.
 *
 * Guarantees 2 (nothing is lost) and 3 (nothing leaks) are the store's: storage/toolOutputStore.test.ts.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Content, MaskingHost } from './maskingTypes.js';
import { ToolOutputMaskingService } from './toolOutputMaskingService.js';
import { createFileToolOutputStore, type ToolOutputStore } from '../storage/toolOutputStore.js';
import { sessionDirectory } from '../storage/outputLayout.js';
import { isMaskedResponse, parseMaskedSnippet } from './maskedSnippet.js';
import {
  HARNESS_PLACE,
  type Obj,
  lines,
  bulkyHistory,
  outputIndex,
  responseAt,
  memoryFs,
  memoryStore,
  harness,
  checkNoPartialFiles,
  expectMaskedExcept,
  type Operation,
  faultyFs,
} from '../test-utils/maskingHarness.js';
import { longestBlock } from '@toolmask/test-support/event-loop';

const { SESSION, DIRECTORY } = HARNESS_PLACE;

// ---------------------------------------------------------------------------------------------
// Guarantee 1: never throws
// ---------------------------------------------------------------------------------------------

describe('guarantee 1: a failed write leaves that output whole, the pass goes on', () => {
  it.each(['ENOSPC', 'EACCES', 'EROFS', 'EMFILE', 'EIO'])(
    '%s opening one output file',
    async (code) => {
      const memory = memoryFs();
      const { fs: faulty } = faultyFs(memory, [{ op: 'open', code, match: '.c1.' }]);
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
    const { fs: faulty } = faultyFs(memory, [{ op, code, match: '.c2.' }]);
    const h = harness(createFileToolOutputStore({ fs: faulty, fsync: true }));
    const input = bulkyHistory();
    const result = await h.service.mask(input, h.host);
    expectMaskedExcept(input, result, [2]);
    expect(result.failures.map((f) => f.code)).toEqual([code]);
    // Three whole files; nothing at c2's final name; no temporary file left.
    const names = checkNoPartialFiles(memory, DIRECTORY);
    expect(names).toHaveLength(3);
    expect(names.some((name) => name.includes('.c2.'))).toBe(false);
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
    const { fs: faulty } = faultyFs(memoryFs(), [{ op: 'open', code: 'ENOSPC', match: '.c0.' }]);
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

// ---------------------------------------------------------------------------------------------
// Guarantee 5: masked state is structural
// ---------------------------------------------------------------------------------------------

describe('guarantee 5: masked is what the service produced, never what a text looks like', () => {
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

  it('a snippet is never masked again, even with every limit at its lowest', async () => {
    const memory = memoryFs();
    const h = harness(memoryStore(memory));
    const first = await h.service.mask(bulkyHistory(), h.host);
    expect(first.maskedCount).toBe(4);
    const files = memory.readdirSync(DIRECTORY);
    const strict = harness(memoryStore(memory), { maxOutputTokens: 1, protectLatestTurn: false });
    // The same service knows its snippets ...
    const again = await h.service.mask(first.newHistory, strict.host, { cacheLikelyCold: true });
    expect(again.newHistory).toBe(first.newHistory);
    expect(again.tokensBefore).toBe(0);
    // ... and a host that restores them from its own log (a gateway) tells a fresh service.
    const restored = structuredClone(first.newHistory) as Content[];
    for (let i = 0; i < 4; i++)
      strict.service.markMasked(responseAt(restored, outputIndex(i)) as Obj);
    const resumed = await strict.service.mask(restored, strict.host, { cacheLikelyCold: true });
    expect(resumed.newHistory).toBe(restored);
    expect(resumed.tokensBefore).toBe(0);
    expect(memory.readdirSync(DIRECTORY)).toEqual(files);
  });

  it('a tool output shaped like a snippet counts at its real size, and the guard offloads it (issue 15, item 2)', async () => {
    const memory = memoryFs();
    const h = harness(memoryStore(memory), {
      maxOutputTokens: 20_000,
      toolProtectionThreshold: 1_000_000,
    });
    // 3.6 MB between a snippet's header and its closing tag: a file read that way went out whole.
    const body = lines(60_000, 'secret data');
    const output = `<tool_output_masked lines="1" bytes="2" file="/x/y.txt">\n${body}\n</tool_output_masked>`;
    expect(isMaskedResponse({ output })).toBe(true);
    const input: Content[] = [
      { role: 'user', parts: [{ text: 'read it' }] },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'r', name: 'read_file', response: { output } } }],
      },
    ];
    const result = await h.service.mask(input, h.host);
    expect(result.tokensBefore).toBeGreaterThan(500_000);
    expect(result.maskedCount).toBe(1);
    const snippet = parseMaskedSnippet(
      (responseAt(result.newHistory, 1) as { output: string }).output,
    );
    expect(memory.readFileSync(snippet!.filePath, 'utf8')).toBe(output);
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

describe('guarantee 7: a giant output never stalls the host (issue 15 item 9, issue 14 item 4)', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  it('a pass over a 64 MB output gives the event loop a turn between steps, and round-trips', async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-giant-'));
    const place = { project: root, session: 's' };
    const h = harness(createFileToolOutputStore(), {}, {}, place);
    // 64 MB of log lines in one flat string, as a host holds a tool result (decoded from bytes),
    // built without garbage that a GC would collect during the pass and charge to it.
    const block = Array.from(
      { length: 100 },
      (_, i) => `[${i}] compiling src/module_${i}.ts ... ok`,
    );
    const output = Buffer.from(`${block.join('\n')}\n`.repeat(16_000).slice(0, -1)).toString();
    // A small pass first: what runs once per process (loading built-in modules) is not the output's.
    await h.service.mask(bulkyHistory(), h.host);
    const input: Content[] = [
      { role: 'user', parts: [{ text: 'build' }] },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'g', name: 'read_file', response: { output } } }],
      },
    ];
    const { result, blockedMs } = await longestBlock(() => h.service.mask(input, h.host));
    expect(result.maskedCount).toBe(1);
    const snippet = parseMaskedSnippet(
      (responseAt(result.newHistory, 1) as Obj)['output'] as string,
    );
    expect(snippet).toMatchObject({ lines: 1_600_000, bytes: Buffer.byteLength(output) });
    expect(fs.readFileSync(snippet!.filePath, 'utf8') === output).toBe(true);
    // Promised: no step over 100 ms (each is 10-30 ms here: a hash or write chunk, the line
    // count, the preview). Before, the whole pass ran at once: ~2 s on 64 MB. The margin is for
    // a loaded CI machine, which preempts the process itself.
    expect(blockedMs).toBeLessThan(250);
  }, 60_000);
});
