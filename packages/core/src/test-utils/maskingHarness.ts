/**
 * Fixtures shared by the pass's and the store's reliability tests: four bulky outputs, a service
 * wired to a store with telemetry and debug lines captured, memfs stores, and a memfs wrapper that
 * injects faults into chosen operations and logs every operation.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { Volume, createFsFromVolume } from 'memfs';
import { expect } from 'vitest';
import type { Content, MaskingHost, MaskingResult } from '../services/maskingTypes.js';
import {
  resolveToolOutputMaskingConfig,
  type ToolOutputMaskingSettings,
} from '../config/toolOutputMaskingSettings.js';
import {
  ToolOutputMaskingService,
  type ToolOutputMaskingServiceDeps,
} from '../services/toolOutputMaskingService.js';
import {
  createFileToolOutputStore,
  type StoreFileSystem,
  type ToolOutputStore,
} from '../storage/toolOutputStore.js';
import { sessionDirectory } from '../storage/outputLayout.js';
import { isMaskedResponse } from '../services/maskedSnippet.js';
import type { ToolOutputMaskingEvent } from '../telemetry/toolOutputMaskingEvent.js';

const PROJECT = '/project-temp';
const SESSION = 'session-a';
/** Where `harness()` keeps its outputs unless told otherwise. */
export const HARNESS_PLACE = {
  PROJECT,
  SESSION,
  DIRECTORY: sessionDirectory(PROJECT, SESSION),
} as const;

export type Obj = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

export const lines = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix} line ${index + 1}`).join('\n');

/** Four bulky outputs (call ids `c0`..`c3`) and a closing prompt; all four are prunable at threshold 0. */
/** A shell call (`run_shell_command` with `command`) and its response with `output`. */
export const shellStep = (id: string, command: string, output: string): Content[] => [
  {
    role: 'model',
    parts: [{ functionCall: { id, name: 'run_shell_command', args: { command } } }],
  },
  {
    role: 'user',
    parts: [{ functionResponse: { id, name: 'run_shell_command', response: { output } } }],
  },
];

export function bulkyHistory(): Content[] {
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
export const outputIndex = (i: number) => 2 + 2 * i;

export const responseAt = (entries: readonly Content[], index: number, part = 0) =>
  entries[index]?.parts?.[part]?.functionResponse?.response;

export type MemoryFs = ReturnType<typeof createFsFromVolume>;
export const memoryFs = (): MemoryFs => createFsFromVolume(new Volume());
export const asStoreFs = (memory: MemoryFs) => memory as unknown as StoreFileSystem;
/** A store on memfs (no fsync: memfs has nothing to flush). */
export const memoryStore = (memory: MemoryFs) =>
  createFileToolOutputStore({ fs: asStoreFs(memory) });

export interface Harness {
  service: ToolOutputMaskingService;
  host: MaskingHost;
  events: ToolOutputMaskingEvent[];
  debug: string[];
}

export function harness(
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
    // Any batch masks: the harness's toy histories are too short to pay a warm break back.
    warmRule: 'floor',
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
export function checkNoPartialFiles(memory: MemoryFs, dir: string): string[] {
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
    expect(name.endsWith(`.${hash}.txt`), `${name} does not hold its own content`).toBe(true);
    finals.push(name);
  }
  return finals;
}

/** All outputs masked except the `c<i>` listed in `whole`, which are the very same objects. */
export function expectMaskedExcept(
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

export type Operation =
  'mkdir' | 'lstat' | 'chmod' | 'open' | 'write' | 'fsync' | 'close' | 'rename';

export interface Fault {
  op: Operation;
  code: string;
  /** Only paths containing this (default: all). */
  match?: string;
  /** How many times it trips (default: always). */
  times?: number;
}

export function injectedError(code: string, op: string, target: string): Error {
  return Object.assign(new Error(`${code}: injected failure, ${op} '${target}'`), { code });
}

/**
 * Wraps a memfs instance so that the listed operations fail, and logs every operation as
 * `op path`. A failing write first writes half of its bytes (a write that fails mid-way); a
 * failing close still releases the descriptor (as close(2) does on EIO).
 */
export function faultyFs(
  memory: MemoryFs,
  faults: Fault[] = [],
): { fs: StoreFileSystem; log: string[] } {
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
