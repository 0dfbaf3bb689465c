/**
 * The pool of pattern workers, one per process: at most `PATTERN_WORKERS` threads alive (a
 * terminated one counts until it has exited), idle ones kept warm for `IDLE_WORKER_MS` (unref'd:
 * they never keep a host alive), and a FIFO queue of the searches that wait for one. A queued
 * search leaves the queue at its deadline or on its abort, so its time limit counts from before
 * the wait. A worker stopped mid-search is terminated, and its place goes to the next search in
 * the queue once it has exited. Each worker has a small heap: it holds one batch at a time.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { WORKER_SOURCE } from './patternWorkerSource.js';

const require = createRequire(import.meta.url);

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

  /** Terminates the idle workers and waits until they have exited. */
  async drainIdle(): Promise<void> {
    const idle = this.idle.splice(0);
    for (const entry of idle) clearTimeout(entry.timer);
    await Promise.all(idle.map((entry) => entry.worker.terminate()));
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

export const patternWorkers = new WorkerPool();

/** For tests: a look into the pool of pattern workers. */
export const _internal: {
  /** Called with every worker the pool starts (to count them, or watch their `exit`). */
  onWorkerStart: ((worker: Worker) => void) | undefined;
  /** Workers alive (busy, idle or being terminated), idle ones, and searches queued. */
  poolState: () => { workers: number; idle: number; queued: number };
  /**
   * Ends the idle workers (a test that counts workers from an empty pool, while other files of
   * the same process left theirs warm).
   */
  drainIdle: () => Promise<void>;
} = {
  onWorkerStart: undefined,
  poolState: () => patternWorkers.state(),
  drainIdle: () => patternWorkers.drainIdle(),
};
