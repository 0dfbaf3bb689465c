/**
 * The `pattern` of `read_tool_output`: a regular expression the model chooses, run on offloaded
 * outputs line by line, in bounded time and without ever blocking the host's event loop.
 *
 * Two layers, each for one of the guarantees (docs/reliability.md, guarantee 8):
 * - **A linear-time engine**: re2js (a pure-JS port of RE2, no native code, no install script).
 *   Matching time grows linearly with the line, never exponentially as JavaScript's backtracking
 *   `RegExp` does (`(a+)+$` on 40 `a`s and a `b`, or `(\w+\s?)+=` on an ordinary log line, never
 *   finish there). So a search gives an answer, not a timeout. RE2 syntax has no lookaround and
 *   no backreferences; such a pattern is refused with a message that says so.
 * - **A worker thread**: linear is not cheap. The cost also grows with the pattern (`a.{1000}c$`
 *   takes ~10 s on one 1 MB line), so the lines are matched in a worker. The host's event loop
 *   only reads and splits the file (a few ms per MB); an abort, or the time limit of a call,
 *   terminates the worker at once (~10 ms).
 *
 * The workers are a small fixed pool (`PATTERN_WORKERS`, 2 or 1 on a single core): a search has a
 * worker to itself from its first batch to its end; searches beyond the pool wait in a FIFO queue,
 * and the call's time limit counts from before the wait, so a search stuck behind slow ones ends at
 * its deadline with the same time-limit outcome, and an aborted one leaves the queue at once. A
 * worker stopped mid-search (deadline, abort, crash) is terminated and, once it has exited,
 * replaced for the next search in the queue; so at most `PATTERN_WORKERS` threads are alive. Once
 * done, a worker waits 30 s (unref'd) for the next search, since starting one costs ~40-60 ms,
 * most of it loading re2js. Batches whose lines cannot match are skipped with one test on the
 * whole batch. The worker runs a few lines of plain JavaScript given as source, so that it runs the
 * same from the TypeScript sources (tests) and from `dist`. A pattern is matched against each line
 * (without its `\n` and a trailing `\r`), up to the first `MATCH_LINE_BYTES` of it.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ToolmaskError } from '../utils/toolmaskError.js';

/** The longest pattern accepted (characters): bounds compile time and program size. */
export const MAX_PATTERN_LENGTH = 1_000;

/** How much of a line a pattern sees: its first 1 MiB of UTF-8. */
export const MATCH_LINE_BYTES = 1 << 20;

const require = createRequire(import.meta.url);

/**
 * A pattern the model passed that cannot be used; the message is written for the model. Code
 * `INVALID_PATTERN` (the reader turns it into a `ToolOutputReadError` of the same code).
 */
export class PatternError extends ToolmaskError<'INVALID_PATTERN'> {
  constructor(message: string) {
    super('INVALID_PATTERN', message);
  }
}

const FLAGGED_PATTERN = /^\/([\s\S]+)\/([a-z]*)$/;
const ALLOWED_FLAGS = /^[imsu]*$/;

/** A pattern as the worker compiles it: its body and its flag letters. */
export interface PatternSpec {
  body: string;
  flags: string;
  /** The pattern as the model wrote it, shortened for messages. */
  shown: string;
}

const SYNTAX_HINT =
  'pattern is a regular expression in RE2 syntax (like JavaScript without lookaround and backreferences), e.g. "error|fail" or "/timeout/i"';

/**
 * What RE2 cannot do, found before compiling (re2js's own messages for these are cryptic, and it
 * would read `\k<name>` as plain text): lookaround and backreferences, outside character classes.
 */
function unsupportedSyntax(source: string): string | undefined {
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const char = source[index];
    if (char === '\\') {
      const next = source[index + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return `a backreference (\\${next})`;
      if (!inClass && next === 'k' && source[index + 2] === '<')
        return 'a named backreference (\\k<...>)';
      index++;
    } else if (inClass) {
      if (char === ']') inClass = false;
    } else if (char === '[') {
      inClass = true;
    } else if (char === '(') {
      const ahead = source.slice(index + 1, index + 4);
      if (ahead.startsWith('?=') || ahead.startsWith('?!'))
        return `a lookahead (${ahead.slice(0, 2)})`;
      if (ahead === '?<=' || ahead === '?<!') return `a lookbehind (${ahead})`;
    }
  }
  return undefined;
}

function describePattern(pattern: string): string {
  return JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern);
}

/**
 * `error|fail` or `/error/i` (flags i, m, s, u; `g` and `y` mean nothing line by line), checked
 * without the engine: its length, and what RE2 cannot do. The engine itself (and its syntax
 * errors) lives in the worker only: loading it on the host's thread would block it for tens of
 * ms. Throws `PatternError` with a message for the model.
 */
export function checkReadPattern(pattern: string): PatternSpec {
  const shown = describePattern(pattern);
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(
      `invalid pattern ${shown}: longer than ${MAX_PATTERN_LENGTH} characters. ${SYNTAX_HINT}.`,
    );
  }
  const flagged = FLAGGED_PATTERN.exec(pattern);
  const body = flagged && ALLOWED_FLAGS.test(flagged[2] ?? '') ? (flagged[1] ?? '') : pattern;
  const flags = flagged && body !== pattern ? (flagged[2] ?? '') : '';
  const unsupported = unsupportedSyntax(body);
  if (unsupported) {
    throw new PatternError(
      `invalid pattern ${shown}: it uses ${unsupported}, which the linear-time engine read_tool_output uses does not support; match the text itself instead (for "x(?=y)" search "xy"). ${SYNTAX_HINT}.`,
    );
  }
  return { body, flags, shown };
}

/**
 * The worker. A `pattern` message compiles a pattern (translated from JavaScript syntax) and is
 * answered `{ compiled }` or `{ invalid: message }`; a batch (the UTF-8 bytes of `count` lines,
 * each but the file's last ending in `\n`) is answered with the indices of the lines that match
 * (without their `\n` and a trailing `\r`) and the bytes themselves, to be filled again.
 *
 * A batch is first tried whole (multi-line), to skip the batches where no line can match without
 * looking at each line. That is sound because a match inside a line is also a match inside the
 * batch, except for the absolute anchors `\A` and `\z` and inline flags that switch multi-line
 * mode off (those patterns go line by line), and for `$` before a `\r` (such batches too).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { RE2JS } = require(workerData.enginePath);
let line;
let batch;
function compile({ body, flags }) {
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  const source = RE2JS.translateRegExp(body);
  line = RE2JS.compile(source, bits);
  const wholeBatchFirst = !/\\\\[Az]|\\(\\?[a-zA-Z]*-/.test(source);
  batch = wholeBatchFirst ? RE2JS.compile(source, bits | RE2JS.MULTILINE) : undefined;
}
parentPort.on('message', (message) => {
  if (message.pattern) {
    try {
      compile(message.pattern);
      parentPort.postMessage({ compiled: true });
    } catch (error) {
      parentPort.postMessage({ invalid: String(error && error.message ? error.message : error) });
    }
    return;
  }
  // re2js matches UTF-8 bytes as they are: nothing is decoded, no string is made.
  const { data, count } = message;
  const found = [];
  if (!batch || data.includes(13) || batch.test(data)) {
    let start = 0;
    for (let index = 0; index < count; index++) {
      let end = data.indexOf(10, start);
      if (end === -1) end = data.length;
      const stop = end > start && data[end - 1] === 13 ? end - 1 : end;
      if (line.test(data.subarray(start, stop))) found.push(index);
      start = end + 1;
    }
  }
  parentPort.postMessage({ found: Uint32Array.from(found), data }, [data.buffer]);
});
`;

/**
 * How many pattern workers run at once, at most: 2, or 1 on a single core. Matching is CPU-bound,
 * so more threads than cores buy nothing, and each costs a V8 heap (up to ~36 MB, see
 * `resourceLimits`) and ~40-60 ms to start; 150 searches with a worker each took the gateway to
 * 1.5 GB and blocked its loop for 5 s (issue 21, hole 6). Two let one slow search leave room for
 * another; the host's own thread keeps the remaining cores.
 */
export const PATTERN_WORKERS = Math.max(1, Math.min(2, availableParallelism()));

/** After a search, its worker waits this long for the next one (unref'd), then ends. */
const IDLE_WORKER_MS = 30_000;

/** A worker for a queued search, or why it has none. */
type Acquired = Worker | Error | 'timed-out' | 'aborted';

/**
 * The pattern workers: at most `PATTERN_WORKERS` threads alive (a terminated one counts until it
 * has exited), idle ones kept warm for `IDLE_WORKER_MS`, and a FIFO queue of the searches that
 * wait for one. A queued search leaves the queue at its deadline or on its abort.
 */
class WorkerPool {
  /** Every worker started and not yet exited: busy, idle or being terminated. */
  private readonly live = new Set<Worker>();
  private readonly idle: { worker: Worker; timer: NodeJS.Timeout }[] = [];
  private readonly queue: ((acquired: Acquired) => void)[] = [];

  /** A worker for one search, once one is free, unless `deadline` passes or `signal` aborts. */
  acquire(deadline: number, signal?: AbortSignal): Promise<Acquired> {
    if (signal?.aborted) return Promise.resolve('aborted');
    const idle = this.idle.pop();
    if (idle) {
      clearTimeout(idle.timer);
      return Promise.resolve(idle.worker);
    }
    if (this.live.size < PATTERN_WORKERS) return Promise.resolve(this.startOrError());
    return new Promise<Acquired>((resolve) => {
      const give = (acquired: Acquired) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(acquired);
      };
      const leave = (outcome: 'timed-out' | 'aborted') => {
        const index = this.queue.indexOf(give);
        if (index !== -1) this.queue.splice(index, 1);
        give(outcome);
      };
      // The wait counts against the search's time limit.
      const timer = setTimeout(() => leave('timed-out'), Math.max(0, deadline - Date.now()));
      const onAbort = () => leave('aborted');
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(give);
    });
  }

  /** A worker done with its search, ready for another: to the next in the queue, or idle. */
  release(worker: Worker): void {
    if (!this.live.has(worker)) return;
    const next = this.queue.shift();
    if (next) {
      next(worker);
      return;
    }
    const timer = setTimeout(() => {
      const index = this.idle.findIndex((entry) => entry.worker === worker);
      if (index === -1) return;
      this.idle.splice(index, 1);
      void worker.terminate();
    }, IDLE_WORKER_MS);
    timer.unref();
    this.idle.push({ worker, timer });
  }

  /** A worker stopped mid-search: terminated; its place goes to the queue once it has exited. */
  discard(worker: Worker): void {
    void worker.terminate();
  }

  state(): { workers: number; idle: number; queued: number } {
    return { workers: this.live.size, idle: this.idle.length, queued: this.queue.length };
  }

  private startOrError(): Worker | Error {
    try {
      return this.start();
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { enginePath: require.resolve('re2js') },
      // It holds one batch at a time: a small heap keeps the host's memory flat on a 200 MB file.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 },
    });
    // Searches own it; it must never keep a host process alive (a pending match keeps its timer).
    worker.unref();
    this.live.add(worker);
    // A search listens while it owns the worker; between searches the exit below is what counts.
    worker.on('error', () => {});
    worker.on('exit', () => {
      this.live.delete(worker);
      const index = this.idle.findIndex((entry) => entry.worker === worker);
      if (index !== -1) {
        clearTimeout(this.idle[index]?.timer);
        this.idle.splice(index, 1);
      }
      // Its place: a replacement for the first search in the queue.
      while (this.queue.length > 0 && this.live.size < PATTERN_WORKERS) {
        this.queue.shift()?.(this.startOrError());
      }
    });
    _internal.onWorkerStart?.(worker);
    return worker;
  }
}

const pool = new WorkerPool();

/** For tests: a look into the pool of pattern workers. */
export const _internal: {
  /** Called with every worker the pool starts (to count them, or watch their `exit`). */
  onWorkerStart: ((worker: Worker) => void) | undefined;
  /** Workers alive (busy, idle or being terminated), idle ones, and searches queued. */
  poolState: () => { workers: number; idle: number; queued: number };
} = { onWorkerStart: undefined, poolState: () => pool.state() };

export type BatchOutcome =
  { kind: 'matched'; indices: Uint32Array } | { kind: 'timed-out' } | { kind: 'aborted' };

type Reply = { found: Uint32Array; data: Uint8Array } | { compiled: true } | { invalid: string };
type Settled = { kind: 'reply'; reply: Reply } | { kind: 'timed-out' } | { kind: 'aborted' };

/** Matches the batches of one search in a pooled worker thread (taken at its first batch). */
export class LineMatcher {
  private worker: Worker | undefined;
  private acquired = false;
  private closed = false;
  private failure: Error | undefined;
  private waiting: ((settled: Settled | Error) => void) | undefined;
  private compiled = false;
  /** The buffer the worker hands back after each batch, filled again for the next. */
  private spare: ArrayBuffer | undefined;
  private readonly onMessage = (reply: Reply) => this.waiting?.({ kind: 'reply', reply });
  private readonly onError = (error: Error) => this.fail(error);
  private readonly onExit = (code: number) =>
    this.fail(new Error(`the pattern worker exited (${code})`));

  constructor(private readonly pattern: PatternSpec) {}

  /**
   * The indices of the `count` lines in `data` that match, unless the deadline passes or `signal`
   * aborts first (then the worker is terminated and every later call answers the same). The
   * first call waits for a worker (the wait counts against the deadline) and compiles the
   * pattern; a pattern the engine refuses throws `PatternError`.
   */
  async match(
    data: Uint8Array,
    count: number,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<BatchOutcome> {
    if (!this.acquired) {
      const stopped = await this.acquire(deadline, signal);
      if (stopped) return stopped;
    }
    if (!this.compiled) {
      const settled = await this.request({ pattern: this.pattern }, [], deadline, signal);
      if (settled.kind !== 'reply') return settled;
      if ('invalid' in settled.reply) {
        throw new PatternError(
          `invalid pattern ${this.pattern.shown}: ${settled.reply.invalid}. ${SYNTAX_HINT}.`,
        );
      }
      this.compiled = true;
    }
    // A copy the worker owns (transferred, not cloned), in the buffer it handed back if it fits.
    const backing =
      this.spare && this.spare.byteLength >= data.length
        ? this.spare
        : new ArrayBuffer(Math.max(data.length, 1 << 20));
    this.spare = undefined;
    const buffer = new Uint8Array(backing, 0, data.length);
    buffer.set(data);
    const settled = await this.request({ data: buffer, count }, [backing], deadline, signal);
    if (settled.kind !== 'reply') return settled;
    if (!('found' in settled.reply)) throw new Error('the pattern worker answered out of turn');
    this.spare = settled.reply.data.buffer as ArrayBuffer;
    return { kind: 'matched', indices: settled.reply.found };
  }

  /** Ends the search: an idle worker goes back to the pool, a busy one is terminated. */
  close(): void {
    this.closed = true;
    const worker = this.detach();
    if (!worker) return;
    if (this.waiting) pool.discard(worker);
    else pool.release(worker);
  }

  /** Waits for a worker from the pool; the outcome when the deadline or the abort comes first. */
  private async acquire(
    deadline: number,
    signal?: AbortSignal,
  ): Promise<{ kind: 'timed-out' } | { kind: 'aborted' } | undefined> {
    this.acquired = true;
    const acquired = await pool.acquire(deadline, signal);
    if (acquired instanceof Worker) {
      if (this.closed) {
        pool.release(acquired);
        throw new Error('the pattern worker was closed');
      }
      this.worker = acquired;
      acquired.on('message', this.onMessage);
      acquired.on('error', this.onError);
      acquired.on('exit', this.onExit);
      return undefined;
    }
    if (acquired instanceof Error) {
      this.failure = acquired;
      throw acquired;
    }
    this.failure = new Error('the pattern search ended before it had a worker');
    return { kind: acquired };
  }

  /** One message and its answer, or the deadline or the abort (then the worker is terminated). */
  private request(
    message: unknown,
    transfer: ArrayBuffer[],
    deadline: number,
    signal?: AbortSignal,
  ): Promise<Settled> {
    if (signal?.aborted) return Promise.resolve(this.stop({ kind: 'aborted' }));
    if (!this.worker)
      return Promise.reject(this.failure ?? new Error('the pattern worker stopped'));
    const worker = this.worker;
    return new Promise<Settled>((resolve, reject) => {
      const timer = setTimeout(
        () => finish(this.stop({ kind: 'timed-out' })),
        Math.max(0, deadline - Date.now()),
      );
      const onAbort = () => finish(this.stop({ kind: 'aborted' }));
      signal?.addEventListener('abort', onAbort, { once: true });
      const finish = (settled: Settled | Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting = undefined;
        if (settled instanceof Error) reject(settled);
        else resolve(settled);
      };
      this.waiting = finish;
      worker.postMessage(message, transfer);
    });
  }

  private detach(): Worker | undefined {
    const worker = this.worker;
    this.worker = undefined;
    this.failure ??= new Error('the pattern worker was closed');
    worker?.off('message', this.onMessage);
    worker?.off('error', this.onError);
    worker?.off('exit', this.onExit);
    return worker;
  }

  private stop<T extends Settled>(settled: T): T {
    const worker = this.detach();
    if (worker) pool.discard(worker);
    return settled;
  }

  private fail(error: Error): void {
    if (!this.worker) return;
    this.detach();
    this.failure = error;
    this.waiting?.(error);
  }
}
