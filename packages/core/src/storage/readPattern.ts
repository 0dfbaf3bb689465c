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
 *
 * The parts: patternSyntax.ts (the checks before any engine, `PatternError`),
 * patternWorkerSource.ts (the worker's program), patternWorkerPool.ts (the pool and its queue);
 * this file is one search's matcher.
 */
import { Worker } from 'node:worker_threads';
import { PatternError, SYNTAX_HINT, type PatternSpec } from './patternSyntax.js';
import { patternWorkers } from './patternWorkerPool.js';

/** How much of a line a pattern sees: its first 1 MiB of UTF-8. */
export const MATCH_LINE_BYTES = 1 << 20;

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
    if (this.waiting) patternWorkers.discard(worker);
    else patternWorkers.release(worker);
  }

  /** Waits for a worker from the pool; the outcome when the deadline or the abort comes first. */
  private async acquire(
    deadline: number,
    signal?: AbortSignal,
  ): Promise<{ kind: 'timed-out' } | { kind: 'aborted' } | undefined> {
    this.acquired = true;
    const acquired = await patternWorkers.acquire(deadline, signal);
    if (acquired instanceof Worker) {
      if (this.closed) {
        patternWorkers.release(acquired);
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
    if (worker) patternWorkers.discard(worker);
    return settled;
  }

  private fail(error: Error): void {
    if (!this.worker) return;
    this.detach();
    this.failure = error;
    this.waiting?.(error);
  }
}
