/**
 * Runs one pass of gemini-cli's own masking so that it is reproducible, without changing its
 * logic. That pass (gemini-cli-core 0.61.0) is written against process-wide facilities:
 *
 * - it names each file `<tool>_<callId>_<Math.random() in base 36>.txt`, and that name (its length
 *   too) is in the snippet, so in every later request's figures: during the pass `Math.random`
 *   draws from a generator seeded by the session, which makes the names the same on every run;
 * - it falls back to `Date.now()` for a call id: during the pass the clock stands still at `now`;
 * - it writes with `node:fs/promises` `mkdir` and `writeFile` into the project temp dir it is
 *   given, the fixed shown folder of shown-output-folder.ts that exists nowhere: during the pass
 *   those two calls map that folder to the real one (other paths go through untouched) and count
 *   the bytes written;
 * - it prints `[ToolOutputMasking] ...` debug lines: its debug logger is muted.
 *
 * Everything is restored when the pass ends, and passes take turns (a queue), so two replays in
 * one process never see each other's stand-ins. Only the replay uses this; a host never does.
 */
import { createHash } from 'node:crypto';
import type * as FsPromises from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { loadOptionalPackage, type OptionalPackage } from '@toolmask/core/errors';

/** The replay's gemini-cli strategy runs this package's masking (an optional peer dependency). */
export const GEMINI_CLI_CORE: OptionalPackage = {
  name: '@google/gemini-cli-core',
  version: '0.61.0',
};

const require = createRequire(import.meta.url);
/** The CommonJS object behind `node:fs/promises`; `syncBuiltinESMExports` copies it to ESM. */
const fsPromises = require('node:fs/promises') as typeof FsPromises;

export interface PassSandbox {
  /** Stands in for `Math.random` during the pass. */
  random: () => number;
  /** What `Date.now()` returns during the pass. */
  now: number;
  /** The real path for a path under the shown folder; undefined for any other path. */
  toRealPath: (file: string) => string | undefined;
}

export interface SandboxedPass<T> {
  value: T;
  /** Bytes the pass wrote into the shown folder. */
  bytesWritten: number;
  /** Files it wrote there. */
  filesWritten: number;
  /** Wall time of the pass itself, without setting up the sandbox. */
  passMs: number;
}

/**
 * A generator of numbers in [0, 1) that gives the same sequence for the same seed: SHA-256 of
 * the seed and a counter, 53 bits of it (the precision `Math.random` has in V8).
 */
export function createSeededRandom(seed: string): () => number {
  let counter = 0;
  return () => {
    const digest = createHash('sha256').update(`${seed}:${counter++}`).digest();
    const high = digest.readUIntBE(0, 3) >>> 3; // 21 bits
    const low = digest.readUInt32BE(3); // 32 bits
    return (high * 2 ** 32 + low) / 2 ** 53;
  };
}

let queue: Promise<unknown> = Promise.resolve();

function pathText(file: unknown): string | undefined {
  if (typeof file === 'string') return file;
  if (file instanceof URL && file.protocol === 'file:') return file.pathname;
  return undefined;
}

function byteLengthOf(data: unknown): number {
  if (typeof data === 'string') return Buffer.byteLength(data, 'utf8');
  if (ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

async function runInSandbox<T>(
  sandbox: PassSandbox,
  action: () => Promise<T>,
): Promise<SandboxedPass<T>> {
  const { debugLogger } = await loadOptionalPackage(
    GEMINI_CLI_CORE,
    "the replay's gemini-cli strategy",
    () => import('@google/gemini-cli-core/dist/src/utils/debugLogger.js'),
  );
  const quiet = debugLogger as { debug: (...args: unknown[]) => void };
  const saved = {
    random: Math.random,
    now: Date.now,
    mkdir: fsPromises.mkdir,
    writeFile: fsPromises.writeFile,
  };
  let bytesWritten = 0;
  let filesWritten = 0;
  const mapped = (file: unknown): unknown => {
    const text = pathText(file);
    return text === undefined ? file : (sandbox.toRealPath(text) ?? file);
  };
  const patched = fsPromises as unknown as Record<'mkdir' | 'writeFile', unknown>;
  patched.mkdir = (file: unknown, ...rest: unknown[]) =>
    (saved.mkdir as (...args: unknown[]) => unknown)(mapped(file), ...rest);
  patched.writeFile = async (file: unknown, data: unknown, ...rest: unknown[]) => {
    const target = mapped(file);
    await (saved.writeFile as (...args: unknown[]) => Promise<void>)(target, data, ...rest);
    if (target !== file) {
      bytesWritten += byteLengthOf(data);
      filesWritten++;
    }
  };
  syncBuiltinESMExports();
  Math.random = sandbox.random;
  Date.now = () => sandbox.now;
  quiet.debug = () => {};
  try {
    const started = performance.now();
    const value = await action();
    return { value, bytesWritten, filesWritten, passMs: performance.now() - started };
  } finally {
    delete (quiet as Partial<typeof quiet>).debug; // the prototype's method shows through again
    Date.now = saved.now;
    Math.random = saved.random;
    patched.mkdir = saved.mkdir;
    patched.writeFile = saved.writeFile;
    syncBuiltinESMExports();
  }
}

/** Runs `action` (one gemini-cli pass) in the sandbox, after any pass already running. */
export function runGeminiCliPass<T>(
  sandbox: PassSandbox,
  action: () => Promise<T>,
): Promise<SandboxedPass<T>> {
  const run = queue.then(() => runInSandbox(sandbox, action));
  queue = run.catch(() => undefined);
  return run;
}
